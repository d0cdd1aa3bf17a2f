package cli_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestRegistryThroughProxy: the registry is reached through HTTPS_PROXY
// (a CONNECT to its host; no name is looked up here), and a host in
// NO_PROXY goes around it.
func TestRegistryThroughProxy(t *testing.T) {
	var mu sync.Mutex
	var connects []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		connects = append(connects, r.Method+" "+r.Host)
		mu.Unlock()
		http.Error(w, "no tunnel here", http.StatusBadGateway)
	}))
	defer proxy.Close()
	r := newRunner(t)
	r.env = append(r.env, "HTTPS_PROXY="+proxy.URL, "NO_PROXY=localhost")
	res := r.run(t, "search", "x", "--registry", "https://registry.example")
	if res.code == 0 {
		t.Fatalf("a search through a proxy that refuses: exit 0\n%s", res)
	}
	res = r.run(t, "search", "x", "--registry", "https://localhost:1")
	mu.Lock()
	defer mu.Unlock()
	if len(connects) != 1 || connects[0] != "CONNECT registry.example:443" {
		t.Fatalf("the proxy saw %q, want one CONNECT registry.example:443\n%s", connects, res)
	}
	if !strings.Contains(res.stderr, "localhost:1") {
		t.Errorf("the bypassed host's failure does not name it:\n%s", res)
	}
}
