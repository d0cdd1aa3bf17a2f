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
	echo "shells: ${missing[*]} missing and this is not a Debian system; install them" >&2
	exit 1
fi
echo "shells: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
ok=
for attempt in 1 2 3; do
	if run_root apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1 ||
		{ run_root apt-get update -q >>"$log" 2>&1 &&
			run_root apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }; then
		ok=1
		break
	fi
	if [[ $(id -u) -ne 0 ]] && ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
		break
	fi
	echo "shells: apt-get failed (attempt $attempt of 3); last lines:" >&2
	tail -n 5 "$log" >&2
	sleep $((attempt * 5))
done
rm -f "$log"
for sh in "${missing[@]}"; do
	if [[ -z $ok ]] || ! command -v "$sh" >/dev/null; then
		echo "shells: could not install $sh (needs root or sudo without a password); as root: apt-get install ${missing[*]}" >&2
		exit 1
	fi
done
echo "shells: installed ${missing[*]}"
