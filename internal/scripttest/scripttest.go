package scripttest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/procgroup"
)

// Params says how to run scripts. The zero value runs scripts without a
// mcpwire binary (only exec and the built-in commands work).
type Params struct {
	// Dir holds the *.txtar scripts (for Run).
	Dir string
	// Binary is the path of the mcpwire binary run by the mcpwire command.
	Binary string
	// Env holds extra K=V entries added to every script's environment.
	Env []string
	// Conditions adds names usable in [cond] and [!cond].
	Conditions map[string]bool
	// CommandTimeout bounds every program (0 = 60s).
	CommandTimeout time.Duration
}

// Run runs every Dir/*.txtar file, one after the other, as a subtest of t named
// after the file (without .txtar).
func Run(t *testing.T, p *Params) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(p.Dir, "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("scripttest: no *.txtar files in %s", p.Dir)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) { RunFile(t, p, file) })
	}
}

// RunFile runs one script file in a new temporary work directory.
func RunFile(t *testing.T, p *Params, file string) {
	t.Helper()
	data, err := safe.ReadFile(file, safe.KindScript)
	if err != nil {
		t.Fatal(err)
	}
	log, err := runScript(p, filepath.Base(file), data, t.TempDir())
	var skip *skipError
	switch {
	case errors.As(err, &skip):
		t.Log(log)
		t.Skip(skip.msg)
	case err != nil:
		t.Fatalf("%s\n%v", log, err)
	}
}

// A skipError ends a script that ran skip.
type skipError struct{ msg string }

func (e *skipError) Error() string { return "skip: " + e.msg }

// A scriptError is a failure at one line of a script.
type scriptError struct {
	file string
	line int
	text string
	err  error
}

func (e *scriptError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %v", e.file, e.line, e.text, e.err)
}

// A state is one running script.
type state struct {
	p       *Params
	timeout time.Duration
	work    string
	dir     string // current directory
	env     []string
	stdin   []byte // for the next program, or nil
	stdout  string // of the last program
	stderr  string
	status  int  // exit code of the last program; -1 after a signal
	ran     bool // a program has run
	bg      []*proc
	log     strings.Builder
}

// A proc is a started program.
type proc struct {
	line    string
	neg     byte // 0, '!' or '?'
	cmd     *exec.Cmd
	stdout  bytes.Buffer
	stderr  bytes.Buffer
	done    chan struct{}
	group   *procgroup.Group
	err     error // from Wait
	timeout bool
}

// runScript runs the script of data (a txtar archive) in the directory work
// and returns its log and the first failure.
func runScript(p *Params, file string, data []byte, work string) (string, error) {
	s := &state{p: p, work: work, dir: work, timeout: p.CommandTimeout}
	if s.timeout <= 0 {
		s.timeout = 60 * time.Second
	}
	defer s.killBackground()
	home := filepath.Join(work, "home")
	s.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"WORK=" + work,
		"HOME=" + home,
		"MCPWIRE_HOME=" + filepath.Join(home, "mcpwire"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"TMPDIR=" + filepath.Join(work, "tmp"),
		"MCPWIRE=" + p.Binary,
	}
	if runtime.GOOS == "windows" {
		for _, k := range []string{"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT"} {
			s.env = append(s.env, k+"="+os.Getenv(k))
		}
	}
	for _, kv := range p.Env {
		s.setenv(kv)
	}
	for _, d := range []string{home, filepath.Join(home, "mcpwire"), filepath.Join(home, ".config"), filepath.Join(work, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	a := ParseArchive(data)
	for _, f := range a.Files {
		if err := checkName(f.Name); err != nil {
			return "", fmt.Errorf("%s: %v", file, err)
		}
		dst := filepath.Join(work, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
			return "", err
		}
	}
	for i, text := range strings.Split(string(a.Comment), "\n") {
		line := strings.TrimSpace(text)
		if line == "" || strings.HasPrefix(line, "#") {
			if line != "" {
				fmt.Fprintf(&s.log, "%s\n", line)
			}
			continue
		}
		if err := s.runLine(line); err != nil {
			var skip *skipError
			if errors.As(err, &skip) {
				return s.log.String(), err
			}
			return s.log.String(), &scriptError{file: file, line: i + 1, text: line, err: err}
		}
	}
	if len(s.bg) > 0 {
		fmt.Fprintf(&s.log, "(killing %d background programs left at the end)\n", len(s.bg))
	}
	return s.log.String(), nil
}

// runLine parses and runs one line of the script.
func (s *state) runLine(line string) error {
	words, err := splitLine(line)
	if err != nil {
		return err
	}
	// Conditions.
	for len(words) > 0 && !words[0].quoted && strings.HasPrefix(words[0].s, "[") && strings.HasSuffix(words[0].s, "]") {
		cond := words[0].s[1 : len(words[0].s)-1]
		words = words[1:]
		ok, err := s.condition(cond)
		if err != nil {
			return err
		}
		if !ok {
			fmt.Fprintf(&s.log, "> %s (skipped: [%s] is false)\n", line, cond)
			return nil
		}
	}
	var neg byte
	if len(words) > 0 && !words[0].quoted && (words[0].s == "!" || words[0].s == "?") {
		neg = words[0].s[0]
		words = words[1:]
	}
	background := false
	if n := len(words); n > 0 && !words[n-1].quoted && words[n-1].s == "&" {
		background = true
		words = words[:n-1]
	}
	if len(words) == 0 {
		return errors.New("missing command")
	}
	name := words[0].s
	regexpArgs := name == "stdout" || name == "stderr"
	args := make([]string, 0, len(words)-1)
	for _, w := range words[1:] {
		args = append(args, s.expand(w, regexpArgs))
	}
	fmt.Fprintf(&s.log, "> %s\n", line)
	if background && name != "mcpwire" && name != "exec" {
		return fmt.Errorf("only mcpwire and exec can run in the background")
	}
	if neg == '?' && name != "mcpwire" && name != "exec" {
		return fmt.Errorf("? applies to mcpwire and exec only")
	}
	switch name {
	case "mcpwire":
		if s.p.Binary == "" {
			return errors.New("no mcpwire binary given to the harness (Params.Binary)")
		}
		return s.program(line, neg, background, s.p.Binary, args)
	case "exec":
		if len(args) == 0 {
			return errors.New("usage: exec PROG [ARGS...]")
		}
		return s.program(line, neg, background, args[0], args[1:])
	case "status":
		return s.checkStatus(neg, args)
	case "stdin":
		if neg != 0 || len(args) != 1 {
			return errors.New("usage: stdin FILE")
		}
		data, err := s.readFile(args[0])
		if err != nil {
			return err
		}
		s.stdin = []byte(data)
		return nil
	case "stdout", "stderr":
		text := s.stdout
		if name == "stderr" {
			text = s.stderr
		}
		return s.match(name, text, neg, args)
	case "cmp", "cmpenv":
		return s.cmp(name, neg, args)
	case "env":
		if neg != 0 || len(args) == 0 {
			return errors.New("usage: env K=V...")
		}
		for _, kv := range args {
			if !strings.Contains(kv, "=") {
				return fmt.Errorf("env %q: want K=V", kv)
			}
			s.setenv(kv)
		}
		return nil
	case "exists":
		return s.exists(neg, args)
	case "cd":
		if neg != 0 || len(args) != 1 {
			return errors.New("usage: cd DIR")
		}
		dir := s.path(args[0])
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("cd %s: not a directory", args[0])
		}
		s.dir = dir
		return nil
	case "mkdir":
		if neg != 0 || len(args) == 0 {
			return errors.New("usage: mkdir DIR...")
		}
		for _, a := range args {
			if err := os.MkdirAll(s.path(a), 0o755); err != nil {
				return err
			}
		}
		return nil
	case "cp":
		return s.cp(neg, args)
	case "rm":
		if neg != 0 || len(args) == 0 {
			return errors.New("usage: rm PATH...")
		}
		for _, a := range args {
			if err := os.RemoveAll(s.path(a)); err != nil {
				return err
			}
		}
		return nil
	case "wait":
		if neg != 0 || len(args) != 0 {
			return errors.New("usage: wait")
		}
		return s.wait()
	case "skip":
		if neg != 0 {
			return errors.New("usage: skip [MSG]")
		}
		return &skipError{msg: strings.Join(args, " ")}
	}
	return fmt.Errorf("unknown command %q", name)
}

// condition evaluates the name inside [ ].
func (s *state) condition(cond string) (bool, error) {
	negate := strings.HasPrefix(cond, "!")
	cond = strings.TrimPrefix(cond, "!")
	var ok bool
	switch {
	case cond == "":
		return false, errors.New("empty condition")
	case cond == "unix":
		ok = runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	case cond == "ci":
		ok = os.Getenv("CI") == "true"
	case strings.HasPrefix(cond, "exec:"):
		_, err := exec.LookPath(strings.TrimPrefix(cond, "exec:"))
		ok = err == nil
	case knownOS[cond]:
		ok = runtime.GOOS == cond
	default:
		v, known := s.p.Conditions[cond]
		if !known {
			return false, fmt.Errorf("unknown condition %q", cond)
		}
		ok = v
	}
	return ok != negate, nil
}

var knownOS = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "illumos": true,
	"ios": true, "js": true, "linux": true, "netbsd": true, "openbsd": true, "plan9": true,
	"solaris": true, "wasip1": true, "windows": true,
}

// program starts a program and, in the foreground, waits for it and checks
// its outcome.
func (s *state) program(line string, neg byte, background bool, prog string, args []string) error {
	path := prog
	if !strings.ContainsAny(prog, `/\`) {
		lp, err := lookPath(prog, s.getenv("PATH"))
		if err != nil {
			return err
		}
		path = lp
	} else if !filepath.IsAbs(prog) {
		path = s.path(prog)
	}
	p := &proc{line: line, neg: neg, done: make(chan struct{})}
	p.cmd = exec.Command(path, args...)
	p.cmd.Dir = s.dir
	p.cmd.Env = slices.Clone(s.env)
	p.cmd.Stdout = &p.stdout
	p.cmd.Stderr = &p.stderr
	if s.stdin != nil {
		p.cmd.Stdin = bytes.NewReader(s.stdin)
		s.stdin = nil
	}
	// Once the leader exited, do not wait long for grandchildren that hold
	// the output pipes open: the group is killed below anyway.
	p.cmd.WaitDelay = 2 * time.Second
	g, err := procgroup.Start(p.cmd)
	if err != nil {
		return fmt.Errorf("starting %s: %v", prog, err)
	}
	p.group = g
	var timedOut atomic.Bool
	timer := time.AfterFunc(s.timeout, func() {
		timedOut.Store(true)
		g.Kill()
	})
	go func() {
		p.err = g.Wait()
		timer.Stop()
		p.timeout = timedOut.Load()
		g.Kill() // whatever the program left in its group
		close(p.done)
	}()
	if background {
		s.bg = append(s.bg, p)
		fmt.Fprintf(&s.log, "(started in the background, pid %d)\n", p.cmd.Process.Pid)
		return nil
	}
	<-p.done
	s.stdout, s.stderr = p.stdout.String(), p.stderr.String()
	s.ran = true
	s.status = exitCode(p.cmd.ProcessState)
	s.logOutputs(s.stdout, s.stderr)
	return s.outcome(p)
}

// outcome checks how a finished program ended against its prefix.
func (s *state) outcome(p *proc) error {
	fmt.Fprintf(&s.log, "[exit %d]\n", exitCode(p.cmd.ProcessState))
	switch {
	case p.timeout:
		return fmt.Errorf("killed after %v (timeout)", s.timeout)
	case p.err == nil && p.neg == '!':
		return errors.New("unexpected success (exit 0)")
	case p.err == nil || p.neg == '?':
		return nil
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) && ee.ExitCode() >= 0 {
		if p.neg == '!' {
			return nil
		}
		return fmt.Errorf("unexpected failure: %v", p.err)
	}
	if errors.Is(p.err, exec.ErrWaitDelay) && p.cmd.ProcessState != nil && p.cmd.ProcessState.Success() == (p.neg != '!') {
		return nil // exited as expected; a grandchild held the pipes
	}
	return fmt.Errorf("program failed: %v", p.err)
}

// wait collects the background programs.
func (s *state) wait() error {
	var out, errOut strings.Builder
	var first error
	for _, p := range s.bg {
		<-p.done
		out.WriteString(p.stdout.String())
		errOut.WriteString(p.stderr.String())
		fmt.Fprintf(&s.log, "(background: %s)\n", p.line)
		s.logOutputs(p.stdout.String(), p.stderr.String())
		if err := s.outcome(p); err != nil && first == nil {
			first = fmt.Errorf("%s: %v", p.line, err)
		}
		s.status = exitCode(p.cmd.ProcessState)
	}
	s.bg = nil
	s.stdout, s.stderr = out.String(), errOut.String()
	s.ran = true
	return first
}

// killBackground kills and reaps the background programs left.
func (s *state) killBackground() {
	for _, p := range s.bg {
		p.group.Kill()
		<-p.done
	}
	s.bg = nil
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	return ps.ExitCode()
}

func (s *state) checkStatus(neg byte, args []string) error {
	if neg != 0 || len(args) != 1 {
		return errors.New("usage: status N")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		return fmt.Errorf("status %q: not a number", args[0])
	}
	if !s.ran {
		return errors.New("status: no program has run yet")
	}
	if s.status != want {
		return fmt.Errorf("exit status %d, want %d", s.status, want)
	}
	return nil
}

func (s *state) match(name, text string, neg byte, args []string) error {
	count := -1
	if len(args) == 2 && strings.HasPrefix(args[0], "-count=") {
		n, err := strconv.Atoi(strings.TrimPrefix(args[0], "-count="))
		if err != nil || n < 0 {
			return fmt.Errorf("bad %s", args[0])
		}
		if neg != 0 {
			return errors.New("! with -count makes no sense")
		}
		count, args = n, args[1:]
	}
	if len(args) != 1 {
		return fmt.Errorf("usage: %s [-count=N] REGEXP", name)
	}
	re, err := regexp.Compile("(?m)" + args[0])
	if err != nil {
		return err
	}
	switch {
	case count >= 0:
		if n := len(re.FindAllStringIndex(text, -1)); n != count {
			return fmt.Errorf("%d matches of `%s` in %s, want %d%s", n, args[0], name, count, show(name, text))
		}
	case neg == '!':
		if m := re.FindString(text); re.MatchString(text) {
			return fmt.Errorf("unexpected match of `%s` in %s: %q%s", args[0], name, m, show(name, text))
		}
	default:
		if !re.MatchString(text) {
			return fmt.Errorf("no match for `%s` in %s%s", args[0], name, show(name, text))
		}
	}
	return nil
}

func (s *state) cmp(name string, neg byte, args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: %s A B", name)
	}
	a, err := s.readFile(args[0])
	if err != nil {
		return err
	}
	b, err := s.readFile(args[1])
	if err != nil {
		return err
	}
	if name == "cmpenv" {
		b = os.Expand(b, s.getenv)
	}
	if neg == '!' {
		if a == b {
			return fmt.Errorf("%s and %s are equal", args[0], args[1])
		}
		return nil
	}
	if a != b {
		return fmt.Errorf("%s and %s differ:\n%s", args[0], args[1], diff(a, b))
	}
	return nil
}

func (s *state) exists(neg byte, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: exists PATH...")
	}
	for _, a := range args {
		_, err := os.Stat(s.path(a))
		switch {
		case neg == '!' && err == nil:
			return fmt.Errorf("%s exists", a)
		case neg != '!' && err != nil:
			return fmt.Errorf("%s does not exist", a)
		}
	}
	return nil
}

func (s *state) cp(neg byte, args []string) error {
	if neg != 0 || len(args) < 2 {
		return errors.New("usage: cp SRC... DST")
	}
	dst := s.path(args[len(args)-1])
	fi, err := os.Stat(dst)
	dstDir := err == nil && fi.IsDir()
	if len(args) > 2 && !dstDir {
		return fmt.Errorf("cp: %s is not a directory", args[len(args)-1])
	}
	for _, src := range args[:len(args)-1] {
		data, err := s.readFile(src)
		if err != nil {
			return err
		}
		to := dst
		if dstDir {
			to = filepath.Join(dst, filepath.Base(src))
		}
		if err := os.WriteFile(to, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// readFile reads a file relative to the current directory; the names stdout
// and stderr give the last program's outputs.
func (s *state) readFile(name string) (string, error) {
	switch name {
	case "stdout":
		return s.stdout, nil
	case "stderr":
		return s.stderr, nil
	}
	data, err := safe.ReadFile(s.path(name), safe.KindScript)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

func (s *state) path(name string) string {
	if filepath.IsAbs(name) {
		return filepath.Clean(name)
	}
	return filepath.Join(s.dir, filepath.FromSlash(name))
}

func (s *state) getenv(key string) string {
	for i := len(s.env) - 1; i >= 0; i-- {
		if k, v, _ := strings.Cut(s.env[i], "="); k == key {
			return v
		}
	}
	return ""
}

func (s *state) setenv(kv string) {
	k, _, _ := strings.Cut(kv, "=")
	s.env = slices.DeleteFunc(s.env, func(e string) bool {
		ek, _, _ := strings.Cut(e, "=")
		return ek == k
	})
	s.env = append(s.env, kv)
}

// expand expands $VAR and ${VAR} in the unquoted fragments of w.
func (s *state) expand(w word, regexpArg bool) string {
	var b strings.Builder
	for _, f := range w.frags {
		if f.quoted {
			b.WriteString(f.s)
			continue
		}
		b.WriteString(os.Expand(f.s, func(k string) string {
			v := s.getenv(k)
			if regexpArg {
				v = regexp.QuoteMeta(v)
			}
			return v
		}))
	}
	return b.String()
}

// lookPath finds prog in the script's PATH.
func lookPath(prog, pathList string) (string, error) {
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" {
			continue
		}
		for _, ext := range exeExts() {
			p := filepath.Join(dir, prog+ext)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s: not found in PATH", prog)
}

func exeExts() []string {
	if runtime.GOOS == "windows" {
		return []string{".exe", ".bat", ".cmd", ""}
	}
	return []string{""}
}

// logOutputs adds a program's outputs to the log, cut when long.
func (s *state) logOutputs(stdout, stderr string) {
	if stdout != "" {
		fmt.Fprintf(&s.log, "[stdout]\n%s", ensureNL(truncate(stdout)))
	}
	if stderr != "" {
		fmt.Fprintf(&s.log, "[stderr]\n%s", ensureNL(truncate(stderr)))
	}
}

// show formats an output for an error message.
func show(name, text string) string {
	if text == "" {
		return " (" + name + " is empty)"
	}
	return "\n[" + name + "]\n" + ensureNL(truncate(text))
}

// maxShown is how much of an output a log or an error shows.
const maxShown = 4 << 10

func truncate(s string) string {
	if len(s) <= maxShown {
		return s
	}
	return s[:maxShown/2] + fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-maxShown) + s[len(s)-maxShown/2:]
}

func ensureNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// diff describes the first difference between a and b, line by line.
func diff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return truncate(fmt.Sprintf("first difference at line %d:\n-%q\n+%q\n[first]\n%s[second]\n%s", i+1, x, y, ensureNL(a), ensureNL(b)))
		}
	}
	return ""
}

// A word is one parsed argument: fragments, quoted or not.
type word struct {
	s      string // the raw text, for command names and prefixes
	quoted bool   // some part of the word was quoted
	frags  []frag
}

type frag struct {
	s      string
	quoted bool
}

// splitLine splits a script line into words: spaces and tabs separate
// words outside single quotes; a doubled quote inside quotes is one quote.
func splitLine(line string) ([]word, error) {
	var (
		words []word
		cur   word
		in    bool // inside a word
		buf   strings.Builder
	)
	flush := func(quoted bool) {
		if buf.Len() > 0 || quoted {
			cur.frags = append(cur.frags, frag{s: buf.String(), quoted: quoted})
			cur.s += buf.String()
			cur.quoted = cur.quoted || quoted
			buf.Reset()
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if in {
				flush(false)
				words = append(words, cur)
				cur, in = word{}, false
			}
		case c == '\'':
			flush(false)
			in = true
			j := i + 1
			for {
				k := strings.IndexByte(line[j:], '\'')
				if k < 0 {
					return nil, errors.New("unterminated quoted argument")
				}
				buf.WriteString(line[j : j+k])
				j += k + 1
				if j < len(line) && line[j] == '\'' {
					buf.WriteByte('\'')
					j++
					continue
				}
				break
			}
			flush(true)
			i = j - 1
		default:
			in = true
			buf.WriteByte(c)
		}
	}
	if in {
		flush(false)
		words = append(words, cur)
	}
	return words, nil
}
