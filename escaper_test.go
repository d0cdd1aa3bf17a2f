package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mcpwire/mcpwire/internal/hostile"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// The sinks a command's output goes to, each with its own check.
const (
	sinkTerminal = "terminal"
	sinkJSON     = "json"
	sinkMarkdown = "markdown"
	sinkRoff     = "roff"
	sinkScript   = "script" // a completion script: the same whatever the configuration
	// sinkText is a terminal showing a block of the server's text (a
	// tool's result, a resource, a prompt) as lines: what
	// safe.SanitizeText lets through, with the server's own lines.
	sinkText = "text"
	// sinkWords are words a completion script offers: valid names only,
	// one a line, nothing a shell would expand.
	sinkWords = "words"
	// sinkGitHub are GitHub Actions workflow commands, one a line.
	sinkGitHub = "github"
)

// A walkRun is one command of the walk and the sink of its stdout.
type walkRun struct {
	args  []string
	sink  string
	junit bool // it writes --junit FILE too
}

// walkEnv runs the binary in a project folder of its own.
type walkEnv struct {
	t          *testing.T
	home, dir  string
	env        []string
	sawHostile bool
}

func (w *walkEnv) run(args ...string) (stdout, stderr string, code int) {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, scriptBinary, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = w.dir, w.env, 5*time.Second
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		code = ee.ExitCode()
	default:
		w.t.Fatalf("mcpwire %q: %v", args, err)
	}
	return o.String(), e.String(), code
}

func newWalkEnv(t *testing.T) *walkEnv {
	base := t.TempDir()
	w := &walkEnv{t: t, home: filepath.Join(base, "home", "mcpwire"), dir: filepath.Join(base, "work")}
	for _, d := range []string{w.home, w.dir, filepath.Join(base, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(base, "home"), "MCPWIRE_HOME=" + w.home, "TMPDIR=" + filepath.Join(base, "tmp")}
	return w
}

func writeFileJSON(t *testing.T, path string, v any) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hostileProject writes a project .mcp.json (and a Cursor file to
// import) whose names and values are the hostile strings, beside a
// server "h" that is the hostile server at url.
func hostileProject(t *testing.T, dir, url string) {
	servers := map[string]any{"h": map[string]any{"url": url},
		// The same server behind a login it explains in hostile words.
		"a": map[string]any{"url": strings.TrimSuffix(url, "/mcp") + "/auth/mcp"},
		// The same server behind a device login in hostile words.
		"v": map[string]any{"url": strings.TrimSuffix(url, "/mcp") + "/device/mcp"},
		// The demo server as a hostile one: the 2026-07-28 era, over stdio.
		"d": map[string]any{"command": scriptBinary, "args": []string{"serve-demo", "--hostile"}}}
	for _, s := range hostile.Strings {
		servers["p "+s.S] = map[string]any{"command": "x " + s.S, "args": []string{s.S}}
		servers["q"+s.Name] = map[string]any{"command": "x " + s.S, "args": []string{s.S}, "cwd": s.S,
			"env": map[string]string{"A": s.S, "API_TOKEN": "tok " + s.S}}
		servers["u"+s.Name] = map[string]any{"url": "https://h.example/" + s.S, "headers": map[string]string{"X-A": s.S, "Authorization": "Bearer " + s.S}}
	}
	mcp := map[string]any{"mcpServers": servers}
	writeFileJSON(t, filepath.Join(dir, ".mcp.json"), mcp)
	writeFileJSON(t, filepath.Join(dir, ".cursor", "mcp.json"), mcp)
	// An entry in raw bytes, as only a hand-made file has them: invalid
	// UTF-8, DEL, C1 and bidi inside its strings (which JSON allows but
	// for the invalid bytes, and which encoding/json would not write).
	path := filepath.Join(dir, ".mcp.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raw := "{\"mcpServers\":{\"raw\":{\"command\":\"x\xff\x7f\xc2\x9b\xe2\x80\xae\",\"args\":[\"a\xffb\"],\"env\":{\"K\":\"v\xfe\",\"API_TOKEN\":\"t\xff\xfe-raw-token\"}},"
	data = bytes.Replace(data, []byte(`{"mcpServers":{`), []byte(raw), 1)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestEscaperCommands runs every command of the CLI against a hostile
// server (internal/hostile: every name, description, instruction,
// result and error a hostile string) and a hostile project file, and
// checks that each sink's output is inert for that sink: a terminal's
// holds no control, bidi or zero-width character and no forged line; a
// --json document is valid JSON whose strings come back as sent; the
// Markdown of diff --markdown has no live HTML, comment, link or image
// from server text and keeps every row and the verdict; the JUnit file
// is XML that encoding/xml reads back; the man page and the completion
// scripts hold nothing of the configuration (issue 20, item 4).
func TestEscaperCommands(t *testing.T) {
	if scriptBuildErr != nil {
		t.Fatal(scriptBuildErr)
	}
	proctest.Check(t)
	srv := httptest.NewServer(hostile.Server{})
	t.Cleanup(srv.Close)
	srv1 := httptest.NewServer(hostile.Server{Variant: 1})
	t.Cleanup(srv1.Close)
	url, url1 := srv.URL+"/mcp", srv1.URL+"/mcp"

	clean := newWalkEnv(t)
	w := newWalkEnv(t)
	hostileProject(t, w.dir, url)
	for _, name := range []string{"h", "d", "a", "v"} {
		if _, stderr, code := w.run("approve", name); code != 0 {
			t.Fatalf("approve %s: exit %d\n%s", name, code, stderr)
		}
	}
	tool := hostile.ToolName(hostile.Strings[11]) // <!--
	res := hostile.ResourceURI(hostile.Strings[13])
	prompt := "prompt " + hostile.Strings[12].S
	argv := strings.ReplaceAll(hostile.All(), "\x00", "") // no argument holds a NUL
	var runs []walkRun
	for _, args := range append([][]string{
		{"list"}, {"list", "--no-connect"}, {"test", url}, {"test", "h"}, {"test", "--verbose", "h"},
		{"get", "h"}, {"get", "raw"}, {"approve", "raw"}, {"get", "q" + hostile.Strings[0].Name}, {"get", "u" + hostile.Strings[11].Name}, {"get", "nosuch " + hostile.Strings[0].S},
		{"call", url, tool}, {"call", "h", tool, "arg " + hostile.Strings[11].S + "=" + argv}, {"call", url, "nosuch " + argv},
		{"read", url, res}, {"read", url, "nosuch" + argv},
		{"prompt", url, prompt}, {"prompt", url, "nosuch " + argv},
		{"doctor", url}, {"doctor", "h"}, {"probe", url}, {"list", "--strict"}, {"budget", url, "--max-tokens", "500"}, {"replay", "nosuch " + argv},
		{"call", url, hostile.ToolName(hostile.Strings[7]), "--events"}, {"test", "--verbose", url},
		{"call", url, string([]rune(hostile.ToolName(hostile.Strings[22])))}, // raw bytes in the answer
		{"test", "a"}, {"doctor", "a"}, {"call", "a", tool}, {"login", "a", "--no-browser"}, {"login", "v", "--device"},
		{"test", "d"}, {"call", "d", tool}, {"call", "d", "echo", "text=" + argv}, {"doctor", "d"}, {"probe", "d"},
		{"import", "--from", "cursor"}, {"import", "--from", "vscode", filepath.Join(".cursor", "mcp.json")},
		{"disable", "q" + hostile.Strings[3].Name}, {"enable", "q" + hostile.Strings[3].Name}, {"revoke", "q" + hostile.Strings[4].Name},
		{"login", "h"}, {"login", "u" + hostile.Strings[11].Name, "--no-browser"}, {"logout", "h"},
		{"enable", "p " + hostile.Strings[0].S}, {"add", "bad " + hostile.Strings[0].S, "--", "x"}, {"add", "ok", "--url", "https://x.example/" + argv},
		{"remove", "ok"}, {"version"}, {"list", "--json", "--no-connect"},
		{"approve", "--all", "--project"}, {"approve", "q" + hostile.Strings[5].Name},
		// A session of the hostile server: its strings through the daemon.
		{"connect", "h"}, {"sessions"}, {"call", "h", tool}, {"test", "h"}, {"disconnect", "--all"},
		// One tool for a person, completions, skills and tasks: the
		// server's words, and hostile words in the arguments.
		{"tool", url, tool}, {"tool", "d", tool}, {"tool", url, "nosuch " + argv},
		{"complete", "d", "--prompt", "greet", "name", "a"}, {"complete", url, "--prompt", prompt, "arg " + argv, "v"},
		{"skills", url}, {"skill", url, "nosuch " + argv}, {"task", "get", url, "nosuch " + argv},
		{"add-json", "j", addJSON(t, argv)}, {"get", "j"}, {"rename", "j", "j2"}, {"remove", "j2"},
	}, registryRuns(t)...) {
		runs = append(runs, walkRun{args: args, sink: sinkTerminal}, walkRun{args: withFlag(args, "--json"), sink: sinkJSON})
	}
	old := filepath.Join(w.dir, "old.snapshot.json")
	rec := filepath.Join(w.dir, "rec.jsonl")
	runs = append(runs,
		walkRun{args: []string{"snapshot", url}, sink: sinkJSON},
		walkRun{args: []string{"snapshot", url, "-o", old}, sink: sinkTerminal},
		walkRun{args: []string{"diff", old, url1}, sink: sinkTerminal},
		walkRun{args: []string{"diff", old, url1, "--fail-on", "any", "--json"}, sink: sinkJSON},
		walkRun{args: []string{"diff", old, url1, "--fail-on", "breaking", "--markdown"}, sink: sinkMarkdown},
		walkRun{args: []string{"diff", old, url1, "--markdown"}, sink: sinkMarkdown},
		walkRun{args: []string{"diff", old, "d", "--markdown", "--fail-on", "any"}, sink: sinkMarkdown},
		walkRun{args: []string{"diff", old, url1, "--fail-on", "any"}, sink: sinkTerminal, junit: true},
		walkRun{args: []string{"diff", old, url1, "--format", "github"}, sink: sinkGitHub},
		walkRun{args: []string{"diff", old, "d", "--format", "github", "--fail-on", "any"}, sink: sinkGitHub},
		walkRun{args: []string{"call", url, tool, "--record", rec}, sink: sinkTerminal},
		walkRun{args: []string{"verify", rec, url1}, sink: sinkTerminal},
		walkRun{args: []string{"verify", rec, url1, "--json"}, sink: sinkJSON},
		walkRun{args: []string{"verify", rec, url}, sink: sinkTerminal},
		walkRun{args: []string{"test", "h"}, sink: sinkTerminal, junit: true},
		walkRun{args: []string{"list"}, sink: sinkTerminal, junit: true},
		walkRun{args: []string{"doctor", url}, sink: sinkTerminal, junit: true},
		walkRun{args: []string{"man"}, sink: sinkRoff},
		walkRun{args: []string{"man", "--json"}, sink: sinkJSON},
	)
	runs = append(runs, walkRun{args: []string{"__complete", "servers"}, sink: sinkWords})
	for _, sh := range []string{"bash", "zsh", "fish"} {
		runs = append(runs, walkRun{args: []string{"completion", sh}, sink: sinkScript}, walkRun{args: []string{"completion", sh, "--json"}, sink: sinkJSON})
	}

	for i, r := range runs {
		args := r.args
		report := filepath.Join(w.dir, fmt.Sprintf("report%d.xml", i))
		if r.junit {
			args = append(append([]string{}, args...), "--junit", report)
		}
		stdout, stderr, code := w.run(args...)
		name := fmt.Sprintf("mcpwire %q [exit %d]", args, code)
		if args[0] == "connect" && code != 0 {
			t.Errorf("%s: the session did not start:\n%s", name, stderr)
		}
		if code == 2 && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "nosuch") }) {
			t.Errorf("%s: a usage error:\n%s", name, stderr)
		}
		if strings.HasPrefix(r.args[0], "__") || r.sink != sinkScript {
			w.sawHostile = w.sawHostile || strings.Contains(stdout+stderr, `\x1b]52`)
		}
		checkSink(t, name, sinkTerminal, stderr)
		sink := r.sink
		if sink == sinkTerminal && (args[0] == "call" || args[0] == "read" || args[0] == "prompt") && code != 2 {
			sink = sinkText
		}
		checkSink(t, name, sink, stdout)
		if r.sink == sinkScript || r.sink == sinkRoff {
			// Nothing of the configuration: the same output without it.
			if cleanOut, _, _ := clean.run(args...); cleanOut != stdout {
				t.Errorf("%s: the output depends on the configuration", name)
			}
		}
		if r.junit {
			checkJUnit(t, name, report)
		}
		if args[0] == "call" && strings.HasPrefix(args[2], "tool bad") && !strings.Contains(stdout, "raw ") {
			t.Errorf("%s: the raw answer was not shown:\n%s", name, stdout)
		}
		if r.sink == sinkJSON && (args[0] == "test" || args[0] == "snapshot") && args[1] == url {
			checkRoundTrip(t, name, stdout)
		}
		if r.sink == sinkMarkdown {
			checkMarkdownDiff(t, name, w, stdout, args[1], args[2])
		}
	}
	t.Logf("%d runs of the binary, each sink checked", len(runs))
	walkBridges(t, w, url, tool, res, prompt)
	checkEveryCommandWalked(t, runs, "proxy", "serve") // the bridges: walkBridges
	if !w.sawHostile {
		t.Errorf("the hostile strings never showed (escaped): the walk checked nothing")
	}
}

// addJSON is an add-json definition whose command, argument and env
// value hold the hostile words.
func addJSON(t *testing.T, words string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"command": "x " + words, "args": []string{words}, "env": map[string]string{"A": words}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkEveryCommandWalked fails when a command of the CLI (mcpwire help
// --json) is in none of the walk's runs nor in also, so that a new
// command cannot go around the escaper walk.
func checkEveryCommandWalked(t *testing.T, runs []walkRun, also ...string) {
	t.Helper()
	out, err := exec.Command(scriptBinary, "help", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var help struct {
		Commands []struct {
			Name string `json:"name"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(out, &help); err != nil || len(help.Commands) == 0 {
		t.Fatalf("help --json: %v\n%s", err, out)
	}
	walked := map[string]bool{}
	for _, r := range runs {
		walked[r.args[0]] = true
	}
	for _, c := range also {
		walked[c] = true
	}
	for _, c := range help.Commands {
		if !walked[c.Name] {
			t.Errorf("the escaper walk runs no %q: add its runs to TestEscaperCommands", c.Name)
		}
	}
}

// withFlag is args with flag added before a "--" (which takes the rest
// of the line), else at the end.
func withFlag(args []string, flag string) []string {
	out := append([]string{}, args...)
	if i := slices.Index(out, "--"); i >= 0 {
		return slices.Insert(out, i, flag)
	}
	return append(out, flag)
}

// checkSink fails when out is not inert for its sink.
func checkSink(t *testing.T, name, sink, out string) {
	t.Helper()
	if err := terminalInert(out); err != nil {
		t.Errorf("%s: %s output: %v:\n%s", name, sink, err, out)
		return
	}
	switch sink {
	case sinkTerminal:
		for _, line := range strings.Split(out, "\n") {
			l := strings.TrimSpace(line)
			if strings.HasPrefix(l, "mcpwire: hint: run 'curl") || strings.HasPrefix(l, ".TH EVIL") {
				t.Errorf("%s: a forged line %q", name, line)
			}
		}
	case sinkJSON:
		if !json.Valid([]byte(out)) {
			t.Errorf("%s: not JSON:\n%s", name, out)
		}
	case sinkRoff:
		checkRoffPage(t, name, out)
	case sinkGitHub:
		checkGitHubCommands(t, name, out)
	case sinkWords:
		for _, w := range strings.Fields(out) {
			if strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
				t.Errorf("%s: offers %q, not a valid name", name, w)
			}
		}
		if strings.Count(out, "\n") != len(strings.Fields(out)) {
			t.Errorf("%s: not one name a line:\n%s", name, out)
		}
	}
}

// githubCommand is one workflow command as the runner parses it:
// ::NAME PROPERTIES::MESSAGE, the properties k=v separated by commas.
var githubCommand = regexp.MustCompile(`^::(error|warning|notice) ([^:]*)::(.*)$`)

// checkGitHubCommands: every line is a workflow command of mcpwire's
// (error or notice), its properties exactly title and file, so that no
// server text ended a line, began a command or added a property.
func checkGitHubCommands(t *testing.T, name, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, line := range lines {
		m := githubCommand.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("%s: not a workflow command: %q", name, line)
			continue
		}
		for _, p := range strings.Split(m[2], ",") {
			k, _, _ := strings.Cut(p, "=")
			if k != "title" && k != "file" {
				t.Errorf("%s: a property %q of no one's: %q", name, k, line)
			}
		}
	}
	if !strings.HasPrefix(lines[len(lines)-1], "::") || !strings.Contains(lines[len(lines)-1], "title=MCP diff") {
		t.Errorf("%s: no summary last:\n%s", name, out)
	}
}

// terminalInert fails on anything a terminal acts on: C0 controls but
// newline and tab, DEL, C1 controls, format characters (bidi, zero
// width), the line and paragraph separators, invalid UTF-8.
func terminalInert(out string) error {
	if !utf8.ValidString(out) {
		return errors.New("invalid UTF-8")
	}
	for i, r := range out {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			return fmt.Errorf("%U at byte %d", r, i)
		}
	}
	return nil
}

// checkRoundTrip: a --json document carries the server's strings as
// sent (each invalid byte as U+FFFD, as JSON must): every hostile tool
// name is among its string values.
func checkRoundTrip(t *testing.T, name, doc string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		return // checkSink said so
	}
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			seen[x] = true
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	for _, s := range hostile.Strings {
		if want := string([]rune(hostile.ToolName(s))); !seen[want] {
			t.Errorf("%s: the tool name %q does not come back as sent", name, want)
		}
	}
}

// checkJUnit reads the report back with encoding/xml: well-formed, no
// comment, directive or processing instruction but the declaration.
func checkJUnit(t *testing.T, name, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: no report: %v", name, err)
		return
	}
	if err := terminalInert(string(data)); err != nil {
		t.Errorf("%s: the report: %v", name, err)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	cases := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("%s: the report is not XML: %v\n%s", name, err, data)
			return
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if x.Name.Local == "testcase" {
				cases++
			}
			if !strings.HasPrefix(x.Name.Local, "test") && !strings.HasPrefix(x.Name.Local, "system-") && x.Name.Local != "failure" && x.Name.Local != "skipped" {
				t.Errorf("%s: the report has an element <%s> of the server's", name, x.Name.Local)
			}
		case xml.Comment, xml.Directive:
			t.Errorf("%s: the report has a %T", name, x)
		case xml.ProcInst:
			if x.Target != "xml" {
				t.Errorf("%s: the report has a processing instruction", name)
			}
		}
	}
	if cases == 0 {
		t.Errorf("%s: the report has no test case:\n%s", name, data)
	}
}

// checkRoffPage: every request of the page is one of the macros mcpwire
// writes, and no text line is a request.
func checkRoffPage(t *testing.T, name, page string) {
	t.Helper()
	known := map[string]bool{"TH": true, "SH": true, "TP": true, "B": true, "RB": true, "IR": true, "I": true, "RI": true, "RS": true, "RE": true, "PP": true, "nf": true, "fi": true}
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, ".") && !strings.HasPrefix(line, "'") {
			continue
		}
		req, _, _ := strings.Cut(line[1:], " ")
		if line[0] == '\'' || !known[req] {
			t.Errorf("%s: a request not mcpwire's: %q", name, line)
		}
	}
	// groff, when installed, reads the page with every warning on.
	if groff, err := exec.LookPath("groff"); err == nil {
		cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
		cmd.Stdin = strings.NewReader(page)
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			t.Errorf("%s: groff: %v\n%s", name, err, out)
		}
	}
}

// checkMarkdownDiff reads diff --markdown: outside code spans, with
// backslash escapes taken out, nothing can be HTML (<), an entity (&), a
// link or an image ([ ] !), an autolink (://, www., @) or a heading or
// quote of the server's; every change has its row, and the verdict
// stands last.
func checkMarkdownDiff(t *testing.T, name string, w *walkEnv, md, old, url1 string) {
	t.Helper()
	var rep struct {
		Changes []json.RawMessage `json:"changes"`
	}
	doc, _, _ := w.run("diff", old, url1, "--json")
	if err := json.Unmarshal([]byte(doc), &rep); err != nil || len(rep.Changes) == 0 {
		t.Fatalf("diff --json: %v, %d changes", err, len(rep.Changes))
	}
	rows := 0
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	for i, line := range lines {
		plain, err := markdownOutsideCode(line)
		if err != nil {
			t.Errorf("%s: line %d: %v: %q", name, i+1, err, line)
			continue
		}
		for _, bad := range []string{"<", ">", "&", "[", "]", "!", "://", "www.", "@"} {
			if strings.Contains(plain, bad) {
				t.Errorf("%s: line %d has a live %q: %q", name, i+1, bad, line)
			}
		}
		if strings.HasPrefix(line, "#") && i != 0 {
			t.Errorf("%s: line %d is a heading: %q", name, i+1, line)
		}
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| | item") {
			rows++
			if cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|"); cells != 4 {
				t.Errorf("%s: row %q has %d cell borders, want 4", name, line, cells)
			}
		}
	}
	if rows != len(rep.Changes) {
		t.Errorf("%s: %d rows for %d changes:\n%s", name, rows, len(rep.Changes), md)
	}
	// As GitHub shows it: cmark-gfm's HTML has no element, comment or
	// link of the server's, and a row for each change.
	html, err := hostile.RenderGFM(md)
	switch {
	case errors.Is(err, hostile.ErrNoRenderer) && os.Getenv("CI") != "true":
		t.Logf("%s: %v; the renderer's check is left out", name, err)
	case err != nil:
		t.Errorf("%s: %v", name, err)
	default:
		if err := hostile.CheckHTML(html); err != nil {
			t.Errorf("%s: rendered, %v", name, err)
		}
		if n := strings.Count(html, "<tr>") - 1; n != len(rep.Changes) {
			t.Errorf("%s: rendered, %d rows for %d changes", name, n, len(rep.Changes))
		}
	}
	if strings.Contains(name, "--fail-on") {
		if last := lines[len(lines)-1]; !strings.HasPrefix(last, "`--fail-on ") {
			t.Errorf("%s: the verdict is not the last line: %q", name, last)
		}
	}
}

// markdownOutsideCode returns a line's text outside its code spans, each
// backslash escape taken out.
func markdownOutsideCode(line string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line):
			i += 2
		case c == '`':
			n := 0
			for i+n < len(line) && line[i+n] == '`' {
				n++
			}
			fence := line[i : i+n]
			j := i + n
			for {
				k := strings.Index(line[j:], fence)
				if k < 0 {
					return "", errors.New("a code span does not end")
				}
				j += k
				if j+n < len(line) && line[j+n] == '`' {
					j += n
					for j < len(line) && line[j] == '`' {
						j++
					}
					continue
				}
				break
			}
			if strings.Contains(strings.ReplaceAll(line[i+n:j], `\|`, ""), "|") {
				return "", errors.New("a | inside a code span ends its cell")
			}
			i = j + n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}
