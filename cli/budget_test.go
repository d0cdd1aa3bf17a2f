package cli_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestBudgetEverything: budget on server-everything counts every tool,
// the costliest first, estimates 4 bytes a token, and a --max-tokens
// proposal fits with the instructions.
func TestBudgetEverything(t *testing.T) {
	proctest.Check(t)
	cmd := peers.Everything(t)
	r := newRunner(t)
	var rep struct {
		Bytes, Tokens, InstructionsBytes, MaxTokens int
		Tools                                       []struct {
			Name          string
			Bytes, Tokens int
		}
		EnabledTools []string
	}
	res := r.run(t, append([]string{"budget", "--json", "--max-tokens", "600", "--"}, cmd...)...).want(t, 0)
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	sum := rep.InstructionsBytes
	size := map[string]int{}
	for i, tool := range rep.Tools {
		sum += tool.Bytes
		size[tool.Name] = tool.Bytes
		if i > 0 && tool.Bytes > rep.Tools[i-1].Bytes {
			t.Errorf("tools not by cost: %s after %s", tool.Name, rep.Tools[i-1].Name)
		}
		if tool.Tokens != (tool.Bytes+3)/4 {
			t.Errorf("%s: %d bytes, %d tokens", tool.Name, tool.Bytes, tool.Tokens)
		}
	}
	if len(rep.Tools) < 10 || sum != rep.Bytes || rep.Tokens != (rep.Bytes+3)/4 {
		t.Errorf("%d tools, bytes %d (sum %d), tokens %d", len(rep.Tools), rep.Bytes, sum, rep.Tokens)
	}
	used := rep.InstructionsBytes
	for _, n := range rep.EnabledTools {
		used += size[n]
	}
	if len(rep.EnabledTools) == 0 || (used+3)/4 > 600 || len(rep.EnabledTools) == len(rep.Tools) {
		t.Errorf("the proposal %v (%d bytes) does not fit 600 tokens, or leaves nothing out", rep.EnabledTools, used)
	}
	t.Logf("server-everything: %d tools, %d bytes, about %d tokens; within 600: %v", len(rep.Tools), rep.Bytes, rep.Tokens, rep.EnabledTools)
}

// TestBudgetFromRecording: with --from, the tools a recording called
// come first: a budget that fits one tool keeps the one that was called,
// not the smallest.
func TestBudgetFromRecording(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "call", "--demo", "--record", "rec.jsonl", "add", "a=1", "b=2").want(t, 0)
	var rep struct {
		InstructionsBytes int
		Tools             []struct {
			Name   string
			Tokens int
		}
		EnabledTools []string
	}
	res := r.run(t, "budget", "--demo", "--json").want(t, 0)
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	addTokens := 0
	for _, tool := range rep.Tools {
		if tool.Name == "add" {
			addTokens = tool.Tokens
		}
	}
	limit := (rep.InstructionsBytes+3)/4 + addTokens + 1
	res = r.run(t, "budget", "--demo", "--json", "--from", "rec.jsonl", "--max-tokens", strconv.Itoa(limit)).want(t, 0)
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.EnabledTools, "add") {
		t.Errorf("within %d tokens, the recorded tool add was not kept: %v", limit, rep.EnabledTools)
	}
	r.run(t, "budget", "--demo", "--from", "nosuch.jsonl", "--max-tokens", "10").want(t, 2)
}
