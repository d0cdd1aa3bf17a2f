package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// An invocation is one run of one command: its output modes and the
// secrets that must never be printed.
type invocation struct {
	env  Env
	prog string // the program's name, as usage lines and hints show it
	cmd  *command
	json bool // --json: one document on stdout
	// exit is the code for a run that printed its result but must not
	// exit 0 (a tool's isError).
	exit int
	// wroteJSON is set once the command printed its JSON document.
	wroteJSON bool
	// configErr is a configuration file that could not be used.
	configErr error
	// junit is the report of --junit FILE, nil without it.
	junit *junitReport

	mu      sync.Mutex
	secrets []string
	masker  *safe.Redactor // nil until needed after the secrets changed
}

func newInvocation(env Env, cmd *command) *invocation {
	return &invocation{env: env, cmd: cmd, prog: env.Program}
}

// say writes a message of the program on stderr: its name, then the
// message (secrets masked).
func (inv *invocation) say(format string, args ...any) {
	inv.eprintf("%s: %s", inv.prog, fmt.Sprintf(format, args...))
}

// suggest is the command line that runs this program with words, for a
// hint that a person can paste: words that a shell would split or
// expand are quoted.
func (inv *invocation) suggest(words ...string) string {
	var b strings.Builder
	b.WriteString(inv.prog)
	for _, w := range words {
		b.WriteByte(' ')
		b.WriteString(shellQuote(w))
	}
	return b.String()
}

// shellQuote quotes w for a POSIX shell unless it is made of characters
// that need no quoting.
func shellQuote(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,/:@%+=") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// addSecrets registers values that must never be printed.
func (inv *invocation) addSecrets(values ...string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	inv.secrets = append(inv.secrets, values...)
	inv.masker = nil // built again, once, when next needed
}

// redact masks every registered secret in s.
func (inv *invocation) redact(s string) string {
	inv.mu.Lock()
	if inv.masker == nil && len(inv.secrets) > 0 {
		inv.masker = safe.NewRedactor(inv.secrets...)
	}
	m := inv.masker
	inv.mu.Unlock()
	return m.Redact(s)
}

// colour says whether people get colour: a terminal and no NO_COLOR.
func (inv *invocation) colour() bool {
	return inv.env.StdoutIsTerminal && inv.env.Getenv("NO_COLOR") == "" && inv.env.Getenv("TERM") != "dumb"
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

// printf writes to stdout, secrets masked.
func (inv *invocation) printf(format string, args ...any) {
	io.WriteString(inv.env.Stdout, inv.redact(fmt.Sprintf(format, args...)))
}

// eprintf writes to stderr, secrets masked.
func (inv *invocation) eprintf(format string, args ...any) {
	io.WriteString(inv.env.Stderr, inv.redact(fmt.Sprintf(format, args...)))
}

// writeJSON prints v as the command's one JSON document, with "schema": 1
// first, secrets masked.
func (inv *invocation) writeJSON(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(&buf, `{"schema":1,"ok":false,"error":{"phase":"internal","message":%q}}`+"\n", err.Error())
	}
	out := buf.Bytes()
	if !bytes.HasPrefix(out, []byte(`{`+"\n"+`  "schema": 1`)) {
		out = bytes.Replace(out, []byte("{\n"), []byte("{\n  \"schema\": 1,\n"), 1)
	}
	io.WriteString(inv.env.Stdout, inv.redact(string(out)))
	inv.wroteJSON = true
}

// jsonError is the error member of a --json document.
type jsonError struct {
	Server  string   `json:"server,omitempty"`
	Phase   string   `json:"phase"`
	Message string   `json:"message"`
	Hints   []string `json:"hints,omitempty"`
	Stderr  string   `json:"stderr,omitempty"`
}

// finish prints a failure (people: stderr lines; scripts: the JSON
// document too) and returns the exit code.
func (inv *invocation) finish(ctx context.Context, err error) int {
	if err == nil {
		inv.finishJUnit(nil)
		return inv.exit
	}
	var help *helpRequest
	if errors.As(err, &help) {
		inv.printf("usage: %s\n\nflags:\n", inv.cmd.synopsis(inv.prog))
		help.fs.SetOutput(inv.env.Stdout)
		help.fs.PrintDefaults()
		return ExitOK
	}
	f := asFailure(ctx, err)
	inv.finishJUnit(f)
	phase := f.phase
	if phase == "" {
		phase = "internal"
	}
	msg := safe.Sanitize(f.err.Error())
	if inv.json && !inv.wroteJSON && f.code != ExitUsage {
		inv.writeJSON(struct {
			Schema int       `json:"schema"`
			OK     bool      `json:"ok"`
			Error  jsonError `json:"error"`
		}{1, false, jsonError{Server: f.server, Phase: phase, Message: msg, Hints: f.hints, Stderr: f.stderr}})
	}
	for _, line := range f.lines() {
		inv.say("error: %s\n", line)
	}
	if f.stderr != "" {
		inv.say("the server's last words on stderr:\n")
		for _, line := range strings.Split(strings.TrimRight(f.stderr, "\n"), "\n") {
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

// table prints rows as aligned columns (by display width), the first
// row as the header.
func (inv *invocation) table(rows [][]string) {
	if len(rows) == 0 {
		return
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			if i < len(widths) {
				widths[i] = max(widths[i], utf8.RuneCountInString(c))
			}
		}
	}
	for ri, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			cell := c
			if ri == 0 {
				cell = inv.bold(c)
			}
			b.WriteString(cell)
			b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
		}
		inv.printf("%s\n", strings.TrimRight(b.String(), " "))
	}
}

// spinner shows a spinner with msg on stderr, when stderr is a terminal,
// for work that takes longer than a moment. The returned func stops it.
func (inv *invocation) spinner(msg string) (stop func()) {
	if !inv.env.StderrIsTerminal || inv.json {
		return func() {}
	}
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
			fmt.Fprintf(inv.env.Stderr, "\r%s %s", frames[i%len(frames)], msg)
			select {
			case <-done:
				fmt.Fprintf(inv.env.Stderr, "\r\x1b[K")
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
