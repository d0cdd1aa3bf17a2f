package registry

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanOCIPinsTheDigest: an image named by digest is run by it and
// recorded as the artifact's digest, with no warning; by tag it warns.
func TestPlanOCIPinsTheDigest(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	doc := `{"name":"io.github.x/o","description":"d","version":"1.0.0","packages":[
	 {"registryType":"oci","identifier":"ghcr.io/x/o@` + digest + `","transport":{"type":"stdio"}}]}`
	p, err := MakePlan(mustEntry(t, doc, "active"), "u", Options{Choice: Choice{Package: PackageOCI}})
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(p.Entry["args"].([]string), " ")
	if p.Entry["command"] != "docker" || args != "run -i --rm ghcr.io/x/o@"+digest {
		t.Fatalf("command %v args %q", p.Entry["command"], args)
	}
	if p.Provenance.Digest != digest || p.Provenance.Artifact != "oci:ghcr.io/x/o@"+digest || len(p.Warnings) != 0 {
		t.Fatalf("provenance %+v warnings %v", p.Provenance, p.Warnings)
	}
}

// TestBundleBounds: a bundle that unpacks to more than its bound (a zip
// bomb: 4 MiB of zeros in a few KiB, against a bound of 1 MiB here, of
// MaxBundleUnpacked by default), or holds more than MaxBundleFiles
// members, is refused, and nothing of it stays under the store.
func TestBundleBounds(t *testing.T) {
	bomb := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("manifest.json")
		w.Write([]byte(manifest))
		w, _ = zw.CreateHeader(&zip.FileHeader{Name: "zeros", Method: zip.Deflate})
		w.Write(make([]byte, 4<<20))
		zw.Close()
		return buf.Bytes()
	}()
	many := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, _ := zw.Create("manifest.json")
		w.Write([]byte(manifest))
		for i := 0; i < MaxBundleFiles; i++ {
			zw.Create(fmt.Sprintf("f/%d", i))
		}
		zw.Close()
		return buf.Bytes()
	}()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/bomb.mcpb":
			w.Write(bomb)
		case "/many.mcpb":
			w.Write(many)
		}
	}))
	defer srv.Close()
	b := &Bundles{Dir: filepath.Join(t.TempDir(), "bundles"), HTTP: srv.Client(), MaxUnpacked: 1 << 20}
	for _, c := range []struct {
		path string
		data []byte
		want string
	}{{"/bomb.mcpb", bomb, "unpacks to more than 1048576 bytes"}, {"/many.mcpb", many, "more than 10000 members"}} {
		if _, _, err := b.Fetch(context.Background(), srv.URL+c.path, sum(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	left, _ := os.ReadDir(b.Dir)
	if len(left) != 0 {
		t.Errorf("a refused bundle left %d entries under the store", len(left))
	}
}
