package manager

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// A listing writes the home's list cache (0600); a Manager with
// CachedTools offers those tools at once, before the server connects
// (Tool.Cached), a call of one waits for the server, and a call of a
// cached tool the server no longer offers fails cleanly, naming it.
// Without the option, under other client capabilities, or asking another
// revision, nothing cached is offered.
func TestCachedTools(t *testing.T) {
	proctest.Check(t)
	slow := demoServer{name: "slow", args: []string{"--start-delay", "1s"}}
	m, home := newManager(t, Options{}, slow)
	first := mustTools(t, m)
	m.Close()
	path := filepath.Join(home, ListCacheFile)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("list cache: %v %v", fi, err)
	}
	// A ghost tool in the cache: the server does not offer it.
	var f listCacheFile
	data, _ := safe.ReadFile(path, safe.KindCache)
	if err := json.Unmarshal(data, &f); err != nil || len(f.Servers) != 1 {
		t.Fatalf("cache file: %v %s", err, data)
	}
	for _, e := range f.Servers {
		e.Tools = append(e.Tools, &protocol.Tool{Name: "ghost", InputSchema: json.RawMessage(`{"type":"object"}`)})
	}
	data, _ = json.Marshal(&f)
	if err := safe.WritePrivate(path, data); err != nil {
		t.Fatal(err)
	}

	cfg := loadConfig(t, home)
	m2, err := New(Options{Config: cfg, Home: openHome(t, home), TrustAll: true, CachedTools: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close()
	tools, err := m2.Tools(context.Background())
	if err != nil || len(tools) != len(first)+1 || !tools[0].Cached {
		t.Fatalf("cached Tools: %d tools (want %d), %v", len(tools), len(first)+1, err)
	}
	if st := state(t, m2, "slow"); st.State == StateConnected {
		t.Fatalf("connected already: the test shows nothing")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := m2.Call(ctx, toolNamed(t, tools, "slow", "echo"), map[string]any{"text": "hi"})
	if err != nil || res.Text() != "hi" {
		t.Fatalf("call of a cached tool: %+v %v", res, err)
	}
	_, err = m2.Call(ctx, toolNamed(t, tools, "slow", "ghost"), nil)
	if err == nil || !strings.Contains(err.Error(), `no longer offers the tool "ghost"`) {
		t.Fatalf("call of a gone tool: %v", err)
	}
	if st := state(t, m2, "slow"); st.State != StateConnected {
		t.Errorf("after a gone tool: %s", st.State)
	}
	tools, _ = m2.Tools(ctx)
	for _, tl := range tools {
		if tl.Cached || tl.Original == "ghost" {
			t.Errorf("after connecting: %+v", tl)
		}
	}

	// Off by default.
	m3, err := New(Options{Config: cfg, Home: openHome(t, home), TrustAll: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m3.Close()
	if tools, _ := m3.Tools(context.Background()); len(tools) != 0 {
		t.Errorf("without CachedTools: %d tools at once", len(tools))
	}
	// Another revision asked (a pin by Options, or by the definition):
	// not served, as a list taken under 2026-07-28 need not be the one a
	// 2025-11-25 session gets.
	m5, err := New(Options{Config: cfg, Home: openHome(t, home), TrustAll: true, CachedTools: true, ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer m5.Close()
	if tools, _ := m5.Tools(context.Background()); len(tools) != 0 {
		t.Errorf("pinned to another revision: %d cached tools", len(tools))
	}
	if lists := m5.CachedLists(); len(lists) != 1 || lists[0] != nil {
		t.Errorf("CachedLists pinned to another revision: %+v", lists)
	}
	// Other capabilities (roots offered): not served.
	m4, err := New(Options{Config: cfg, Home: openHome(t, home), TrustAll: true, CachedTools: true, Roots: []string{home}})
	if err != nil {
		t.Fatal(err)
	}
	defer m4.Close()
	if tools, _ := m4.Tools(context.Background()); len(tools) != 0 {
		t.Errorf("other capabilities: %d cached tools", len(tools))
	}
}

// A private tool list (cacheScope "private", as any list without a
// scope) is served from the list cache only under the auth context it
// was listed under: after the header value the definition sends changes
// (a ${TOKEN} of another user), the private entry is not served, by
// CachedLists (list --cached) nor as cached tools, while a public one
// still is. The cache file holds no header value, only a keyed digest.
func TestCachedPrivateListKeyedByAuth(t *testing.T) {
	priv := httptest.NewServer(demo.NewHTTPHandler(demo.Options{ListCache: "private"}))
	defer priv.Close()
	pub := httptest.NewServer(demo.NewHTTPHandler(demo.Options{}))
	defer pub.Close()
	home := t.TempDir()
	write := func(token string) *config.Config {
		writeFile(t, home, `{"mcpServers": {
			"priv": {"url": "`+priv.URL+`/mcp", "headers": {"X-Token": "`+token+`"}},
			"pub": {"url": "`+pub.URL+`/mcp", "headers": {"X-Token": "`+token+`"}}}}`)
		return loadConfig(t, home)
	}
	const secret = "alpha-secret-8271"
	cfg := write(secret)
	m, err := New(Options{Config: cfg, Home: openHome(t, home), TrustAll: true, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	mustTools(t, m)
	m.Close()
	data, err := safe.ReadFile(filepath.Join(home, ListCacheFile), safe.KindCache)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) {
		t.Fatalf("the cache file holds the header's value: %s", data)
	}
	cached := func(cfg *config.Config) (lists []*CachedList, privCached int) {
		m, err := New(Options{Config: cfg, Home: openHome(t, home), TrustAll: true, CachedTools: true, StartupTimeout: 20 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		tools, _ := m.Tools(context.Background())
		for _, tl := range tools {
			if tl.Server == "priv" && tl.Cached {
				privCached++
			}
		}
		return m.CachedLists(), privCached
	}
	lists, _ := cached(cfg)
	if len(lists) != 2 || lists[0] == nil || lists[1] == nil || lists[0].Scope != "private" || lists[0].Auth == "" || lists[1].Scope != "public" {
		t.Fatalf("same credentials: %+v", lists)
	}
	lists, n := cached(write("beta-secret-5519"))
	if lists[0] != nil || n != 0 {
		t.Errorf("another header value: the private list is served (%+v, %d cached tools)", lists[0], n)
	}
	if lists[1] == nil {
		t.Errorf("another header value: the public list is not served")
	}
}
