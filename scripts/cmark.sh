#!/usr/bin/env bash
# cmark.sh makes sure cmark-gfm (GitHub's own Markdown renderer, from
# Debian's packages) is installed, for the tests that render mcpwire's
# Markdown (diff --markdown, internal/safe's MarkdownText and
# MarkdownCode) with it and check that no server's text becomes HTML, a
# comment, a link or an image. As root (or through sudo without a
# password) it installs a missing one with apt-get; elsewhere it says what
# to do and fails, which fails CI (the tests need it there) but not a
# developer's run outside CI.
set -euo pipefail

if command -v cmark-gfm >/dev/null; then
	echo "cmark: cmark-gfm is installed"
	exit 0
fi
bash "$(dirname "${BASH_SOURCE[0]}")"/apt.sh cmark cmark-gfm
command -v cmark-gfm >/dev/null
