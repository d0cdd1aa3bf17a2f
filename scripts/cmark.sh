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
run_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 1
	fi
}
if ! command -v apt-get >/dev/null; then
	echo "cmark: cmark-gfm missing and this is not a Debian system; install it" >&2
	exit 1
fi
echo "cmark: installing cmark-gfm"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
for attempt in 1 2 3; do
	if run_root apt-get install -y -q --no-install-recommends cmark-gfm >"$log" 2>&1 ||
		{ run_root apt-get update -q >>"$log" 2>&1 &&
			run_root apt-get install -y -q --no-install-recommends cmark-gfm >>"$log" 2>&1; }; then
		break
	fi
	if [[ $(id -u) -ne 0 ]] && ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
		break
	fi
	echo "cmark: apt-get failed (attempt $attempt of 3); last lines:" >&2
	tail -n 5 "$log" >&2
	sleep $((attempt * 5))
done
rm -f "$log"
if ! command -v cmark-gfm >/dev/null; then
	echo "cmark: could not install cmark-gfm (needs root or sudo without a password); as root: apt-get install cmark-gfm" >&2
	exit 1
fi
echo "cmark: installed cmark-gfm"
