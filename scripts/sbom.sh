#!/usr/bin/env bash
# sbom.sh writes on stdout a CycloneDX 1.5 SBOM (JSON) of a Go binary's
# module graph, from what the binary itself records (`go version -m`):
# the main module, each module it links (path, version, go.sum hash) and
# the Go standard library it was built with.
#
#   bash scripts/sbom.sh BINARY VERSION DATE
#
# VERSION is the release's version, DATE its build date (RFC 3339). The
# output depends on nothing else (no clock, no random serial number: the
# serial is derived from the binary's SHA-256), so that a release built
# twice from one commit gives the same SBOM.
set -euo pipefail

bin=$1 version=$2 date=$3
info=$(go version -m "$bin")
gover=$(printf '%s\n' "$info" | head -n 1 | awk '{print $2}')
main=$(printf '%s\n' "$info" | awk '$1 == "path" {print $2}')
sum=$(sha256sum "$bin" | awk '{print $1}')
serial="${sum:0:8}-${sum:8:4}-5${sum:13:3}-a${sum:17:3}-${sum:20:12}"

# JSON strings here are module paths, versions and hashes: none holds a
# quote or a backslash (the module path rules), so they are written as is.
component() { # TYPE NAME VERSION [H1]
	local ref="pkg:golang/$2@$3"
	printf '    {\n      "type": "%s",\n      "bom-ref": "%s",\n      "name": "%s",\n      "version": "%s",\n      "purl": "%s"' "$1" "$ref" "$2" "$3" "$ref"
	if [[ -n ${4:-} ]]; then
		printf ',\n      "properties": [{"name": "go:sum", "value": "%s"}]' "$4"
	fi
	printf '\n    }'
}

deps=()
while read -r kind path ver h1 _; do
	[[ $kind == dep ]] && deps+=("$path $ver ${h1:-}")
done <<<"$info"

printf '{\n  "bomFormat": "CycloneDX",\n  "specVersion": "1.5",\n'
printf '  "serialNumber": "urn:uuid:%s",\n  "version": 1,\n' "$serial"
printf '  "metadata": {\n    "timestamp": "%s",\n' "$date"
printf '    "tools": {"components": [{"type": "application", "name": "scripts/sbom.sh"}]},\n'
printf '    "component": {\n      "type": "application",\n      "bom-ref": "pkg:golang/%s@%s",\n' "$main" "$version"
printf '      "name": "%s",\n      "version": "%s",\n      "purl": "pkg:golang/%s@%s",\n' "$main" "$version" "$main" "$version"
printf '      "licenses": [{"license": {"id": "Apache-2.0"}}],\n'
printf '      "hashes": [{"alg": "SHA-256", "content": "%s"}]\n    }\n  },\n' "$sum"
printf '  "components": [\n'
component library stdlib "$gover"
refs=("\"pkg:golang/stdlib@$gover\"")
for d in "${deps[@]}"; do
	read -r path ver h1 <<<"$d"
	printf ',\n'
	component library "$path" "$ver" "$h1"
	refs+=("\"pkg:golang/$path@$ver\"")
done
printf '\n  ],\n  "dependencies": [\n'
joined=$(IFS=,; echo "${refs[*]}")
printf '    {"ref": "pkg:golang/%s@%s", "dependsOn": [%s]}\n  ]\n}\n' "$main" "$version" "${joined//,/, }"
