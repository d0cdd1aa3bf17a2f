package manager

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

var qualifiedRE = regexp.MustCompile(`^mcp__[A-Za-z0-9_-]+$`)

// checkQualified checks the rules of a qualified name: the alphabet, 64
// bytes, and mcp__<server>__<tool> with no "__" inside either component
// and the server part not ending in "_".
func checkQualified(t testing.TB, name string) {
	t.Helper()
	if !qualifiedRE.MatchString(name) || len(name) > MaxToolNameLen {
		t.Errorf("bad qualified name %q (%d bytes)", name, len(name))
		return
	}
	rest := name[len("mcp__"):]
	i := strings.Index(rest, "__")
	if i <= 0 {
		t.Errorf("qualified name %q has no server part", name)
		return
	}
	server, tool := rest[:i], rest[i+2:]
	if strings.HasSuffix(server, "_") || tool == "" || strings.Contains(tool, "__") {
		t.Errorf("qualified name %q: server part %q, tool part %q", name, server, tool)
	}
}

func TestQualify(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		server, tool, want string
	}{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"fs", "read-file", "mcp__fs__read-file"},
		{"my.server", "echo", "mcp__my_server__echo_eabbb408"},
		{"trailing_", "echo", "mcp__trailing__echo_edf5793c"},
		{"a__b", "tool", "mcp__a_b__tool_45ab2eb6"},
		{"srv", "do__it", "mcp__srv__do_it_a2585513"},
		{"srv", "with space", "mcp__srv__with_space_6ed1b60e"},
		{"srv", "café ☕", "mcp__srv__caf_7180efee"},
		{"srv", "", "mcp__srv__tool_c76ba3da"},
		{"srv", "___", "mcp__srv__t_8c7794e1"},
		{"", "x", "mcp__server__x_0561374e"},
		{"srv", long, "mcp__srv__" + strings.Repeat("a", 45) + "_fd978388"},
		{long, "t", "mcp__" + strings.Repeat("a", 47) + "__t_39d34f28"},
		{long, long, "mcp__" + strings.Repeat("a", 16) + "__" + strings.Repeat("a", 32) + "_05488761"},
	}
	for _, tt := range tests {
		got := qualify(tt.server, tt.tool)
		if got != tt.want {
			t.Errorf("qualify(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
		checkQualified(t, got)
	}
}

func TestQualifyAllCollisions(t *testing.T) {
	// "a b" and "a.b" sanitize alike; a valid name equal to another's
	// hashed name comes second and is renamed too.
	hashed := qualify("s", "x y")
	natural := strings.TrimPrefix(hashed, "mcp__s__")
	pairs := [][2]string{{"s", "a b"}, {"s", "a.b"}, {"s", "a_b"}, {"s", "x y"}, {"s", natural},
		{"s.1", "t"}, {"s_1", "t"}, {"s 1", "t"}}
	names := qualifyAll(pairs)
	seen := map[string]int{}
	for i, n := range names {
		checkQualified(t, n)
		if j, dup := seen[n]; dup {
			t.Errorf("pairs %v and %v both named %q", pairs[j], pairs[i], n)
		}
		seen[n] = i
	}
	if names[2] != "mcp__s__a_b" || names[3] != hashed || names[6] != "mcp__s_1__t" {
		t.Errorf("valid or first names were renamed: %v", names)
	}
	if names[4] == hashed || !strings.HasPrefix(names[4], "mcp__s__") {
		t.Errorf("colliding valid name = %q", names[4])
	}
	// Stable: the same input gives the same names.
	for range 3 {
		again := qualifyAll(pairs)
		for i := range names {
			if again[i] != names[i] {
				t.Fatalf("names differ between runs: %q then %q", names[i], again[i])
			}
		}
	}
}

// TestQualifyProperties checks the rules on many generated names, and
// that distinct pairs get distinct names.
func TestQualifyProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "0", "_", "__", "-", ".", " ", "é", "☕", "\x00", "/", "mcp"}
	gen := func() string {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		if r.IntN(10) == 0 {
			b.WriteString(strings.Repeat("x", r.IntN(100)))
		}
		return b.String()
	}
	var pairs [][2]string
	seenPair := map[[2]string]bool{}
	for range 3000 {
		p := [2]string{gen(), gen()}
		if !seenPair[p] {
			seenPair[p] = true
			pairs = append(pairs, p)
		}
	}
	names := qualifyAll(pairs)
	seen := map[string]bool{}
	for i, n := range names {
		checkQualified(t, n)
		if seen[n] {
			t.Fatalf("%q given twice", n)
		}
		seen[n] = true
		if q := qualify(pairs[i][0], pairs[i][1]); q != qualify(pairs[i][0], pairs[i][1]) {
			t.Fatalf("qualify is not stable for %q", pairs[i])
		}
	}
}

func FuzzQualify(f *testing.F) {
	for _, s := range [][2]string{{"github", "create_issue"}, {"my.server", "a b"}, {"trailing_", "__x__"},
		{"", ""}, {strings.Repeat("s", 80), strings.Repeat("t", 80)}, {"é", "☕"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, server, tool string) {
		n := qualify(server, tool)
		checkQualified(t, n)
		if n != qualify(server, tool) {
			t.Fatalf("unstable: %q", n)
		}
		names := qualifyAll([][2]string{{server, tool}, {server, tool + "x"}, {server + "_", tool}})
		if names[0] == names[1] || names[0] == names[2] || names[1] == names[2] {
			t.Fatalf("collision among %v", names)
		}
		for _, n := range names {
			checkQualified(t, n)
		}
	})
}
