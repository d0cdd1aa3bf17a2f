package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
	"github.com/mcpwire/mcpwire/protocol/surface"
)

// interactions builds the session callbacks: how elicitation and
// sampling requests are answered, and where notifications go.
func (inv *invocation) interactions(xf *interactionFlags, ev *events) (protocol.Options, error) {
	var popts protocol.Options
	popts.OnNotification = func(method string, params json.RawMessage) {
		ev.emit(map[string]any{"event": "notification", "method": method, "params": params})
	}
	popts.OnServerRequest = func(method, outcome string) {
		ev.emit(map[string]any{"event": "server_request", "method": method, "outcome": outcome})
	}
	if ev.on {
		// Change notifications are events too: a modern server sends them
		// only on a subscriptions/listen stream, which these open.
		changed := func() {}
		popts.OnToolsChanged, popts.OnPromptsChanged, popts.OnResourcesChanged = changed, changed, changed
	}
	if !ev.on {
		popts.OnLog = func(p protocol.LogParams) {
			var s string
			if json.Unmarshal(p.Data, &s) != nil {
				s = string(p.Data)
			}
			logger := ""
			if p.Logger != "" {
				logger = " " + safe.Sanitize(p.Logger)
			}
			inv.say("server log [%s%s] %s\n", safe.Sanitize(p.Level), logger, oneLine(s, 500))
		}
	}
	switch xf.elicit {
	case "":
		if inv.env.StdinIsTerminal && inv.env.StderrIsTerminal && !ev.on {
			popts.Elicit = inv.elicitInteractive
			popts.ElicitURL = true // a person can open a URL
		}
	case "none": // declare no elicitation
	case "defaults":
		popts.Elicit = elicitDefaults
	case "decline", "cancel":
		action := xf.elicit
		popts.Elicit = func(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: action}, nil
		}
	default:
		answers, err := readAnswerFile(inv.env.Dir, xf.elicit)
		if err != nil {
			return popts, err
		}
		popts.Elicit = func(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			var r protocol.ElicitResult
			if json.Unmarshal(answers, &r) == nil && r.Action != "" {
				return &r, nil
			}
			var content map[string]any
			if err := json.Unmarshal(answers, &content); err != nil {
				return nil, fmt.Errorf("--elicit file: %v", err)
			}
			return &protocol.ElicitResult{Action: "accept", Content: content}, nil
		}
	}
	if xf.sample != "" {
		canned, err := readAnswerFile(inv.env.Dir, xf.sample)
		if err != nil {
			return popts, err
		}
		popts.Sample = sampleFrom(canned)
	}
	return popts, nil
}

// A clientDecl says how a session answers elicitation ("none",
// "interactive", "defaults", "decline", "cancel", "file") and sampling
// ("none", "canned"), for a snapshot's record of the client.
type clientDecl struct{ elicit, sample string }

// declOf names the answering modes the options were built with.
func declOf(xf *interactionFlags, popts *protocol.Options) clientDecl {
	d := clientDecl{elicit: "none", sample: "none"}
	switch {
	case popts.Elicit == nil:
	case xf.elicit == "":
		d.elicit = "interactive"
	case xf.elicit == "defaults" || xf.elicit == "decline" || xf.elicit == "cancel":
		d.elicit = xf.elicit
	default:
		d.elicit = "file"
	}
	if popts.Sample != nil {
		d.sample = "canned"
	}
	return d
}

// pinnedOptions are the session options that declare what a snapshot's
// client declared: elicitation (declined), sampling (refused) and the
// roots it offered; the revision is pinned by the caller.
func pinnedOptions(c *surface.Client) protocol.Options {
	var o protocol.Options
	if c.DeclaresElicitation() {
		o.Elicit = func(context.Context, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: "decline"}, nil
		}
		o.ElicitURL = c.DeclaresURLElicitation()
	}
	if c.DeclaresSampling() {
		o.Sample = func(context.Context, json.RawMessage) (any, error) {
			return nil, &protocol.Error{Code: -1, Message: "mcpwire diff answers no sampling request"}
		}
	}
	if c.DeclaresRoots() {
		roots := make([]protocol.Root, 0, len(c.Roots))
		for _, u := range c.Roots {
			roots = append(roots, protocol.Root{URI: u})
		}
		o.Roots = func(context.Context) ([]protocol.Root, error) { return roots, nil }
	}
	return o
}

// readAnswerFile reads a JSON file given to --elicit or --sample.
func readAnswerFile(dir, name string) (json.RawMessage, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	data, err := safe.ReadFile(name, safe.KindConfig)
	if err != nil {
		return nil, usageErr("reading %s: %v", name, err)
	}
	// Compact: the answer is sent as raw bytes inside one line of the
	// newline-delimited stdio framing, so it must not hold a newline.
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, usageErr("%s is not valid JSON", name)
	}
	return buf.Bytes(), nil
}

// sampleFrom answers sampling/createMessage from canned answers: one
// CreateMessageResult, or an array of them used in turn (the last one
// repeats).
func sampleFrom(canned json.RawMessage) func(context.Context, json.RawMessage) (any, error) {
	var list []json.RawMessage
	if json.Unmarshal(canned, &list) != nil {
		list = []json.RawMessage{canned}
	}
	next := make(chan json.RawMessage, 1)
	next <- nil
	i := 0
	return func(context.Context, json.RawMessage) (any, error) {
		<-next
		defer func() { next <- nil }()
		if len(list) == 0 {
			return nil, &protocol.Error{Code: -1, Message: "no canned sampling answer"}
		}
		r := list[min(i, len(list)-1)]
		i++
		return r, nil
	}
}

// schemaField is one property of an elicitation's requested schema.
type schemaField struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
	Enum        []string        `json:"enum"`
}

type requestedSchema struct {
	Properties map[string]schemaField `json:"properties"`
	Required   []string               `json:"required"`
}

// elicitDefaults accepts with each field's default; it declines when a
// required field has none.
func elicitDefaults(_ context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	if p.Mode == "url" {
		return &protocol.ElicitResult{Action: "decline"}, nil
	}
	var s requestedSchema
	if err := json.Unmarshal(p.RequestedSchema, &s); err != nil {
		return &protocol.ElicitResult{Action: "decline"}, nil
	}
	content := map[string]any{}
	for name, f := range s.Properties {
		if len(f.Default) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(f.Default, &v) == nil {
			content[name] = v
		}
	}
	for _, r := range s.Required {
		if _, ok := content[r]; !ok {
			return &protocol.ElicitResult{Action: "decline"}, nil
		}
	}
	return &protocol.ElicitResult{Action: "accept", Content: content}, nil
}

// elicitInteractive puts the question to the person at the terminal,
// field by field.
func (inv *invocation) elicitInteractive(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	// Every read watches ctx: it ends when the server cancels its request
	// or the session closes (Ctrl-C), and the prompt ends with it.
	in := inv.openPrompt()
	defer in.close()
	inv.eprintf("\nThe server asks (this text is from the server): %s\n", oneLine(p.Message, 300))
	if p.Mode == "url" {
		inv.eprintf("It wants you to open: %s\nOpen it yourself if you trust it. Press Enter when done, or type n to decline: ", safe.Sanitize(p.URL))
		line, err := in.readLine(ctx)
		if ctx.Err() != nil {
			return nil, err
		}
		if strings.TrimSpace(line) == "n" {
			return &protocol.ElicitResult{Action: "decline"}, nil
		}
		return &protocol.ElicitResult{Action: "accept"}, nil
	}
	var s requestedSchema
	_ = json.Unmarshal(p.RequestedSchema, &s)
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	content := map[string]any{}
	for _, n := range names {
		f := s.Properties[n]
		label := f.Title
		if label == "" {
			label = n
		}
		def := ""
		if len(f.Default) > 0 {
			def = " [" + safe.Sanitize(string(f.Default)) + "]"
		}
		if len(f.Enum) > 0 {
			def += " (" + safe.Sanitize(strings.Join(f.Enum, "/")) + ")"
		}
		for {
			inv.eprintf("  %s%s: ", safe.Sanitize(label), def)
			line, err := in.readLine(ctx)
			if ctx.Err() != nil {
				inv.eprintf("\n")
				return nil, err
			}
			if err != nil && line == "" {
				return &protocol.ElicitResult{Action: "cancel"}, nil
			}
			line = strings.TrimSpace(line)
			if line == "" && len(f.Default) > 0 {
				var v any
				_ = json.Unmarshal(f.Default, &v)
				content[n] = v
				break
			}
			if line == "" {
				break
			}
			v, err := fieldValue(f.Type, line)
			if err != nil {
				inv.eprintf("  %v\n", err)
				continue
			}
			content[n] = v
			break
		}
	}
	inv.eprintf("Send these answers? [Y/n/c(ancel)] ")
	line, err := in.readLine(ctx)
	if ctx.Err() != nil {
		inv.eprintf("\n")
		return nil, err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "n", "no":
		return &protocol.ElicitResult{Action: "decline"}, nil
	case "c", "cancel":
		return &protocol.ElicitResult{Action: "cancel"}, nil
	}
	return &protocol.ElicitResult{Action: "accept", Content: content}, nil
}

// fieldValue converts a typed answer by the field's type.
func fieldValue(typ, s string) (any, error) {
	switch typ {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, errors.New("an integer, please")
		}
		return n, nil
	case "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, errors.New("a number, please")
		}
		return f, nil
	case "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, errors.New("true or false, please")
		}
		return b, nil
	}
	return s, nil
}
