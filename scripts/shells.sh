#!/usr/bin/env bash
# shells.sh makes sure bash, zsh and fish are installed, for the tests that
# run mcpwire's completion scripts in the real shells with hostile server
# names (cli/completion_shells_test.go). Missing ones are installed from
# Debian's packages with apt-get, as root (or through sudo without a
# password); elsewhere it says what to do and fails, which fails CI (the
# tests need them there) but not a developer's run outside CI.
set -euo pipefail

missing=()
for sh in bash zsh fish; do
	command -v "$sh" >/dev/null || missing+=("$sh")
done
if [[ ${#missing[@]} -eq 0 ]]; then
	echo "shells: bash, zsh and fish are installed"
	exit 0
fi

bash "$(dirname "${BASH_SOURCE[0]}")"/apt.sh shells "${missing[@]}"
for sh in "${missing[@]}"; do
	command -v "$sh" >/dev/null
done
