package cli_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// A budgetDoc is what the tests read of `budget --json`.
type budgetDoc struct {
	Estimate      string
	Bytes, Tokens int
	MaxTokens     int
	Failed        int
	Servers       []*budgetServerDoc
}

type budgetServerDoc struct {
	Server                           string
	Bytes, Tokens, InstructionsBytes int
	Tools                            []struct {
		Name          string
		Bytes, Tokens int
	}
	EnabledTools []string
	Error        *struct {
		Server, Phase, Code, Message string
		Hints                        []string
	}
}

func readBudget(t *testing.T, res *result) *budgetDoc {
	t.Helper()
	var d budgetDoc
	if err := json.Unmarshal([]byte(res.stdout), &d); err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	return &d
}

// size is the bytes of each tool of a server.
func (s *budgetServerDoc) size() map[string]int {
	m := map[string]int{}
	for _, tool := range s.Tools {
		m[tool.Name] = tool.Bytes
	}
	return m
}

// TestBudgetEverything: budget on server-everything counts every tool,
// the costliest first, estimates 4 bytes a token, and a --max-tokens
// proposal fits with the instructions.
func TestBudgetEverything(t *testing.T) {
	proctest.Check(t)
	cmd := peers.Everything(t)
	r := newRunner(t)
	res := r.run(t, append([]string{"budget", "--json", "--max-tokens", "600", "--"}, cmd...)...).want(t, 0)
	d := readBudget(t, res)
	if len(d.Servers) != 1 {
		t.Fatalf("%d servers:\n%s", len(d.Servers), res)
	}
	s := d.Servers[0]
	sum := s.InstructionsBytes
	for i, tool := range s.Tools {
		sum += tool.Bytes
		if i > 0 && tool.Bytes > s.Tools[i-1].Bytes {
			t.Errorf("tools not by cost: %s after %s", tool.Name, s.Tools[i-1].Name)
		}
		if tool.Tokens != (tool.Bytes+3)/4 {
			t.Errorf("%s: %d bytes, %d tokens", tool.Name, tool.Bytes, tool.Tokens)
		}
	}
	if len(s.Tools) < 10 || sum != s.Bytes || s.Tokens != (s.Bytes+3)/4 || d.Bytes != s.Bytes || d.Tokens != s.Tokens {
		t.Errorf("%d tools, bytes %d (sum %d), tokens %d; total %d bytes, %d tokens", len(s.Tools), s.Bytes, sum, s.Tokens, d.Bytes, d.Tokens)
	}
	used, size := s.InstructionsBytes, s.size()
	for _, n := range s.EnabledTools {
		used += size[n]
	}
	if len(s.EnabledTools) == 0 || (used+3)/4 > 600 || len(s.EnabledTools) == len(s.Tools) {
		t.Errorf("the proposal %v (%d bytes) does not fit 600 tokens, or leaves nothing out", s.EnabledTools, used)
	}
	t.Logf("server-everything: %d tools, %d bytes, about %d tokens; within 600: %v", len(s.Tools), s.Bytes, s.Tokens, s.EnabledTools)
}

// TestBudgetSeveral: several targets (a configured name, --demo, a
// command) give one row each in the order given and a total that is
// their sum; --max-tokens fits all of them together; with no TARGET,
// every enabled configured server is measured.
func TestBudgetSeveral(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "add", "mine", "--", r.bin, "serve-demo", "--next-release").want(t, 0)
	d := readBudget(t, r.run(t, "budget", "mine", "--demo", "--json", "--", r.bin, "serve-demo").want(t, 0))
	var names []string
	sum := 0
	for _, s := range d.Servers {
		names = append(names, s.Server)
		sum += s.Bytes
	}
	if strings.Join(names, ",") != "mine,demo,"+strings.TrimSuffix(filepathBase(r.bin), ".exe") || d.Bytes != sum || d.Tokens != (sum+3)/4 {
		t.Fatalf("servers %v, total %d bytes (sum %d), %d tokens", names, d.Bytes, sum, d.Tokens)
	}
	limit := (d.Servers[0].InstructionsBytes+d.Servers[1].InstructionsBytes+3)/4 + 200
	d = readBudget(t, r.run(t, "budget", "mine", "--demo", "--json", "--max-tokens", strconv.Itoa(limit)).want(t, 0))
	used, kept := 0, 0
	for _, s := range d.Servers {
		used += s.InstructionsBytes
		size := s.size()
		for _, n := range s.EnabledTools {
			used += size[n]
			kept++
		}
	}
	if kept == 0 || (used+3)/4 > limit {
		t.Errorf("within %d tokens together: %d tools kept, %d bytes", limit, kept, used)
	}
	res := r.run(t, "budget", "mine", "--demo", "--max-tokens", strconv.Itoa(limit)).want(t, 0)
	for _, want := range []string{"mine: ", "demo: ", "total: ", "costliest tools:", "mine: env", "within " + strconv.Itoa(limit) + " tokens:"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no %q:\n%s", want, res)
		}
	}
	d = readBudget(t, r.run(t, "budget", "--json").want(t, 0))
	if len(d.Servers) != 1 || d.Servers[0].Server != "mine" {
		t.Errorf("with no TARGET: %+v", d.Servers)
	}
}

// filepathBase is the last element of a slash or backslash path.
func filepathBase(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// TestBudgetFromRecording: with --from, the tools a recording called
// come first: a budget that fits one tool keeps the one that was called,
// not the smallest.
func TestBudgetFromRecording(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "add", "a=1", "b=2").want(t, 0)
	d := readBudget(t, r.run(t, "budget", "--demo", "--json").want(t, 0))
	s := d.Servers[0]
	limit := (s.InstructionsBytes+3)/4 + (s.size()["add"]+3)/4 + 1
	d = readBudget(t, r.run(t, "budget", "--demo", "--json", "--from", "rec.jsonl", "--max-tokens", strconv.Itoa(limit)).want(t, 0))
	if !slices.Contains(d.Servers[0].EnabledTools, "add") {
		t.Errorf("within %d tokens, the recorded tool add was not kept: %v", limit, d.Servers[0].EnabledTools)
	}
	r.run(t, "budget", "--demo", "--from", "nosuch.jsonl", "--max-tokens", "10").want(t, 2)
}

// TestBudgetPartial: servers that do not answer are rows with their
// error (server, phase, a hint) among those that did; the totals are
// over the ones that answered; the exit is non-zero after the whole
// table: 1 when one failed, else 3 for one not approved. With no
// TARGET, an unapproved project server no longer stops the rest.
func TestBudgetPartial(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "add", "mine", "--", r.bin, "serve-demo").want(t, 0)
	r.run(t, "add", "broken", "--", filepath.Join(r.dir, "no-such-server")).want(t, 0)
	writeJSON(t, filepath.Join(r.dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"proj": map[string]any{"command": r.bin, "args": []string{"serve-demo"}}}})
	alone := readBudget(t, r.run(t, "budget", "mine", "--json").want(t, 0))
	res := r.run(t, "budget", "--json", "--max-tokens", "300").want(t, 1)
	d := readBudget(t, res)
	rows := map[string]*budgetServerDoc{}
	for _, s := range d.Servers {
		rows[s.Server] = s
	}
	if len(d.Servers) != 3 || d.Failed != 2 || rows["mine"] == nil || rows["mine"].Error != nil {
		t.Fatalf("want mine, broken and proj, two failed:\n%s", res)
	}
	if d.Bytes != alone.Bytes || d.Tokens != alone.Tokens || len(rows["mine"].EnabledTools) == 0 {
		t.Errorf("total %d bytes, %d tokens; mine alone %d, %d; proposal %v", d.Bytes, d.Tokens, alone.Bytes, alone.Tokens, rows["mine"].EnabledTools)
	}
	for name, phase := range map[string]string{"broken": "spawn", "proj": "approval"} {
		s := rows[name]
		if s == nil || s.Error == nil || s.Error.Server != name || s.Error.Phase != phase || len(s.Error.Hints) == 0 || s.Bytes != 0 || len(s.Tools) != 0 {
			t.Errorf("%s: want a %s error with a hint and nothing counted: %+v", name, phase, s)
		}
	}
	if !strings.Contains(res.stdout, `"ok": false`) {
		t.Errorf("ok is not false:\n%s", res)
	}
	res = r.run(t, "budget").want(t, 1)
	for _, want := range []string{"mine: " + strconv.Itoa(alone.Bytes) + " bytes", "broken: not measured at spawn: ", "proj: not measured at approval: ", "  hint: ", "of the 1 of 3 servers that answered", "costliest tools:"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("no %q:\n%s", want, res)
		}
	}
	if !strings.Contains(res.stderr, "2 servers of 3 did not answer") {
		t.Errorf("stderr does not say what failed:\n%s", res)
	}
	if res = r.run(t, "budget", "mine", "--top", "0").want(t, 0); strings.Contains(res.stdout, "more") || strings.Contains(res.stdout, "costliest") {
		t.Errorf("--top 0 lists tools:\n%s", res)
	}
	d = readBudget(t, r.run(t, "budget", "mine", "proj", "--json").want(t, 3))
	if d.Failed != 1 || d.Servers[1].Error == nil || d.Servers[1].Error.Code != "needs_approval" {
		t.Errorf("an unapproved server alone: %+v", d.Servers)
	}
}
