package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// bytesPerToken is the estimate of budget: one token for every 4 bytes,
// the usual rule of thumb for English text and JSON under the BPE
// tokenizers of today's models. It is an estimate, not a count: a real
// tokenizer may differ by a fifth either way.
const bytesPerToken = 4

// budgetTool is what one tool costs in a model's context.
type budgetTool struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
}

// budgetReport is `mcpwire budget --json`.
type budgetReport struct {
	docHeader
	Server string `json:"server"`
	// Estimate says how tokens are estimated.
	Estimate          string       `json:"estimate"`
	Bytes             int          `json:"bytes"`
	Tokens            int          `json:"tokens"`
	InstructionsBytes int          `json:"instructionsBytes"`
	Tools             []budgetTool `json:"tools"` // by cost, most first
	// MaxTokens is --max-tokens (0: none); EnabledTools the tools
	// proposed for the server's enabledTools, smallest first, that fit in
	// it with the instructions; null without --max-tokens.
	MaxTokens    int      `json:"maxTokens"`
	EnabledTools []string `json:"enabledTools"`
}

// tokensOf estimates the tokens of n bytes, rounding up.
func tokensOf(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// toolBytes is what a tool puts in a model's context: its name, title,
// description and schemas, as JSON.
func toolBytes(t *protocol.Tool) int {
	return len(t.Name) + len(t.Title) + len(t.Description) + len(t.InputSchema) + len(t.OutputSchema)
}

func runBudget(ctx context.Context, inv *invocation, args []string) error {
	maxTokens := 0
	top := 10
	var from string
	r, err := inv.openSession(ctx, "budget", args, func(fs *flagSetT) {
		fs.IntVar(&maxTokens, "max-tokens", 0, "propose an enabledTools list whose tools and instructions fit in `N` estimated tokens")
		fs.IntVar(&top, "top", 10, "show the `N` costliest tools")
		fs.StringVar(&from, "from", "", "with --max-tokens, keep the tools a recording (`FILE` of --record) called most, first")
	}, noMoreArgs)
	if err != nil {
		return err
	}
	inv.atExit(r.close)
	if maxTokens < 0 || top < 0 {
		return usageErr("--max-tokens and --top take a number of 0 or more")
	}
	tools, err := r.conn.ListTools(ctx)
	if err != nil && r.conn.Init().Capabilities.Tools != nil {
		return inv.serverFailure(r.t, err)
	}
	rep := &budgetReport{docHeader: inv.header(true), Server: r.t.spec.Name, Tools: []budgetTool{}, MaxTokens: maxTokens,
		Estimate: fmt.Sprintf("an estimate: %d bytes a token (names, titles, descriptions and JSON schemas as sent; instructions)", bytesPerToken)}
	rep.InstructionsBytes = len(r.conn.Init().Instructions)
	rep.Bytes = rep.InstructionsBytes
	for _, t := range tools {
		n := toolBytes(t)
		rep.Bytes += n
		rep.Tools = append(rep.Tools, budgetTool{Name: t.Name, Bytes: n, Tokens: tokensOf(n)})
	}
	rep.Tokens = tokensOf(rep.Bytes)
	slices.SortStableFunc(rep.Tools, func(a, b budgetTool) int { return b.Bytes - a.Bytes })
	var calls map[string]int
	if from != "" {
		if calls, err = recordedCalls(inv.env.Dir, from); err != nil {
			return err
		}
	}
	if maxTokens > 0 {
		rep.EnabledTools = proposeTools(rep, maxTokens, calls)
	}
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printBudget(rep, top)
	return nil
}

// proposeTools picks the tools that fit in maxTokens with the
// instructions: the most called first when calls counts them (a
// recording's), then the smallest first (the most tools that fit).
func proposeTools(rep *budgetReport, maxTokens int, calls map[string]int) []string {
	bySize := slices.Clone(rep.Tools)
	slices.SortStableFunc(bySize, func(a, b budgetTool) int {
		if d := calls[b.Name] - calls[a.Name]; d != 0 {
			return d
		}
		return a.Bytes - b.Bytes
	})
	used := rep.InstructionsBytes
	out := []string{}
	for _, t := range bySize {
		if tokensOf(used+t.Bytes) > maxTokens {
			continue
		}
		used += t.Bytes
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return out
}

func (inv *invocation) printBudget(rep *budgetReport, top int) {
	inv.printf("%s: %d bytes, about %d tokens (%s)\n", safe.Sanitize(rep.Server), rep.Bytes, rep.Tokens, rep.Estimate)
	inv.printf("  instructions: %d bytes; %s: %d bytes\n", rep.InstructionsBytes, plural(len(rep.Tools), "tool"), rep.Bytes-rep.InstructionsBytes)
	for i, t := range rep.Tools {
		if i == top {
			inv.printf("  … %d more\n", len(rep.Tools)-top)
			break
		}
		inv.printf("  %7d tokens  %s\n", t.Tokens, safe.Sanitize(t.Name))
	}
	if rep.EnabledTools != nil {
		b, _ := json.Marshal(rep.EnabledTools)
		inv.printf("\nwithin %d tokens, %s fit: \"enabledTools\": %s\n", rep.MaxTokens, plural(len(rep.EnabledTools), "tool"), safe.Sanitize(string(b)))
		if len(rep.EnabledTools) < len(rep.Tools) {
			inv.printf("left out: %s\n", safe.Sanitize(strings.Join(leftOut(rep), ", ")))
		}
	}
}

// recordedCalls counts the tools/call requests of a recording by tool.
func recordedCalls(dir, name string) (map[string]int, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := safe.ReadFile(path, safe.KindSnapshot)
	if err != nil {
		return nil, usageErr("--from: reading %s: %v", name, err)
	}
	calls := map[string]int{}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l struct {
			Dir string `json:"dir"`
			Msg struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			} `json:"msg"`
		}
		if err := json.Unmarshal(line, &l); err != nil {
			return nil, usageErr("--from %s:%d: not a line of a recording (mcpwire … --record FILE): %v", name, i+1, err)
		}
		if l.Dir == "send" && l.Msg.Method == "tools/call" && l.Msg.Params.Name != "" {
			calls[l.Msg.Params.Name]++
		}
	}
	return calls, nil
}

// leftOut are the tools the proposal leaves out.
func leftOut(rep *budgetReport) []string {
	var out []string
	for _, t := range rep.Tools {
		if !slices.Contains(rep.EnabledTools, t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}
