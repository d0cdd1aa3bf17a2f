#!/usr/bin/env bash
# chromium.sh makes sure Debian's chromium is installed, for the test that
# logs in through a real headless browser (cli/browser_test.go). When
# /usr/bin/chromium is missing it installs the package with apt-get, as
# root (or through sudo without a password); elsewhere it says what to do
# and fails, which fails CI (the test needs it there) but not a developer's
# run of scripts/test.sh outside CI.
#
# Env: CHROMIUM overrides the path looked for.
set -euo pipefail

chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ -x "$chromium" ]]; then
	echo "chromium: $("$chromium" --version 2>/dev/null || echo "$chromium")"
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
	echo "chromium: $chromium is missing and this is not a Debian system; install Chromium and set CHROMIUM to its path" >&2
	exit 1
fi
echo "chromium: installing Debian's chromium package"
export DEBIAN_FRONTEND=noninteractive
ok=
for attempt in 1 2 3; do
	if run_root apt-get install -y -q --no-install-recommends chromium >/tmp/chromium-apt.log 2>&1 ||
		{ run_root apt-get update -q >>/tmp/chromium-apt.log 2>&1 &&
			run_root apt-get install -y -q --no-install-recommends chromium >>/tmp/chromium-apt.log 2>&1; }; then
		ok=1
		break
	fi
	if [[ $(id -u) -ne 0 ]] && ! { command -v sudo >/dev/null && sudo -n true 2>/dev/null; }; then
		break
	fi
	echo "chromium: apt-get failed (attempt $attempt of 3); last lines:" >&2
	tail -n 5 /tmp/chromium-apt.log >&2
	sleep $((attempt * 5))
done
if [[ -z $ok || ! -x "$chromium" ]]; then
	echo "chromium: could not install chromium (needs root or sudo without a password); as root: apt-get install chromium" >&2
	exit 1
fi
echo "chromium: $("$chromium" --version 2>/dev/null)"
