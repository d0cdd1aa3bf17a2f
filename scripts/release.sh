#!/usr/bin/env bash
# release.sh builds the release binaries of mcpwire: linux, darwin and
# windows, each for amd64 and arm64, static (CGO_ENABLED=0), with
# -trimpath and -ldflags='-s -w -buildid=', and writes their SHA-256 sums
# and an SBOM (CycloneDX 1.5 JSON) of the module graph they link.
#
#   bash scripts/release.sh [OUT]        (OUT defaults to dist/)
#
# Each binary is OUT/mcpwire-VERSION-GOOS-GOARCH (.exe on windows),
# OUT/mcpwire-VERSION.cdx.json is the SBOM, and OUT/SHA256SUMS lists them
# all in the format `sha256sum -c` reads. VERSION is $VERSION, else `git
# describe --tags --always --dirty`, else "dev".
#
# The version, the commit and the build date are stamped into the binary
# (-X): `mcpwire version` says them. The build date is the commit's time
# (or $SOURCE_DATE_EPOCH), never the clock, and the build ID is empty, so
# that the same commit gives the same bytes twice (with the same Go).
#
# The release binaries speak HTTP/1.1 only: they are built with the
# standard library's nethttpomithttp2 tag, which leaves out net/http's
# bundled HTTP/2 (some 540 KB). MCP needs nothing of HTTP/2: streamable
# HTTP and SSE work the same over HTTP/1.1, which every server speaks
# (a GET stream and POSTs then take a connection each). Builds without the
# tag (go install, go build) keep HTTP/2.
#
# Checks, each failing the run: every binary is statically linked (no
# program interpreter), the linux/amd64 one answers `version` and runs
# `test --demo=http` (the HTTP client and server of the tagged build), and
# it is at most MAX_BYTES (default 9700000: 9 MB until wave 3, whose
# proxy, serve, sessions, registry, replay, tasks, skills, pins and sandbox
# took it to 9.72 MB; cuts brought it back to 9.48 MB, and the bound keeps
# what they won). When it grows
# past that, the run lists the largest symbols (go tool nm -size -sort
# size) to show what grew.
#
# Env: TARGETS overrides the list ("linux/amd64 darwin/arm64 ..."),
# MAX_BYTES the size bound.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
out=${1:-dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
targets=${TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"}
max=${MAX_BYTES:-9700000}
version=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
commit=$(git rev-parse HEAD 2>/dev/null || true)
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
# GNU date takes -d @EPOCH, BSD date -r EPOCH.
date=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$epoch" +%Y-%m-%dT%H:%M:%SZ)
pkg=github.com/mcpwire/mcpwire/cli
# Functions start on 16-byte boundaries (-funcalign=16): arm64's default,
# half of amd64's 32, whose padding between some 11,000 functions cost
# 94,208 bytes (linux/amd64). Functions that ask for more alignment keep
# it. CPU per sequential stdio call was unchanged (see the commit).
ldflags="-s -w -buildid= -funcalign=16 -X $pkg.releaseVersion=$version -X $pkg.releaseCommit=$commit -X $pkg.releaseDate=$date"

# Code that runs once per process (flags, configuration, OAuth, reviews,
# the demo and bridge servers, the diff engine, certificate parsing, TLS
# handshakes, the manager's per-call orchestration: -32 KB) is built
# without inlining: 9.29 MB -> 8.70 MB for linux/amd64 at the time.
# The paths every message takes (the
# runtime, jsonrpc, transport, protocol, encoding/json, net/http, the
# record layer's ciphers) keep the compiler's inlining.
mod=github.com/mcpwire/mcpwire
noinline=(
	"$mod/cli" "$mod/config/..." "$mod/oauth" "$mod/internal/..." "$mod/procgroup" "$mod/manager"
	"$mod/protocol/surface" "$mod/protocol/server"
	crypto/tls crypto/x509 crypto/x509/... encoding/asn1 math/big crypto/rsa crypto/ecdsa crypto/ed25519
	crypto/internal/fips140/rsa crypto/internal/fips140/ecdsa crypto/internal/fips140/nistec/...
	crypto/internal/fips140/mlkem crypto/internal/fips140/edwards25519/... crypto/internal/fips140/bigmod
	fmt flag encoding/xml html compress/... net/url mime/... text/... regexp/... archive/...
	vendor/golang.org/x/text/... vendor/golang.org/x/net/... golang.org/x/term golang.org/x/sys/...
	# The rest of a TLS handshake (key exchange, its hashes, the parsing
	# of its messages), logging, spawning and paths: -28,672 bytes.
	crypto/sha3 crypto/internal/fips140/sha3 vendor/golang.org/x/crypto/cryptobyte/... crypto/hpke
	crypto/ecdh crypto/internal/fips140/ecdh crypto/internal/fips140/ed25519 crypto/internal/fips140/drbg
	crypto/internal/fips140/hkdf crypto/hkdf crypto/internal/fips140/tls13 crypto/internal/fips140/tls12
	crypto/mlkem crypto/des crypto/rc4 crypto/md5 crypto/dsa crypto/elliptic crypto/internal/fips140/check
	encoding/pem log log/internal internal/fmtsort os/exec os/signal runtime/debug path/filepath io/fs
)
# Every package names a generic function's shape by a hash when the
# shape's name is longer than 64 characters (-d=maxshapelen=64; the
# compiler's default is 500): names such as slices.pdqsortCmpFunc[go.shape.
# struct { …twelve fields… }] are kept whole in the binary's function
# table. The code is the same; a stack trace shows the hash: -24,576 bytes.
shape=maxshapelen=64
gcflags=("-gcflags=all=-d=$shape")
# The same code keeps a make of a variable length on the heap
# (-d=variablemakethreshold=0): the compiler would otherwise give each
# such make a small stack buffer and the code to choose: -24,576 bytes.
# (A package's flags replace those of all=, so they repeat the shape's.)
for p in "${noinline[@]}"; do gcflags+=("-gcflags=$p=-l -d=variablemakethreshold=0,$shape"); done

names=()
for t in $targets; do
	goos=${t%/*}
	goarch=${t#*/}
	name="mcpwire-$version-$goos-$goarch"
	[[ $goos == windows ]] && name+=.exe
	echo "release: $name"
	# -buildvcs=auto overrides a GOFLAGS=-buildvcs=false of the machine:
	# a checkout's build carries its revision, a tarball's builds anyway.
	CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -buildvcs=auto -trimpath -tags nethttpomithttp2 "${gcflags[@]}" -ldflags="$ldflags" -o "$out/$name" .
	names+=("$name")
done

# Static: no program interpreter (ELF), no cgo in the build.
for n in "${names[@]}"; do
	if ! go version -m "$out/$n" | grep -q $'\tbuild\tCGO_ENABLED=0$'; then
		echo "release: $n was not built with CGO_ENABLED=0" >&2
		exit 1
	fi
	if [[ $n == *-linux-* ]]; then
		if command -v readelf >/dev/null; then
			interp=$(readelf -l "$out/$n" | grep -c 'program interpreter' || true)
		else
			interp=$(head -c 4096 "$out/$n" | grep -c --binary-files=text 'ld-linux' || true)
		fi
		if ((interp > 0)); then
			echo "release: $n asks for a dynamic loader" >&2
			exit 1
		fi
	fi
done

sbom="mcpwire-$version.cdx.json"
bash scripts/sbom.sh "$out/${names[0]}" "$version" "$date" >"$out/$sbom"

(cd "$out" && sha256sum "${names[@]}" "$sbom" >SHA256SUMS && sha256sum -c --quiet SHA256SUMS)

for n in "${names[@]}"; do
	size=$(wc -c <"$out/$n")
	printf 'release: %-40s %10d bytes\n' "$n" "$size"
	if [[ $n == *-linux-amd64 ]] && ((size > max)); then
		echo "release: $n is $size bytes, more than $max; the largest symbols of an unstripped build:" >&2
		tmp=$(mktemp -d)
		CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -tags nethttpomithttp2 -o "$tmp/mcpwire" .
		go tool nm -size -sort size "$tmp/mcpwire" | head -n 30 >&2
		rm -rf "$tmp"
		exit 1
	fi
done
echo "release: ${#names[@]} binaries, $sbom and SHA256SUMS in $out"
