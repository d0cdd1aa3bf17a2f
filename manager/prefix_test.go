package manager

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestPrefixAndReserved: a definition's "prefix" replaces mcp__<server>
// in offered names (64 bytes at most, a hash suffix when cut); a tool
// whose offered name is one of Options.Reserved is not offered nor
// callable by it, and the state says so.
func TestPrefixAndReserved(t *testing.T) {
	proctest.Check(t)
	var logs []string
	m, _ := newManager(t, Options{Reserved: []string{"gh__add"}, Logf: func(f string, a ...any) { logs = append(logs, f) }},
		demoServer{name: "s", args: []string{"--tools", "1"}, extra: map[string]any{"prefix": "gh"}},
		demoServer{name: "plain"})
	tools := mustTools(t, m)
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if !slices.Contains(names, "gh__echo") || !slices.Contains(names, "gh__tool-0001") || !slices.Contains(names, "mcp__plain__echo") {
		t.Fatalf("names: %v", names)
	}
	if slices.Contains(names, "gh__add") || !slices.Contains(names, "mcp__plain__add") {
		t.Fatalf("a reserved name offered, or another server's add withdrawn: %v", names)
	}
	if st := state(t, m, "s"); !slices.Equal(st.Reserved, []string{"add"}) {
		t.Fatalf("state Reserved %v", st.Reserved)
	}
	if _, err := m.Call(context.Background(), "gh__add", map[string]any{"a": 1, "b": 2}); err == nil || !strings.Contains(err.Error(), "no tool") {
		t.Fatalf("call of a reserved name: %v", err)
	}
	res, err := m.Call(context.Background(), "gh__echo", map[string]any{"text": "hi"})
	if err != nil || res.Text() != "hi" {
		t.Fatalf("gh__echo: %v %v", err, res)
	}
	if long := qualifyPrefixed("gh", "s", strings.Repeat("x", 80)); len(long) != MaxToolNameLen || !strings.HasPrefix(long, "gh__xxx") {
		t.Fatalf("a long name: %q (%d bytes)", long, len(long))
	}
	if got := qualifyFrom([][2]string{{"a", "t"}, {"b", "t"}}, nil, []string{"p", "p"}); got[0] != "p__t" || got[1] == got[0] || !strings.HasPrefix(got[1], "p__t_") {
		t.Fatalf("two servers with one prefix: %v", got)
	}
}

// TestPrefixDigest: the prefix is covered by the approval digest.
func TestPrefixDigest(t *testing.T) {
	a := &config.Server{Name: "s", Source: "/x/.mcp.json", Type: config.TypeStdio, Command: "c", Raw: []byte(`{"command":"c"}`)}
	b := *a
	b.Raw = []byte(`{"command":"c","prefix":"gh"}`)
	key := make([]byte, 32)
	if config.Digest(key, a) == config.Digest(key, &b) {
		t.Fatal("a prefix added keeps the digest")
	}
}
