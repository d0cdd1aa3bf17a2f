#!/usr/bin/env bash
# test.sh is the project's one test command (the README's; CI runs it via
# .ci/run, in a fresh clone, with CI=true). In order, each step failing
# stops the run:
#
#   1. scripts/deps.sh: the test peers (Node 22, the conformance suite,
#      server-everything, the TypeScript SDK) into .deps/; then
#      scripts/chromium.sh: Debian's chromium for the real-browser test;
#      scripts/shells.sh: bash, zsh and fish for the completion tests;
#      scripts/cmark.sh: cmark-gfm for the Markdown escaping tests;
#      scripts/wine.sh: wine, to run the Windows session tests;
#      scripts/registry.sh: the MCP Registry server and PostgreSQL
#   2. gofmt: no unformatted Go file
#   3. go vet ./...
#   4. CGO_ENABLED=0 go build -o mcpwire .   (the static binary)
#   5. GOOS=windows and GOOS=darwin go build ./...
#   6. go test -race -count=1 ./...          (CI=true is passed on: missing
#      peers fail instead of skipping)
#   7. every benchmark once (-benchtime=1x -short: the big-result sizes
#      only up to 1 MiB): each still runs (figures: scripts/bench.sh)
#   8. every fuzz target (func FuzzXxx in a _test.go), one at a time, briefly:
#      15s for jsonrpc's FuzzDecodeMessage, 5s for the others (70 targets:
#      about 8 minutes, so CI stays under 20; longer runs are for a
#      developer's machine, e.g. FUZZTIME=60s)
#   9. scripts/conformance/run.sh            (ends with "conformance: N passed, M failed")
#
# Env: FUZZTIME overrides the 5s (e.g. FUZZTIME=2s for a quick local run);
# SKIP_FUZZ=1 and SKIP_CONFORMANCE=1 leave those steps out (never in CI).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
if [[ -n "${CI:-}" ]]; then
	export CI
fi

step() {
	echo
	echo "== $* ($(date -u +%H:%M:%S))"
}

step "deps"
bash scripts/deps.sh

step "chromium"
# The real-browser login test (cli/browser_test.go) needs Debian's
# chromium; scripts/chromium.sh installs it with apt-get as root. In CI a
# failure stops the run; elsewhere the test skips.
if ! bash scripts/chromium.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		exit 1
	fi
	echo "chromium: not installed; the real-browser test will skip"
fi

step "shells"
# The completion tests (cli/completion_shells_test.go) run bash, zsh and
# fish; scripts/shells.sh installs the missing ones with apt-get. In CI a
# failure stops the run; elsewhere the tests skip.
if ! bash scripts/shells.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		exit 1
	fi
	echo "shells: not all installed; the completion tests will skip the missing ones"
fi

step "wine"
# The Windows session test (cli/wine_linux_test.go) runs the Windows
# build's named-pipe and session tests under wine; scripts/wine.sh
# installs it with apt-get. In CI a failure stops the run; elsewhere the
# test skips.
if ! bash scripts/wine.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		exit 1
	fi
	echo "wine: not installed; the Windows session test will skip"
fi

step "cmark"
# The Markdown tests (internal/safe TestEscaperMarkdownGFM, the root's
# TestEscaperCommands) render with GitHub's cmark-gfm; scripts/cmark.sh
# installs it with apt-get. In CI a failure stops the run; elsewhere the
# tests skip that check.
if ! bash scripts/cmark.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		exit 1
	fi
	echo "cmark: not installed; the Markdown tests will skip the renderer's check"
fi

step "registry"
# The registry tests (cli/registry_e2e_test.go) run the official MCP
# Registry server on PostgreSQL; scripts/registry.sh builds the one and
# installs the other. In CI a failure stops the run; elsewhere the tests
# skip.
if ! bash scripts/registry.sh; then
	if [[ "${CI:-}" == "true" ]]; then
		exit 1
	fi
	echo "registry: not built; the registry tests will skip"
fi

step "gofmt"
mapfile -t gofiles < <(git ls-files --cached --others --exclude-standard -- '*.go')
unformatted=$(gofmt -l "${gofiles[@]}")
if [[ -n "$unformatted" ]]; then
	echo "gofmt: these files are not formatted (run gofmt -w on them):"
	echo "$unformatted"
	exit 1
fi

step "go vet"
go vet ./...

step "build"
CGO_ENABLED=0 go build -o mcpwire .
GOOS=windows go build ./...
GOOS=darwin go build ./...
echo "built ./mcpwire; windows and darwin compile"

if [[ "${CI:-}" == "true" ]]; then
	unset SKIP_FUZZ SKIP_CONFORMANCE
fi

step "go test -race"
# -timeout: the cli package alone runs some 400 s of real peers under
# -race on two cores (Inspector, SDK hosts, conformance-style bridges),
# 575-590 s when other work shares the cores: go test's default of 10
# minutes per package would kill a run that is only slow. 30 minutes
# still stops a hung test well inside CI's bound.
go test -race -count=1 -timeout 30m ./...

step "benchmarks, once each"
go test -short -run='^$' -bench=. -benchtime=1x ./... | grep -v '^Benchmark'

if [[ -z "${SKIP_FUZZ:-}" ]]; then
	step "fuzz: listing targets"
	# `go test -list` prints a package's matching names, then its "ok" line.
	targets=()
	names=()
	while IFS= read -r line; do
		case "$line" in
		Fuzz*) names+=("$line") ;;
		ok*)
			pkg=$(awk '{ print $2 }' <<<"$line")
			for n in "${names[@]}"; do targets+=("$pkg $n"); done
			names=()
			;;
		*) names=() ;;
		esac
	done < <(go test -list '^Fuzz' ./...)
	echo "fuzz: ${#targets[@]} targets"
	for t in "${targets[@]}"; do
		read -r pkg name <<<"$t"
		time=${FUZZTIME:-5s}
		if [[ "$pkg" == "github.com/mcpwire/mcpwire/jsonrpc" && "$name" == "FuzzDecodeMessage" ]]; then
			time=15s
		fi
		step "fuzz $pkg $name for $time"
		log=$(mktemp)
		rc=0
		go test -run='^$' -fuzz="^${name}\$" -fuzztime="$time" "$pkg" 2>&1 | tee "$log" || rc=${PIPESTATUS[0]}
		if [[ $rc -ne 0 ]]; then
			# Go 1.26's fuzz coordinator can report its own -fuzztime deadline
			# as a failure (go.dev/issue/75804, fixed in Go 1.27). That case
			# writes no failing input and prints only the deadline error;
			# anything else is a real failure.
			if grep -A1 "^--- FAIL: $name " "$log" | grep -q '^    context deadline exceeded$' &&
				! grep -q 'Failing input written' "$log" &&
				[[ $(grep -c '^--- FAIL' "$log") -eq 1 ]]; then
				echo "fuzz: $name: the fuzz-time deadline race of Go 1.26 (go.dev/issue/75804), no failing input: not counted as a failure"
			else
				rm -f "$log"
				exit "$rc"
			fi
		fi
		rm -f "$log"
	done
fi

if [[ -z "${SKIP_CONFORMANCE:-}" ]]; then
	step "conformance"
	MCPWIRE_BIN="$root/mcpwire" bash scripts/conformance/run.sh
fi
