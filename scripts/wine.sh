#!/usr/bin/env bash
# wine.sh makes sure wine (Debian's wine64 package, 8.0 on bookworm) is
# installed, for the test that runs mcpwire's Windows tests under it: the
# session daemon's named pipe and sessions end to end
# (cli/wine_linux_test.go TestSessionsWindowsUnderWine). bookworm's
# wine64 puts its loader at /usr/lib/wine/wine64, off PATH (the wine
# package adds /usr/bin/wine); the test looks there too. As root (or
# through sudo without a password) it installs a missing one with
# apt-get; elsewhere it says what to do and fails, which fails CI (the
# test needs it there) but not a developer's run outside CI.
set -euo pipefail

have_wine() {
	command -v wine64 >/dev/null || command -v wine >/dev/null || [[ -x /usr/lib/wine/wine64 ]]
}

if have_wine; then
	echo "wine: installed"
	exit 0
fi
bash "$(dirname "${BASH_SOURCE[0]}")"/apt.sh wine wine64
have_wine
