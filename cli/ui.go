package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// An invocation is one run of one command: its output modes and the
// secrets that must never be printed.
type invocation struct {
	env  Env
	prog string // the program's name, as usage lines and hints show it
	cmd  *command
	json bool // --json: one document on stdout
	// traceID is the trace id of --traceparent (or $TRACEPARENT), shown
	// beside each --events line; "" without one.
	traceID string
	// exit is the code for a run that printed its result but must not
	// exit 0 (a tool's isError).
	exit int
	// wroteJSON is set once the command printed its JSON document.
	wroteJSON bool
	// wantJSON is set when the command line asks for --json, whether or
	// not it parses: a usage error is then a JSON document too.
	wantJSON bool
	// configErr is a configuration file that could not be used.
	configErr error
	// junit is the report of --junit FILE, nil without it.
	junit *junitReport
	// recorder records the sessions of --record FILE, nil without it.
	recorder *manager.Recorder
	// live is stderr when it is a terminal: its transient line holds the
	// spinner and a call's progress. nil otherwise.
	live *liveWriter
	// progress is the last progress of a call, for the live line.
	progress atomic.Value // string
	// stops run once the output is out: the servers' stop (stop.go).
	stops []func()
	promptState

	mu      sync.Mutex
	secrets []string
	masker  *safe.Redactor // nil until needed after the secrets changed
	relays  []*relay       // stderr relays of servers, flushed by finish
}

func newInvocation(env Env, cmd *command) *invocation {
	inv := &invocation{env: env, cmd: cmd, prog: env.Program}
	if env.StderrIsTerminal && env.Stderr != nil {
		inv.live = newLiveWriter(env.Stderr, env.Columns)
		inv.env.Stderr = inv.live
	}
	return inv
}

// say writes a message of the program on stderr: its name, then the
// message (secrets masked).
func (inv *invocation) say(format string, args ...any) {
	io.WriteString(inv.env.Stderr, inv.prog+": "+fmt.Sprintf(format, inv.redactArgs(args)...))
}

// suggest is the command line that runs this program with words, for a
// hint that a person can paste: words that a shell would split or
// expand are quoted.
func (inv *invocation) suggest(words ...string) string {
	var b strings.Builder
	b.WriteString(inv.prog)
	if inv.env.homeArg != "" {
		b.WriteString(" --home " + shellQuote(inv.env.homeArg))
	}
	for _, w := range words {
		b.WriteByte(' ')
		b.WriteString(shellQuote(w))
	}
	return b.String()
}

// shellQuote quotes w for a POSIX shell unless it is made of characters
// that need no quoting: the shell sink's one escaper, safe.ShellQuote.
func shellQuote(w string) string { return safe.ShellQuote(w) }

// ourWords are words mcpwire prints as values of its own (states,
// scopes, transports): never masked, whatever a definition holds. A value
// that is one of them is no secret worth the name, and masking it would
// garble every table.
var ourWords = [...]string{
	"approved", "never approved", "revoked", "changed", "invalid record", "renewal required",
	"approvals unavailable", "user", "project", "stdio", "http", "sse",
	"disabled", "needs approval", "needs login", "idle", "connecting",
	"connected", "failed", "true", "false", "null", "none", "tools",
	"schema", "error", "warning", "hint", "mcpwire", "unknown",
}

// addSecrets registers values that must never be printed (but ourWords).
func (inv *invocation) addSecrets(values ...string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	for _, v := range values {
		if !slices.Contains(ourWords[:], strings.ToLower(strings.TrimSpace(v))) {
			inv.secrets = append(inv.secrets, v)
		}
	}
	inv.masker = nil // built again, once, when next needed
}

// redactor returns the redactor of the registered secrets.
func (inv *invocation) redactor() *safe.Redactor {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.masker == nil && len(inv.secrets) > 0 {
		inv.masker = safe.NewRedactor(inv.secrets...)
	}
	return inv.masker
}

// redact masks every registered secret in s, in every form.
func (inv *invocation) redact(s string) string { return inv.redactor().Redact(s) }

// redactJSON masks every registered secret in the string values of a JSON
// text, never in its keys or structure.
func (inv *invocation) redactJSON(b []byte) []byte { return inv.redactor().RedactJSON(b) }

// masked is text whose secrets are masked already (JSON through
// redactJSON, whose keys must stay): redactArgs passes it as it is.
type masked string

// jsonForPeople is raw JSON indented for a person: secrets masked in its
// values (never its keys), then sanitized.
func (inv *invocation) jsonForPeople(raw []byte) masked {
	return masked(indentJSON(inv.redactJSON(raw)))
}

// redactArgs masks secrets in the values given to a format, never in the
// format itself: mcpwire's own words are never masked. Numbers and
// booleans pass as they are; other values are printed and masked.
func (inv *invocation) redactArgs(args []any) []any {
	r := inv.redactor()
	if r.Empty() {
		return args
	}
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case masked:
			out[i] = string(v)
		case string:
			out[i] = r.Redact(v)
		case error:
			out[i] = r.Redact(v.Error())
		case fmt.Stringer:
			out[i] = r.Redact(v.String())
		case []string:
			m := make([]string, len(v))
			for j, x := range v {
				m[j] = r.Redact(x)
			}
			out[i] = m
		case []byte:
			out[i] = r.Redact(string(v))
		case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, bool, nil:
			out[i] = v
		default:
			out[i] = r.Redact(fmt.Sprint(v))
		}
	}
	return out
}

// colour says whether people get colour: --color=always or never if
// given; else none with NO_COLOR; else always with FORCE_COLOR or
// CLICOLOR_FORCE (set, and not "0": a CI log that shows colour); else on
// a terminal that is not TERM=dumb.
func (inv *invocation) colour() bool {
	switch inv.env.color {
	case "always":
		return true
	case "never":
		return false
	}
	if inv.env.Getenv("NO_COLOR") != "" {
		return false
	}
	for _, v := range []string{"FORCE_COLOR", "CLICOLOR_FORCE"} {
		if f := inv.env.Getenv(v); f != "" && f != "0" && f != "false" {
			return true
		}
	}
	return inv.env.StdoutIsTerminal && inv.env.Getenv("TERM") != "dumb"
}

// paint wraps s in an ANSI colour when colour is on.
func (inv *invocation) paint(code, s string) string {
	if !inv.colour() {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (inv *invocation) bold(s string) string  { return inv.paint("1", s) }
func (inv *invocation) green(s string) string { return inv.paint("32", s) }
func (inv *invocation) red(s string) string   { return inv.paint("31", s) }
func (inv *invocation) dim(s string) string   { return inv.paint("2", s) }

// printf writes to stdout, secrets masked in args (never in format).
func (inv *invocation) printf(format string, args ...any) {
	io.WriteString(inv.env.Stdout, fmt.Sprintf(format, inv.redactArgs(args)...))
}

// writeLine writes s and a line end on stdout, secrets masked: printf of
// "%s\n", with no copy of s when nothing is masked (a tool's text may be
// megabytes).
func (inv *invocation) writeLine(s string) {
	io.WriteString(inv.env.Stdout, inv.redact(s))
	io.WriteString(inv.env.Stdout, "\n")
}

// eprintf writes to stderr, secrets masked in args (never in format).
func (inv *invocation) eprintf(format string, args ...any) {
	io.WriteString(inv.env.Stderr, fmt.Sprintf(format, inv.redactArgs(args)...))
}

// A docHeader starts every --json document: the format's version, the
// command that printed it, and whether it succeeded (its exit code is 0).
// Every document type embeds it.
type docHeader struct {
	_ [0]func() // not comparable: no equality function in the binary

	Schema  int    `json:"schema"`
	Command string `json:"command"`
	OK      bool   `json:"ok"`
}

// isDoc marks the documents that carry their header (every type that
// embeds docHeader): writeJSON writes them as they are encoded.
func (docHeader) isDoc() {}

// header returns the docHeader of this command.
func (inv *invocation) header(ok bool) docHeader {
	return docHeader{Schema: 1, Command: inv.cmd.name, OK: ok}
}

// writeJSON prints v, a document that embeds docHeader, as the command's
// one JSON document on stdout, secrets masked. A document without
// "schema" or "command" at its top gets them first (never twice).
func (inv *invocation) writeJSON(v any) {
	inv.wroteJSON = true
	if _, ok := v.(interface{ isDoc() }); ok {
		// It has its header (schema, command): written as it is encoded.
		d := &docWriter{inv: inv, w: inv.env.Stdout}
		enc := json.NewEncoder(d)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err == nil || d.wrote {
			return // written, or stdout failed
		}
		// It cannot be encoded: the error document below says why.
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		enc.Encode(errorDoc{docHeader: inv.header(false), Error: jsonError{Phase: "internal", Code: codeInternal, Message: err.Error(), Hints: []string{}}})
	}
	out := buf.Bytes()
	if bytes.HasPrefix(out, []byte("{\n")) {
		have := topLevelKeys(out)
		var head []byte
		if !have["schema"] {
			head = append(head, "  \"schema\": 1,\n"...)
		}
		if !have["command"] {
			name, _ := json.Marshal(inv.cmd.name)
			head = append(head, "  \"command\": "+string(name)+",\n"...)
		}
		at := 2 // after "{\n", or after a "schema" that comes first
		if first := []byte("{\n  \"schema\": 1,\n"); bytes.HasPrefix(out, first) {
			at = len(first)
		}
		if len(head) > 0 {
			out = append(append(append([]byte{}, out[:at]...), head...), out[at:]...)
		}
	}
	inv.env.Stdout.Write(safe.EscapeJSON(inv.redactJSON(out)))
}

// emitLine prints v as one compact JSON line on stdout (an NDJSON event),
// secrets masked.
func (inv *invocation) emitLine(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return
	}
	inv.env.Stdout.Write(append(inv.redactJSON(bytes.TrimRight(buf.Bytes(), "\n")), '\n'))
}

// topLevelKeys returns the member names of a JSON object's top level.
func topLevelKeys(data []byte) map[string]bool {
	keys := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return keys
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		if k, ok := t.(string); ok {
			keys[k] = true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return keys
		}
	}
	return keys
}

// jsonError is the error member of a --json document, and of each
// server that failed in list and doctor.
type jsonError struct {
	Server  string   `json:"server"` // "" when no server is concerned
	Phase   string   `json:"phase"`  // usage, config, approval, spawn, connect, initialize, list, call, auth, shutdown, interrupted, internal
	Code    string   `json:"code"`   // the machine code: codes.go, docs/json.md
	Message string   `json:"message"`
	Hints   []string `json:"hints"`
	Stderr  string   `json:"stderr"` // the last lines of a stdio server's stderr, "" when none
}

// errorOf is f as the error member of a --json document, sanitized.
func errorOf(ctx context.Context, f *failure) jsonError {
	phase, code := f.phase, errorCode(ctx, f)
	if phase == "" {
		phase = "internal"
		if code == codeInterrupted {
			phase = codeInterrupted
		}
	}
	hints := []string{}
	for _, h := range f.hints {
		hints = append(hints, safe.Sanitize(h))
	}
	return jsonError{Server: f.server, Phase: phase, Code: code, Message: safe.Sanitize(f.message()), Hints: hints, Stderr: f.stderr}
}

// errorDoc is the document of a command that failed.
type errorDoc struct {
	docHeader
	Error jsonError `json:"error"`
}

// finish prints a failure (people: stderr lines; scripts: the JSON
// document too) and returns the exit code.
func (inv *invocation) finish(ctx context.Context, err error) int {
	inv.mu.Lock()
	relays := inv.relays
	inv.mu.Unlock()
	for _, r := range relays {
		r.Flush()
	}
	if err == nil {
		inv.finishJUnit(nil)
		return inv.exit
	}
	var help *helpRequest
	if errors.As(err, &help) {
		var b strings.Builder
		inv.printHelp(&b, inv.cmd, collectFlags(help.fs))
		inv.printf("%s", b.String())
		return ExitOK
	}
	f := asFailure(ctx, err)
	inv.finishJUnit(f)
	if (inv.json || inv.wantJSON) && !inv.wroteJSON {
		inv.writeJSON(errorDoc{docHeader: inv.header(false), Error: errorOf(ctx, f)})
	}
	for _, line := range f.lines() {
		inv.say("error: %s\n", line)
	}
	for _, out := range []struct{ name, text string }{{"stderr", f.stderr}, {"stdout (not JSON-RPC)", f.stdout}} {
		if out.text == "" {
			continue
		}
		inv.say("the server's last words on %s:\n", out.name)
		for _, line := range strings.Split(strings.TrimRight(out.text, "\n"), "\n") {
			inv.eprintf("  | %s\n", line)
		}
	}
	for _, h := range f.hints {
		inv.say("hint: %s\n", safe.Sanitize(h))
	}
	if f.code == ExitUsage && inv.cmd != nil && inv.cmd.usage != "" {
		inv.eprintf("usage: %s\n", inv.cmd.synopsis(inv.prog))
	}
	return f.code
}

// typedColumns are the columns (by header) whose values a person types
// or reads as words (names, scopes, states): a table never cuts them to
// fit a terminal; the others (targets, descriptions, messages) shrink.
var typedColumns = [...]string{"NAME", "SCOPE", "TRANSPORT", "APPROVAL", "AUTH",
	"TYPE", "REQUIRED", "URI", "TEMPLATE", "ARGUMENTS", "PHASE"}

// table prints rows as aligned columns (by display width), the first
// row as the header. On a terminal of known width, the widest columns are
// cut (with "…") to fit; in a pipe nothing is cut.
func (inv *invocation) table(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	for _, r := range rows {
		for i, c := range r {
			r[i] = inv.redact(c)
		}
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], displayWidth(c))
			}
		}
	}
	if inv.env.StdoutIsTerminal && inv.env.Columns > 0 && !inv.env.wide {
		floors := make([]int, len(widths))
		for i := range floors {
			floors[i] = min(widths[i], max(displayWidth(rows[0][i]), 8))
			if slices.Contains(typedColumns[:], strings.TrimSpace(rows[0][i])) {
				floors[i] = widths[i] // what a person types is never cut
			}
		}
		widths = fitColumns(widths, floors, inv.env.Columns-1)
	}
	for ri, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i < len(widths) {
				c = truncateDisplay(c, widths[i])
			}
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			cell := c
			if ri == 0 {
				cell = inv.bold(c)
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-displayWidth(c)+2))
		}
		io.WriteString(inv.env.Stdout, strings.TrimRight(b.String(), " ")+"\n")
	}
}

// spinner shows a spinner with msg on stderr, when stderr is a terminal,
// for work that takes longer than a moment. The returned func stops it.
// msg may name a server or a tool: it is sanitized (and masked) here.
func (inv *invocation) spinner(msg string) (stop func()) {
	if inv.live == nil || inv.json {
		return func() {}
	}
	msg = safe.Sanitize(inv.redact(msg))
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
		delay := time.NewTimer(300 * time.Millisecond)
		defer delay.Stop()
		select {
		case <-done:
			return
		case <-delay.C:
		}
		tick := time.NewTicker(80 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			line := frames[i%len(frames)] + " " + msg
			if p, _ := inv.progress.Load().(string); p != "" {
				line += " — " + p
			}
			inv.live.set(line)
			select {
			case <-done:
				inv.live.set("")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}
