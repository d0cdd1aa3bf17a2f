package registry

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseEntry feeds the server.json parser and the planner arbitrary
// registry answers: no panic, and a plan's entry marshals to an object.
func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(entryDoc(npmDoc, "active")))
	f.Add([]byte(`{"server":{"name":"a/b","version":"1","remotes":[{"type":"streamable-http","url":"{x}{y}"}]}}`))
	f.Add([]byte(`{"server":{"name":"a/b","version":"1","packages":[{"registryType":"oci","identifier":"i@sha256:00"}]},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"deleted"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry(data)
		if err != nil {
			return
		}
		for _, c := range []Choice{{}, {Remote: true}, {Package: "npm"}, {Package: "oci"}, {Package: "pypi"}} {
			p, err := MakePlan(e, "u", Options{Choice: c, LookPath: haveAll, Values: Values{Vars: map[string][]string{"x": {"1"}}}})
			if err != nil {
				continue
			}
			if _, err := json.Marshal(p.Entry); err != nil {
				t.Fatalf("entry does not marshal: %v", err)
			}
		}
	})
}

// FuzzParseLock: no panic on any lock file; a parsed lock encodes and
// parses back to the same bytes.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte(`{"lockfileVersion":1,"servers":{"a":{"registry":"u","name":"n/a","version":"1","via":"npm","artifact":"x","digest":"d","document":"d"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock("f", data)
		if err != nil {
			return
		}
		again, err := ParseLock("f", l.Encode())
		if err != nil || string(again.Encode()) != string(l.Encode()) {
			t.Fatalf("not stable: %v", err)
		}
	})
}

// FuzzBundleManifest feeds the MCPB reader arbitrary archives: no panic;
// an archive it unpacks leaves nothing outside its folder.
func FuzzBundleManifest(f *testing.F) {
	f.Add(bundleZip(f, map[string]string{"manifest.json": manifest, "server/index.js": "x"}))
	f.Add(bundleZip(f, map[string]string{"manifest.json": manifest, "../x": "x"}))
	f.Add(bundleZip(f, map[string]string{"manifest.json": `{"server":{"mcp_config":{"command":"x"}}}`, "a@": "/etc"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		if _, err := readManifest(zr); err != nil {
			return
		}
		base := t.TempDir()
		dir := filepath.Join(base, "b")
		os.Mkdir(dir, 0o700)
		if unpack(zr, dir) != nil {
			return
		}
		entries, _ := os.ReadDir(base)
		if len(entries) != 1 {
			t.Fatalf("unpack wrote outside its folder: %v", entries)
		}
	})
}
