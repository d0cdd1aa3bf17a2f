package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
)

// interactionFlags say how server requests are answered without a person.
type interactionFlags struct {
	_ [0]func() // not comparable: no equality function in the binary

	elicit string
	sample string
	events bool
}

func (f *interactionFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.elicit, "elicit", "", "answer elicitation requests: defaults, decline, cancel, or FILE.json")
	fs.StringVar(&f.sample, "sample", "", "answer sampling requests from FILE.json (canned answers); without it they are declined")
	fs.BoolVar(&f.events, "events", false, "print NDJSON events on stdout: progress, logs, notifications, server requests, the result last")
}

// callReport is `mcpwire call --json` (and the last --events line).
type callReport struct {
	docHeader
	Server            string             `json:"server"`
	Tool              string             `json:"tool"`
	IsError           bool               `json:"isError"`
	Content           []protocol.Content `json:"content"`
	StructuredContent json.RawMessage    `json:"structuredContent"` // null when the tool sent none
	// OutputProblem says how structuredContent fails the tool's
	// outputSchema; "" when it does not (or there is no schema).
	OutputProblem string           `json:"outputProblem"`
	Timing        map[string]int64 `json:"timingMs"`
	// TaskID is the task the call ran as; "" when it was answered at once.
	TaskID string `json:"taskId"`
}

func runCall(ctx context.Context, inv *invocation, args []string) error {
	var asTask, detach bool
	r, err := inv.openSession(ctx, "call", args, func(fs *flagSetT) {
		fs.BoolVar(&asTask, "task", false, "run the call as a task where the server allows it, and wait for it with its status on stderr")
		fs.BoolVar(&detach, "detach", false, "run the call as a task and print its id instead of waiting (follow it with: task wait TARGET ID)")
	}, func(rest []string) error {
		if len(rest) == 0 {
			return usageErr("no TOOL: which tool to call")
		}
		return nil
	})
	if err != nil {
		return err
	}
	inv.atExit(r.close) // after the output
	t, conn, ev, tf := r.t, r.conn, r.ev, &r.tf
	toolName, words := r.rest[0], r.rest[1:]
	if err := inv.heldTool(t, toolName); err != nil {
		return err
	}

	// The tool list comes first: an unknown tool and a missing required
	// argument are the caller's mistakes (exit 2), refused before sending,
	// and k=v values are typed by the tool's input schema.
	var schema json.RawMessage
	listMs := int64(0)
	if conn.Init().Capabilities.Tools != nil {
		start := time.Now()
		tools := t.tools // listed by the check of the pinned surface
		if tools == nil {
			var err error
			if tools, err = conn.ListTools(ctx); err != nil {
				return inv.serverFailure(t, conn.Explain(manager.PhaseList, err))
			}
		}
		listMs = time.Since(start).Milliseconds()
		found := false
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
			if tool.Name == toolName {
				schema, found = tool.InputSchema, true
			}
		}
		if !found {
			f := fail(ExitUsage, phaseUsage, fmt.Errorf("%s has no tool %q", t.spec.Name, toolName))
			f.server, f.kind = t.spec.Name, codeToolNotFound
			if c := closest(toolName, names); c != "" {
				f.hints = append(f.hints, "did you mean "+c+"?")
			}
			f.hints = append(f.hints, "list the tools with: "+inv.suggest("test")+" "+targetWords(t, tf))
			return f
		}
	}
	callArgs, err := toolArgs(ctx, words, inv.env.Stdin, schema)
	if err != nil {
		return err
	}
	if missing := missingRequired(schema, callArgs); len(missing) > 0 {
		f := usageErr("the tool %s needs %s %s", toolName, map[bool]string{true: "the argument", false: "the arguments"}[len(missing) == 1], strings.Join(missing, ", "))
		f.server = t.spec.Name
		f.hints = []string{"give " + strings.Join(missing, "=VALUE ") + "=VALUE (or one JSON object)"}
		return f
	}
	copts := &protocol.CallOptions{}
	if tf.timeout == 0 && t.spec.ToolTimeout > 0 {
		copts.Timeout = t.spec.ToolTimeout // the definition's toolTimeout, as the manager uses it
	}
	if ev.on || !inv.json {
		copts.Progress = ev.progress(inv)
	}
	start := time.Now()
	stop := inv.spinner("calling " + toolName)
	var res *protocol.CallToolResult
	var task *protocol.Task
	deadline := taskDeadline(tf) // --timeout bounds a task's whole wait
	if asTask || detach {
		res, task, err = conn.CallToolTask(ctx, toolName, callArgs, copts)
	} else {
		res, err = conn.CallTool(ctx, toolName, callArgs, copts)
	}
	stop()
	inv.finishProgress()
	if err == nil && task != nil {
		inv.rememberTask(t, toolName, task)
		if detach {
			return inv.printTask(t, toolName, task)
		}
		res, err = inv.waitTask(ctx, t, conn, toolName, task, deadline, tf.timeout)
	}
	if err != nil {
		if ctx.Err() != nil {
			return err // interrupted: cancelled was sent; exit 130
		}
		f := inv.serverFailure(t, conn.Explain(manager.PhaseCall, manager.ToolTimeout(t.spec.Name, toolName, err))).(*failure)
		var je *protocol.Error
		if errors.As(err, &je) {
			f.hints = append(f.hints, "the server answered with an error; check the tool's arguments")
		}
		if task != nil && errors.Is(err, context.DeadlineExceeded) {
			f.hints = append(f.hints, "--timeout bounds the whole wait of a task; tasks/cancel was sent")
		}
		return f
	}
	rep := &callReport{docHeader: inv.header(!res.IsError), Server: t.spec.Name, Tool: toolName, IsError: res.IsError,
		Content: res.Content, StructuredContent: res.StructuredContent, OutputProblem: res.OutputProblem,
		Timing: map[string]int64{"spawn": conn.Spawn.Milliseconds(), "initialize": conn.Initialize.Milliseconds(), "list": listMs, "call": time.Since(start).Milliseconds()}}
	if task != nil {
		rep.TaskID = task.ID
	}
	if rep.Content == nil {
		rep.Content = []protocol.Content{}
	}
	if res.IsError {
		inv.exit = ExitToolErr
	}
	switch {
	case ev.on:
		ev.emit(map[string]any{"event": "result", "result": rep})
	case inv.json:
		inv.writeJSON(rep)
	default:
		inv.printResult(res)
		if res.IsError {
			inv.say("error: %s: the tool %s answered isError\n", safe.Sanitize(t.spec.Name), safe.Sanitize(toolName))
		}
	}
	return nil
}

// missingRequired lists the properties a tool's input schema requires
// that args lacks, in the schema's order.
func missingRequired(schema json.RawMessage, args map[string]any) []string {
	var s struct {
		Required []string `json:"required"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil {
		return nil
	}
	var out []string
	for _, r := range s.Required {
		if _, ok := args[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}

// targetWords repeats the target as typed, for hints.
func targetWords(t *target, tf *targetFlags) string {
	switch {
	case tf.demo.mode == "http":
		return "--demo=http"
	case tf.demo.mode != "":
		return "--demo"
	case t.spec.Transport == "stdio" && t.spec.URL == "":
		return "-- " + t.spec.Target()
	}
	if t.spec.URL != "" {
		return t.spec.Target()
	}
	return t.spec.Name
}

// printResult prints a tool result for people: its content, or its
// structuredContent when no content came.
func (inv *invocation) printResult(res *protocol.CallToolResult) {
	for i := range res.Content {
		inv.writeLine(strings.TrimRight(describeContent(&res.Content[i]), "\n"))
	}
	if sc := res.StructuredContent; len(sc) > 0 && string(sc) != "null" && !textCarries(res.Content, sc) {
		if len(res.Content) > 0 {
			inv.printf("%s\n", inv.dim("structuredContent:"))
		}
		inv.printf("%s\n", inv.jsonForPeople(sc))
	}
	if res.OutputProblem != "" {
		inv.say("warning: %s\n", safe.Sanitize(res.OutputProblem))
	}
}

// textCarries says whether a text block of content already holds the
// structured content (the same JSON value), as the spec asks servers to
// send it for older clients: then it is not printed twice.
func textCarries(content []protocol.Content, structured json.RawMessage) bool {
	want, err := decodeJSON(structured)
	if err != nil {
		return false
	}
	for _, c := range content {
		if c.Type != "text" {
			continue
		}
		got, err := decodeJSON(json.RawMessage(c.Text))
		if err == nil && reflect.DeepEqual(got, want) {
			return true
		}
	}
	return false
}

// events writes NDJSON events on stdout, one object a line.
type events struct {
	_ [0]func() // not comparable: no equality function in the binary

	on   bool
	inv  *invocation
	mu   sync.Mutex
	done bool // the result was written: it stays the last line
}

func (inv *invocation) newEvents(on bool) *events { return &events{on: on, inv: inv} }

func (e *events) emit(v map[string]any) {
	if !e.on {
		return
	}
	if id := e.inv.traceID; id != "" {
		v["traceId"] = id
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return // a late notification (e.g. on an HTTP GET stream) after the result
	}
	e.done = v["event"] == "result"
	e.inv.env.Stdout.Write(append(safe.EscapeJSON(e.inv.redactJSON(b)), '\n'))
}

// progress returns the progress callback: an event, or a line on stderr
// for people.
func (e *events) progress(inv *invocation) func(protocol.ProgressParams) {
	return func(p protocol.ProgressParams) {
		if e.on {
			return // OnNotification already emitted it
		}
		msg := fmt.Sprintf("progress %g", p.Progress)
		if p.Total != nil {
			msg += fmt.Sprintf("/%g", *p.Total)
		}
		if p.Message != "" {
			msg += " " + oneLine(p.Message, 200)
		}
		if inv.live == nil {
			// A pipe (a CI log): each progress is a line of its own, as
			// it comes.
			inv.say("%s\n", safe.Sanitize(msg))
			return
		}
		// The spinner's line shows it while the call runs; the last one
		// stays on the screen when the call ends (finishProgress).
		inv.progress.Store(msg)
	}
}

// finishProgress prints the last progress of a call as a line of its own,
// so that the end of the spinner does not erase it.
func (inv *invocation) finishProgress() {
	if p, _ := inv.progress.Swap("").(string); p != "" {
		inv.eprintf("%s\n", p)
	}
}
