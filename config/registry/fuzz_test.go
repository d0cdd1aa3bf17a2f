package registry

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
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
		zr, err := readZip(data)
		if err != nil {
			return
		}
		if _, err := readManifest(zr); err != nil {
			return
		}
		base := t.TempDir()
		dir := filepath.Join(base, "b")
		os.Mkdir(dir, 0o700)
		if unpack(zr, dir, MaxBundleUnpacked) != nil {
			return
		}
		entries, _ := os.ReadDir(base)
		if len(entries) != 1 {
			t.Fatalf("unpack wrote outside its folder: %v", entries)
		}
	})
}

// FuzzZipReader checks the bundles' zip reader against archive/zip on
// arbitrary archives: no panic; when both read the directory, the same
// members with the same modes; a member both read whole has the same
// bytes; one that only ours reads whole is not one archive/zip refuses
// for its checksum (but for a data descriptor's copy of it).
func FuzzZipReader(f *testing.F) {
	f.Add(bundleZip(f, map[string]string{"manifest.json": manifest, "server/index.js": "x", "bin/run": "#!/bin/sh"}))
	f.Add(bundleZip(f, map[string]string{"a@": "/etc", "d/": ""}))
	f.Add(storedZip(f, "stored.txt", "hello, stored"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ours, err := readZip(data)
		theirs, zerr := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil || zerr != nil {
			return
		}
		if len(ours) != len(theirs.File) {
			t.Fatalf("%d members, archive/zip reads %d", len(ours), len(theirs.File))
		}
		for i, m := range ours {
			z := theirs.File[i]
			if m.Name != z.Name || m.Mode() != z.Mode() {
				t.Fatalf("member %d: %q %v, archive/zip %q %v", i, m.Name, m.Mode(), z.Name, z.Mode())
			}
			a, aerr := readMember(m.Open)
			b, berr := readMember(z.Open)
			if aerr == nil && berr == nil && !bytes.Equal(a, b) {
				t.Fatalf("member %q: %q, archive/zip %q", m.Name, a, b)
			}
			// A data descriptor repeats the CRC-32 after the data:
			// archive/zip checks that copy too, ours the directory's.
			if aerr == nil && errors.Is(berr, zip.ErrChecksum) && m.flags&0x8 == 0 {
				t.Fatalf("member %q: read whole, archive/zip finds a bad checksum", m.Name)
			}
		}
	})
}

// readMember reads at most 1 MB of a member.
func readMember(open func() (io.ReadCloser, error)) ([]byte, error) {
	rc, err := open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, 1<<20))
}

// storedZip is a zip of one member stored without compression, made on
// MS-DOS (no Unix mode).
func storedZip(t testing.TB, name, body string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(body))
	zw.Close()
	return buf.Bytes()
}

// FuzzURLVars: what URLVars recovers from a URL fills the template back
// into that URL exactly, and a URL made of a template is always matched.
func FuzzURLVars(f *testing.F) {
	f.Add("https://{tenant}.example.com/{path}", "https://a.b.example.com/mcp", "x")
	f.Add("{x}{y}", "ab", "")
	f.Add("https://h/{x}/{x}", "https://h/a/b", "a/")
	f.Add("no variable", "no variable", "v")
	f.Fuzz(func(t *testing.T, template, url, value string) {
		fill := func(vars map[string]string) string {
			return replaceRefs(template, "{", anyName, func(ref string) string {
				if v, ok := vars[ref[1:len(ref)-1]]; ok {
					return v
				}
				return ref
			})
		}
		if vars := URLVars(template, url); vars != nil && fill(vars) != url {
			t.Fatalf("URLVars(%q, %q) = %q, which fills the template into %q", template, url, vars, fill(vars))
		}
		if len(template) > 200 || strings.Contains(template, "\x00") {
			return
		}
		same := map[string]string{}
		replaceRefs(template, "{", anyName, func(ref string) string { same[ref[1:len(ref)-1]] = value; return ref })
		// A match that gave up at its bound of steps (repeated names next
		// to each other over a long value) is not a miss.
		if vars, gaveUp := matchURLVars(template, fill(same)); len(same) > 0 && vars == nil && !gaveUp {
			t.Fatalf("URLVars(%q, %q) did not match the URL made of it", template, fill(same))
		}
	})
}

// TestURLVars: each variable of a remote's URL is recovered, the
// shortest from the left; a URL not made of the template gives nil.
func TestURLVars(t *testing.T) {
	for _, c := range []struct {
		template, url string
		want          map[string]string
	}{
		{"https://{tenant}.example.com/{path}", "https://acme.example.com/v1/mcp", map[string]string{"tenant": "acme", "path": "v1/mcp"}},
		{"https://{tenant}.example.com/mcp", "https://a.b.example.com/mcp", map[string]string{"tenant": "a.b"}},
		{"https://[::1]:8443/{path}?key={key}", "https://[::1]:8443/mcp?key=${KEY}", map[string]string{"path": "mcp", "key": "${KEY}"}},
		{"https://h/{x}/{x}", "https://h/a/a", map[string]string{"x": "a"}},
		{"https://h/{x}/{x}", "https://h/a/b", nil},
		{"https://{tenant}.example.com/mcp", "https://other.example.org/mcp", nil},
		{"https://example.com/mcp", "https://example.com/mcp", nil},
		{"https://{a}{b}/mcp", "https://xy/mcp", map[string]string{"a": "", "b": "xy"}},
	} {
		got := URLVars(c.template, c.url)
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("URLVars(%q, %q) = %q, want %q", c.template, c.url, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("URLVars(%q, %q) = %q, want %q", c.template, c.url, got, c.want)
			}
		}
	}
}

// FuzzBoundVars reads arbitrary "vars" members of a provenance: no
// panic, and what is read, written again through Map and ProvenanceOf,
// reads back the same.
func FuzzBoundVars(f *testing.F) {
	f.Add("root=%2Fsrv&tag=a&tag=b")
	f.Add("a=%zz&;b&=c&d=")
	f.Fuzz(func(t *testing.T, vars string) {
		got := Provenance{Name: "a/b", Version: "1", Vars: vars}.BoundVars()
		again := Provenance{Name: "a/b", Version: "1", Vars: url.Values(got).Encode()}
		back, ok := ProvenanceOf(again.Map())
		if !ok {
			t.Fatal("the provenance does not read back")
		}
		if b := back.BoundVars(); len(b) != len(got) || url.Values(b).Encode() != url.Values(got).Encode() {
			t.Fatalf("%q: read %v, then %v", vars, got, b)
		}
	})
}
