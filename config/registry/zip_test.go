package registry

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

// TestZipReader reads archives that archive/zip wrote (deflated and
// stored members, a directory, an executable, a symbolic link, an
// archive comment) as archive/zip reads them, and refuses a member whose
// bytes were changed.
func TestZipReader(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, mode os.FileMode, method uint16, body string) {
		h := &zip.FileHeader{Name: name, Method: method}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	add("manifest.json", 0o644, zip.Deflate, manifest)
	add("bin/", os.ModeDir|0o755, zip.Store, "")
	add("bin/run", 0o755, zip.Store, "#!/bin/sh\necho hi\n")
	add("lib/big.js", 0o644, zip.Deflate, strings.Repeat("console.log(1);\n", 5000))
	add("out", os.ModeSymlink|0o777, zip.Store, "/etc/passwd")
	zw.SetComment("made by a test")
	zw.Close()
	data := buf.Bytes()
	ours, err := readZip(data)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ours) != len(theirs.File) {
		t.Fatalf("%d members, want %d", len(ours), len(theirs.File))
	}
	for i, m := range ours {
		z := theirs.File[i]
		a, aerr := readMember(m.Open)
		b, berr := readMember(z.Open)
		if m.Name != z.Name || m.Mode() != z.Mode() || aerr != nil || berr != nil || !bytes.Equal(a, b) {
			t.Errorf("%q %v (%v), archive/zip %q %v (%v)", m.Name, m.Mode(), aerr, z.Name, z.Mode(), berr)
		}
	}
	// One byte of bin/run's stored content changed: its CRC-32 fails.
	bad := bytes.Clone(data)
	i := bytes.Index(bad, []byte("echo hi"))
	bad[i] = 'E'
	files, err := readZip(bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readMember(files[2].Open); err == nil || !strings.Contains(err.Error(), "CRC-32") {
		t.Errorf("a changed member read: %v", err)
	}
	for _, junk := range [][]byte{nil, []byte("PK"), data[:len(data)-30], bytes.Repeat([]byte{0}, 100)} {
		if _, err := readZip(junk); err == nil {
			t.Errorf("%d bytes of junk read as a zip", len(junk))
		}
	}
}
