#!/usr/bin/env bash
# apt.sh WHO PACKAGE...: installs Debian's PACKAGEs with apt-get, as root
# (or through sudo without a password), trying three times (with an
# apt-get update after a failure). WHO names the caller in its messages.
# It fails, saying what to do, where it cannot install (not Debian, not
# root): the test set-up scripts (shells.sh, cmark.sh, chromium.sh,
# registry.sh) turn that into a failure under CI and a skip elsewhere.
set -euo pipefail

who=$1
shift

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
	echo "$who: $* missing and this is not a Debian system; install them" >&2
	exit 1
fi
echo "$who: installing $*"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for attempt in 1 2 3; do
	if run_root apt-get install -y -q --no-install-recommends "$@" >"$log" 2>&1 ||
		{ run_root apt-get update -q >>"$log" 2>&1 &&
			run_root apt-get install -y -q --no-install-recommends "$@" >>"$log" 2>&1; }; then
		echo "$who: installed $*"
		exit 0
	fi
	if [[ $(id -u) -ne 0 ]] && ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
		break
	fi
	echo "$who: apt-get failed (attempt $attempt of 3); last lines:" >&2
	tail -n 5 "$log" >&2
	((attempt < 3)) && sleep $((attempt * 5))
done
echo "$who: could not install $* (needs root or sudo without a password); as root: apt-get install $*" >&2
exit 1
