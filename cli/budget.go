package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// bytesPerToken is the estimate of budget: one token for every 4 bytes,
// the usual rule of thumb for English text and JSON under the BPE
// tokenizers of today's models. It is an estimate, not a count: a real
// tokenizer may differ by a fifth either way.
const bytesPerToken = 4

// budgetTool is what one tool costs in a model's context.
type budgetTool struct {
	_ [0]func() // not comparable: no equality function in the binary

	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
}

// budgetReport is `mcpwire budget --json`.
type budgetReport struct {
	docHeader
	// Estimate says how tokens are estimated.
	Estimate string `json:"estimate"`
	// Bytes and Tokens are the servers' together.
	Bytes   int             `json:"bytes"`
	Tokens  int             `json:"tokens"`
	Servers []*budgetServer `json:"servers"` // in the order given
	// Failed counts the servers that did not answer (the rows with an
	// error); the totals are over the others.
	Failed int `json:"failed"`
	// MaxTokens is --max-tokens (0: none): the proposal's bound, for all
	// the servers together.
	MaxTokens int `json:"maxTokens"`
}

// budgetServer is what one server costs.
type budgetServer struct {
	Server            string       `json:"server"`
	Bytes             int          `json:"bytes"`
	Tokens            int          `json:"tokens"`
	InstructionsBytes int          `json:"instructionsBytes"`
	Tools             []budgetTool `json:"tools"` // by cost, most first
	// EnabledTools are the tools proposed for the server's enabledTools
	// (sorted); null without --max-tokens.
	EnabledTools []string `json:"enabledTools"`
	// Error is why the server did not answer (its row counts nothing);
	// absent when it answered.
	Error *jsonError `json:"error,omitempty"`
}

// tokensOf estimates the tokens of n bytes, rounding up.
func tokensOf(n int) int { return (n + bytesPerToken - 1) / bytesPerToken }

// toolBytes is what a tool puts in a model's context: its name, title,
// description and schemas, as JSON.
func toolBytes(t *protocol.Tool) int {
	return len(t.Name) + len(t.Title) + len(t.Description) + len(t.InputSchema) + len(t.OutputSchema)
}

func runBudget(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("budget")
	var tf targetFlags
	tf.register(fs)
	maxTokens, top := 0, 10
	var from string
	fs.IntVar(&maxTokens, "max-tokens", 0, "propose enabledTools lists whose tools and instructions fit, all servers together, in `N` estimated tokens")
	fs.IntVar(&top, "top", 10, "show the `N` costliest tools")
	fs.StringVar(&from, "from", "", "with --max-tokens, keep the tools a recording (`FILE` of --record) called most, first")
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	inv.json = tf.json
	if maxTokens < 0 || top < 0 {
		return usageErr("--max-tokens and --top take a number of 0 or more")
	}
	var calls map[string]map[string]int
	if from != "" {
		if calls, err = recordedCalls(inv.env.Dir, from); err != nil {
			return err
		}
	}
	sides, err := inv.budgetTargets(pos, tail, hasTail, tf.demo.mode)
	if err != nil {
		return err
	}
	rep := &budgetReport{docHeader: inv.header(true), Servers: []*budgetServer{}, MaxTokens: maxTokens,
		Estimate: fmt.Sprintf("an estimate: %d bytes a token (names, titles, descriptions and JSON schemas as sent; instructions)", bytesPerToken)}
	for _, sa := range sides {
		stf := tf
		stf.demo = demoFlag{mode: sa.demo}
		bs, err := inv.budgetOf(ctx, &stf, sa)
		if err != nil {
			f := asFailure(ctx, err)
			if f.code == ExitUsage || ctx.Err() != nil {
				return err
			}
			bs = inv.budgetFailed(ctx, sa, f)
			rep.Failed++
			inv.exit = worseExit(inv.exit, f.code)
		}
		rep.Servers = append(rep.Servers, bs)
		rep.Bytes += bs.Bytes
	}
	rep.Tokens = tokensOf(rep.Bytes)
	rep.docHeader = inv.header(rep.Failed == 0)
	if maxTokens > 0 {
		proposeTools(rep, maxTokens, calls)
	}
	if inv.json {
		inv.writeJSON(rep)
		return nil
	}
	inv.printBudget(rep, top)
	return nil
}

// budgetFailed is the row of a server that did not answer: its error,
// and nothing counted. Its name is the failure's server, else the
// target as given.
func (inv *invocation) budgetFailed(ctx context.Context, sa sideArg, f *failure) *budgetServer {
	e := errorOf(ctx, f)
	name := f.server
	switch {
	case name != "":
	case isURL(sa.word):
		name = manager.URLName(sa.word)
	case sa.word != "":
		name = sa.word
	case sa.demo != "":
		name = "demo"
	case len(sa.tail) > 0:
		name = commandName(sa.tail)
	}
	if e.Server == "" {
		e.Server = name
	}
	return &budgetServer{Server: name, Tools: []budgetTool{}, Error: &e}
}

// budgetTargets are the servers to measure, in the order given: the
// words (names, URLs), --demo, the command after --; with none, every
// enabled server of the configuration.
func (inv *invocation) budgetTargets(pos, tail []string, hasTail bool, demo string) ([]sideArg, error) {
	var sides []sideArg
	for _, p := range pos {
		sides = append(sides, sideArg{word: p})
	}
	if demo != "" {
		sides = append(sides, sideArg{demo: demo})
	}
	if hasTail {
		sides = append(sides, sideArg{tail: tail, hasTail: true})
	}
	if len(sides) > 0 {
		return sides, nil
	}
	cfg, _, err := inv.loadConfig()
	if err != nil {
		return nil, err
	}
	for _, s := range cfg.Servers {
		if s.Enabled && s.Err == nil {
			sides = append(sides, sideArg{word: s.Name})
		}
	}
	if len(sides) == 0 {
		return nil, usageErr("no TARGET and no enabled server configured: give server names, URLs, --demo, or -- COMMAND ARGS")
	}
	return sides, nil
}

// budgetOf connects to one server and measures its tools and
// instructions. It declares no elicitation or sampling, on a terminal
// as in a pipe, so that a server offers the same tools to both.
func (inv *invocation) budgetOf(ctx context.Context, tf *targetFlags, sa sideArg) (*budgetServer, error) {
	var words []string
	if sa.word != "" {
		words = []string{sa.word}
	}
	t, _, err := inv.resolveTarget(ctx, tf, words, sa.tail, sa.hasTail)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	conn, err := inv.connect(ctx, t, tf, protocol.Options{})
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	tools, err := conn.ListTools(ctx)
	if err != nil && conn.Init().Capabilities.Tools != nil {
		return nil, inv.serverFailure(t, err)
	}
	bs := &budgetServer{Server: t.spec.Name, Tools: []budgetTool{}, InstructionsBytes: len(conn.Init().Instructions)}
	bs.Bytes = bs.InstructionsBytes
	for _, tool := range tools {
		n := toolBytes(tool)
		bs.Bytes += n
		bs.Tools = append(bs.Tools, budgetTool{Name: tool.Name, Bytes: n, Tokens: tokensOf(n)})
	}
	bs.Tokens = tokensOf(bs.Bytes)
	// sort.SliceStable, not slices.SortStableFunc: a struct type of its
	// own would bring a dozen sort functions of its shape into the binary.
	sort.SliceStable(bs.Tools, func(i, j int) bool { return bs.Tools[i].Bytes > bs.Tools[j].Bytes })
	return bs, nil
}

// proposeTools sets each server's EnabledTools: the tools that fit in
// maxTokens with every server's instructions, all servers together; the
// most called first when calls counts them (a recording's: the calls to
// the server of that name, else to any server), then the smallest first
// (the most tools that fit).
func proposeTools(rep *budgetReport, maxTokens int, calls map[string]map[string]int) {
	type cand struct {
		s     *budgetServer
		t     budgetTool
		calls int
	}
	var all []cand
	used := 0
	for _, s := range rep.Servers {
		used += s.InstructionsBytes
		s.EnabledTools = []string{}
		counts := calls[s.Server]
		if counts == nil {
			counts = calls[""]
		}
		for _, t := range s.Tools {
			all = append(all, cand{s, t, counts[t.Name]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.calls != b.calls {
			return a.calls > b.calls
		}
		return a.t.Bytes < b.t.Bytes
	})
	for _, c := range all {
		if tokensOf(used+c.t.Bytes) > maxTokens {
			continue
		}
		used += c.t.Bytes
		c.s.EnabledTools = append(c.s.EnabledTools, c.t.Name)
	}
	for _, s := range rep.Servers {
		slices.Sort(s.EnabledTools)
	}
}

func (inv *invocation) printBudget(rep *budgetReport, top int) {
	many := len(rep.Servers) > 1
	for _, s := range rep.Servers {
		if e := s.Error; e != nil {
			inv.printf("%s: %s at %s: %s\n", safe.Sanitize(s.Server), inv.red("not measured"), e.Phase, e.Message)
			for _, h := range e.Hints {
				inv.printf("  hint: %s\n", h)
			}
			continue
		}
		inv.printf("%s: %d bytes, about %d tokens (%s, %d bytes; instructions, %d bytes)\n", safe.Sanitize(s.Server), s.Bytes, s.Tokens,
			plural(len(s.Tools), "tool"), s.Bytes-s.InstructionsBytes, s.InstructionsBytes)
	}
	switch {
	case rep.Failed > 0:
		inv.printf("total: %d bytes, about %d tokens, of the %d of %d servers that answered\n", rep.Bytes, rep.Tokens, len(rep.Servers)-rep.Failed, len(rep.Servers))
		defer inv.say("error: %s of %d did not answer (exit %d)\n", plural(rep.Failed, "server"), len(rep.Servers), inv.exit)
	case many:
		inv.printf("total: %d bytes, about %d tokens\n", rep.Bytes, rep.Tokens)
	}
	inv.printf("tokens are %s\n", rep.Estimate)
	type named struct {
		server string
		t      budgetTool
	}
	var tools []named
	for _, s := range rep.Servers {
		for _, t := range s.Tools {
			tools = append(tools, named{s.Server, t})
		}
	}
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].t.Bytes > tools[j].t.Bytes })
	if len(tools) > 0 && top > 0 {
		inv.printf("\ncostliest tools:\n")
	}
	for i, n := range tools {
		if top == 0 {
			break // --top 0: no tools listed
		}
		if i == top {
			inv.printf("  … %d more\n", len(tools)-top)
			break
		}
		name := n.t.Name
		if many {
			name = n.server + ": " + name
		}
		inv.printf("  %7d tokens  %s\n", n.t.Tokens, safe.Sanitize(name))
	}
	if rep.MaxTokens == 0 {
		return
	}
	inv.printf("\nwithin %d tokens:\n", rep.MaxTokens)
	for _, s := range rep.Servers {
		if s.Error != nil {
			continue
		}
		b, _ := json.Marshal(s.EnabledTools)
		inv.printf("  %s: %s of %d fit: \"enabledTools\": %s\n", safe.Sanitize(s.Server), plural(len(s.EnabledTools), "tool"), len(s.Tools), safe.Sanitize(string(b)))
		if out := leftOut(s); len(out) > 0 {
			inv.printf("    left out: %s\n", safe.Sanitize(strings.Join(out, ", ")))
		}
	}
}

// recordedCalls counts the tools/call requests of a recording by server
// and tool; calls[""] counts them over every server.
func recordedCalls(dir, name string) (map[string]map[string]int, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := safe.ReadFile(path, safe.KindRecording)
	if err != nil {
		return nil, usageErr("--from: reading %s: %v", name, err)
	}
	calls := map[string]map[string]int{"": {}}
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var l struct {
			Server string `json:"server"`
			Dir    string `json:"dir"`
			Msg    struct {
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
			if calls[l.Server] == nil {
				calls[l.Server] = map[string]int{}
			}
			calls[l.Server][l.Msg.Params.Name]++
			calls[""][l.Msg.Params.Name]++
		}
	}
	return calls, nil
}

// leftOut are the tools the proposal leaves out of a server.
func leftOut(s *budgetServer) []string {
	var out []string
	for _, t := range s.Tools {
		if !slices.Contains(s.EnabledTools, t.Name) {
			out = append(out, t.Name)
		}
	}
	return out
}
