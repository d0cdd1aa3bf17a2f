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

bash "$(dirname "${BASH_SOURCE[0]}")"/apt.sh chromium chromium
if [[ ! -x "$chromium" ]]; then
	echo "chromium: installed, but $chromium is not there; set CHROMIUM to its path" >&2
	exit 1
fi
echo "chromium: $("$chromium" --version 2>/dev/null)"
