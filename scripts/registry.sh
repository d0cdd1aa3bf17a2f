#!/usr/bin/env bash
# registry.sh builds the official MCP Registry server, a test peer of the
# registry tests (cli/registry_e2e_test.go), into .deps/registry/, and
# makes sure PostgreSQL (Debian's postgresql package) is installed for
# its database. The registry is never a module dependency of mcpwire:
# it is built from a small wrapper module generated here, under .deps,
# that requires github.com/modelcontextprotocol/registry at $VERSION and
# replaces huma/v2 with v2.37.2 (the module proxy refuses v2.40.0, which
# the registry asks for; it builds unchanged against v2.37.2).
#
# A missing postgresql is installed by apt.sh (apt-get as root, or sudo
# without a password); otherwise it fails saying what to do, which fails
# CI but not a developer's run (the tests then skip).
set -euo pipefail

VERSION=v1.8.9
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir="$root/.deps/registry"
bin="$dir/bin/registry"

if ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then
	bash "$root/scripts/apt.sh" registry postgresql
fi
echo "registry: PostgreSQL $(ls /usr/lib/postgresql | sort -n | tail -1) is installed"

if [[ -x "$bin" && "$(cat "$dir/version" 2>/dev/null)" == "$VERSION" ]]; then
	echo "registry: $VERSION is built ($bin)"
	exit 0
fi
mkdir -p "$dir/wrapper" "$dir/bin"
cat >"$dir/wrapper/go.mod" <<EOM
module mcpwire.test/registrypeer

go 1.24

require github.com/modelcontextprotocol/registry $VERSION

replace github.com/danielgtaylor/huma/v2 => github.com/danielgtaylor/huma/v2 v2.37.2
EOM
cat >"$dir/wrapper/tools.go" <<'EOM'
//go:build tools

// Package tools only names the registry server for the module graph.
package tools

import _ "github.com/modelcontextprotocol/registry/cmd/registry"
EOM
echo "registry: building github.com/modelcontextprotocol/registry $VERSION"
(
	cd "$dir/wrapper"
	GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true
	GOFLAGS=-mod=mod CGO_ENABLED=0 go build -o "$bin" github.com/modelcontextprotocol/registry/cmd/registry
)
echo "$VERSION" >"$dir/version"
echo "registry: built $bin"
