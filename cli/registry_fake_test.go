package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// fakeRegistry serves /v0.1 of the MCP Registry's OpenAPI from server.json
// documents (each with its status), for the fast tests; the real registry
// runs in registry_e2e_test.go.
type fakeRegistry struct {
	entries []fakeEntry
}

type fakeEntry struct {
	doc     string // the server.json document
	status  string
	message string
	latest  bool
}

func (f *fakeRegistry) find(name, version string) *fakeEntry {
	for i := range f.entries {
		var s struct{ Name, Version string }
		json.Unmarshal([]byte(f.entries[i].doc), &s)
		if s.Name == name && (s.Version == version || version == "latest" && f.entries[i].latest) {
			return &f.entries[i]
		}
	}
	return nil
}

func (e *fakeEntry) response() string {
	return fmt.Sprintf(`{"server":%s,"_meta":{"io.modelcontextprotocol.registry/official":{"status":%q,"statusMessage":%q,"publishedAt":"2026-11-01T00:00:00Z","isLatest":%v}}}`, e.doc, e.status, e.message, e.latest)
}

func (f *fakeRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/v0.1/servers" {
		var list []string
		for i := range f.entries {
			if e := &f.entries[i]; e.latest && strings.Contains(e.doc, r.URL.Query().Get("search")) {
				list = append(list, e.response())
			}
		}
		fmt.Fprintf(w, `{"servers":[%s],"metadata":{"count":%d}}`, strings.Join(list, ","), len(list))
		return
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), "/v0.1/servers/")
	name, version, ok2 := strings.Cut(rest, "/versions/")
	name, err := url.PathUnescape(name)
	if !ok || !ok2 || err != nil {
		http.NotFound(w, r)
		return
	}
	if e := f.find(name, version); e != nil {
		fmt.Fprint(w, e.response())
		return
	}
	http.Error(w, `{"title":"Not Found","status":404}`, http.StatusNotFound)
}

// newFakeRegistry starts a registry whose entry io.test/demo has versions
// 1.0.0 and 1.1.0 (latest), a remote at mcpURL.
func newFakeRegistry(t *testing.T, mcpURL string) *httptest.Server {
	doc := func(v string) string {
		return fmt.Sprintf(`{"name":"io.test/demo","description":"the demo","version":%q,"remotes":[{"type":"streamable-http","url":%q}]}`, v, mcpURL)
	}
	f := &fakeRegistry{entries: []fakeEntry{
		{doc: doc("1.0.0"), status: "deprecated", message: "use 1.1.0"},
		{doc: doc("1.1.0"), status: "active", latest: true},
	}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}
