package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/protocol"
)

// screen plays what a terminal does with text: \r goes to the start of
// the line, ESC [K erases to its end, \n starts a new line; other
// characters are written over what is there.
func screen(out string) []string {
	lines := [][]rune{{}}
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			cur := lines[len(lines)-1]
			lines[len(lines)-1] = cur[:min(col, len(cur))]
			i += 3
		case out[i] == '\r':
			col = 0
			i++
		case out[i] == '\n':
			lines = append(lines, []rune{})
			col = 0
			i++
		default:
			r := []rune(out[i:])[0]
			cur := lines[len(lines)-1]
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			lines[len(lines)-1] = cur
			col++
			i += len(string(r))
		}
	}
	var s []string
	for _, l := range lines {
		s = append(s, string(l))
	}
	return s
}

// TestLiveLine: messages written while the transient line is shown end up
// on lines of their own, the transient line is redrawn after each, and
// clearing it leaves only the messages.
func TestLiveLine(t *testing.T) {
	var buf bytes.Buffer
	l := newLiveWriter(&buf, 40)
	l.set("⠋ calling notify")
	l.Write([]byte("mcpwire: server log [info] one\n"))
	l.set("⠙ calling notify — progress 1/3 step 1")
	l.Write([]byte("mcpwire: server log [info] two\n"))
	l.set("⠹ calling notify — progress 2/3 step 2 with a message much longer than the terminal")
	got := screen(buf.String())
	if last := got[len(got)-1]; !strings.HasPrefix(last, "⠹ calling notify — progress 2/3 step") || len([]rune(last)) > 39 {
		t.Fatalf("the live line is %q (cut to 39 columns?)", last)
	}
	l.set("")
	l.Write([]byte("progress 2/3 step 2\n"))
	got = screen(buf.String())
	want := []string{"mcpwire: server log [info] one", "mcpwire: server log [info] two", "progress 2/3 step 2", ""}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("screen:\n%q\nwant\n%q", got, want)
	}
	// A prompt (no newline at the end) is not drawn over.
	buf.Reset()
	l.Write([]byte("Send these answers? [Y/n] "))
	l.set("⠋ waiting")
	if strings.Contains(buf.String(), "waiting") {
		t.Fatalf("the live line was drawn over a prompt: %q", buf.String())
	}
}

// TestCallProgressAndLogsOnATerminal runs call --demo notify with stderr
// as a terminal: the server's log line and the progress never share a
// line, and the last progress stays on the screen.
func TestCallProgressAndLogsOnATerminal(t *testing.T) {
	var out, errb syncBuffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Dir: t.TempDir(), Home: t.TempDir(),
		Getenv: func(string) string { return "" }, StderrIsTerminal: true, Columns: 100}
	env.Executable = BuiltBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if code := Main(ctx, []string{"call", "--demo", "notify", "--log-level", "info"}, env); code != 0 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	lines := screen(errb.String())
	sawLog, sawProgress := false, false
	for _, l := range lines {
		if strings.Contains(l, "server log") && strings.Contains(l, "progress") {
			t.Fatalf("a log line and the progress share a line: %q\n%q", l, lines)
		}
		sawLog = sawLog || strings.Contains(l, "server log")
		sawProgress = sawProgress || strings.HasPrefix(l, "progress 3/3")
	}
	if !sawLog || !sawProgress {
		t.Fatalf("want the log line and the last progress on the screen:\n%q", lines)
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTableFitsTheTerminal: on a terminal the widest column is cut to
// fit; in a pipe nothing is cut.
func TestTableFitsTheTerminal(t *testing.T) {
	rows := func() [][]string {
		return [][]string{{"NAME", "TARGET", "STATUS"},
			{"a", "npx -y @modelcontextprotocol/server-filesystem /home/someone/projects/one", "✓ 12 tools"},
			{"b", "npx -y @modelcontextprotocol/server-filesystem /home/someone/projects/two", "✓ 1 tool"}}
	}
	var out bytes.Buffer
	inv := newInvocation(Env{Stdout: &out, Getenv: func(string) string { return "" }, StdoutIsTerminal: true, Columns: 60}, &command{name: "list"})
	inv.table(rows())
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if displayWidth(l) > 59 {
			t.Fatalf("a line of %d columns on a terminal of 60:\n%s", displayWidth(l), out.String())
		}
	}
	if !strings.Contains(out.String(), "…") || !strings.Contains(out.String(), "✓ 12 tools") {
		t.Fatalf("want the target cut, the status whole:\n%s", out.String())
	}
	out.Reset()
	inv = newInvocation(Env{Stdout: &out, Getenv: func(string) string { return "" }, Columns: 60}, &command{name: "list"})
	inv.table(rows())
	if strings.Contains(out.String(), "…") || !strings.Contains(out.String(), "/home/someone/projects/one") {
		t.Fatalf("a pipe cut a cell:\n%s", out.String())
	}
}

// TestTextCarries: structured content already in a text block (as the
// same JSON value, whatever its spacing) is not shown twice.
func TestTextCarries(t *testing.T) {
	sc := json.RawMessage(`{"b":[1,2],"a":"x"}`)
	text := func(s string) []protocol.Content { return []protocol.Content{{Type: "text", Text: s}} }
	if !textCarries(text("{\n  \"a\": \"x\", \"b\": [1, 2]\n}"), sc) {
		t.Error("the same object in a text block")
	}
	if textCarries(text(`{"a":"x"}`), sc) || textCarries(text("5"), sc) || textCarries(nil, sc) {
		t.Error("a different text carries it")
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		word string
		want string
	}{{1, "tool", "1 tool"}, {2, "tool", "2 tools"}, {0, "server", "0 servers"}, {3, "entry", "3 entries"}, {2, "key", "2 keys"}, {2, "match", "2 matches"}, {1, "resource template", "1 resource template"}} {
		if got := plural(c.n, c.word); got != c.want {
			t.Errorf("plural(%d, %q) = %q, want %q", c.n, c.word, got, c.want)
		}
	}
}

// TestColour: colour only on a terminal, never with NO_COLOR (any value)
// or TERM=dumb.
func TestColour(t *testing.T) {
	for _, c := range []struct {
		terminal bool
		env      map[string]string
		want     bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": "anything"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
	} {
		inv := newInvocation(Env{Stdout: &bytes.Buffer{}, StdoutIsTerminal: c.terminal, Getenv: func(k string) string { return c.env[k] }}, &command{name: "list"})
		if got := strings.Contains(inv.green("✓"), "\x1b["); got != c.want {
			t.Errorf("terminal %v, env %v: colour %v, want %v", c.terminal, c.env, got, c.want)
		}
	}
}

// TestTableKeepsTypedColumns: at 80 columns a long server or tool name is
// never cut (the target and status shrink instead); --wide cuts nothing.
func TestTableKeepsTypedColumns(t *testing.T) {
	long := "a-server-name-someone-will-type-in-full-to-call-it"
	rows := func() [][]string {
		return [][]string{{"NAME", "SCOPE", "TARGET", "STATUS"},
			{long, "project", "npx -y @modelcontextprotocol/server-filesystem /home/someone/projects/one", "✗ spawn: a long reason why it failed to start at all"}}
	}
	var out bytes.Buffer
	inv := newInvocation(Env{Stdout: &out, Getenv: func(string) string { return "" }, StdoutIsTerminal: true, Columns: 80}, &command{name: "list"})
	inv.table(rows())
	if !strings.Contains(out.String(), long+"  project") || !strings.Contains(out.String(), "…") {
		t.Fatalf("at 80 columns, want the name and scope whole and the rest cut:\n%s", out.String())
	}
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		if displayWidth(l) > 79 {
			t.Fatalf("a line of %d columns on a terminal of 80:\n%s", displayWidth(l), out.String())
		}
	}
	out.Reset()
	inv = newInvocation(Env{Stdout: &out, Getenv: func(string) string { return "" }, StdoutIsTerminal: true, Columns: 80, wide: true}, &command{name: "list"})
	inv.table(rows())
	if strings.Contains(out.String(), "…") {
		t.Fatalf("--wide cut a cell:\n%s", out.String())
	}
}

// TestColourFlags: --color, NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE.
func TestColourFlags(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		flag string
		tty  bool
		want bool
	}{
		{nil, "", true, true},
		{nil, "", false, false},
		{map[string]string{"FORCE_COLOR": "1"}, "", false, true},
		{map[string]string{"CLICOLOR_FORCE": "1"}, "", false, true},
		{map[string]string{"FORCE_COLOR": "0"}, "", false, false},
		{map[string]string{"NO_COLOR": "1", "FORCE_COLOR": "1"}, "", true, false},
		{map[string]string{"NO_COLOR": "1"}, "always", false, true},
		{map[string]string{"FORCE_COLOR": "1"}, "never", true, false},
		{map[string]string{"TERM": "dumb"}, "", true, false},
	} {
		env := Env{Getenv: func(k string) string { return tc.env[k] }, StdoutIsTerminal: tc.tty, color: tc.flag}
		if got := newInvocation(env, &command{name: "list"}).colour(); got != tc.want {
			t.Errorf("env %v, --color=%q, terminal %v: colour %v, want %v", tc.env, tc.flag, tc.tty, got, tc.want)
		}
	}
}
