package scripttest

import (
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestScripts(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripts use sh")
	}
	Run(t, &Params{Dir: "testdata"})
}

// run runs an inline script and returns its log and error.
func run(t *testing.T, p *Params, script string) (string, error) {
	t.Helper()
	if p == nil {
		p = &Params{}
	}
	return runScript(p, "test.txtar", []byte(script), t.TempDir())
}

func TestFailures(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the scripts use sh")
	}
	tests := []struct {
		script string
		want   []string // substrings of the error
	}{
		{"exec false", []string{"test.txtar:1: exec false", "unexpected failure", "exit status 1"}},
		{"! exec true", []string{"unexpected success"}},
		{"# c\n\nexec echo hi\nstdout bye", []string{"test.txtar:4: stdout bye", "no match for `bye` in stdout", "[stdout]\nhi"}},
		{"exec echo hi\n! stdout h.", []string{"unexpected match of `h.` in stdout: \"hi\""}},
		{"exec echo hi\nstderr x", []string{"stderr is empty"}},
		{"exec echo hi\nstdout -count=2 hi", []string{"1 matches of `hi` in stdout, want 2"}},
		{"! exec sh -c 'exit 4'\nstatus 5", []string{"exit status 4, want 5"}},
		{"status 0", []string{"no program has run yet"}},
		{"exec sh -c 'kill -9 $$'", []string{"program failed", "killed"}},
		{"! exec sh -c 'kill -9 $$'", []string{"program failed", "killed"}},
		{"frobnicate", []string{`unknown command "frobnicate"`}},
		{"[nosuch] exec true", []string{`unknown condition "nosuch"`}},
		{"exec no-such-program-xyz", []string{"no-such-program-xyz: not found in PATH"}},
		{"mcpwire version", []string{"no mcpwire binary"}},
		{"exec echo 'open", []string{"unterminated quoted argument"}},
		{"cmp a b\n-- a --\nx\n-- b --\ny\n", []string{"a and b differ", "first difference at line 1", `-"x"`, `+"y"`}},
		{"exists nope", []string{"nope does not exist"}},
		{"stdout &", []string{"only mcpwire and exec can run in the background"}},
		{"-- ../evil --\nx\n", []string{"want a clean relative path"}},
	}
	for _, tt := range tests {
		log, err := run(t, nil, tt.script)
		if err == nil {
			t.Errorf("script %q: no error; log:\n%s", tt.script, log)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error()+"\n"+log, w) {
				t.Errorf("script %q: error %q (log %q) does not contain %q", tt.script, err, log, w)
			}
		}
	}
}

func TestSkip(t *testing.T) {
	_, err := run(t, nil, "skip not today\nexec false")
	var skip *skipError
	if !errors.As(err, &skip) || skip.msg != "not today" {
		t.Fatalf("err = %v, want a skip", err)
	}
}

func TestLongOutputIsCut(t *testing.T) {
	_, err := run(t, nil, "exec sh -c 'i=0; while [ $i -lt 2000 ]; do echo line-$i; i=$((i+1)); done'\nstdout nomatch")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, "bytes cut") || !strings.Contains(msg, "line-0\n") || !strings.Contains(msg, "line-1999") {
		t.Fatalf("error not cut in the middle: %d bytes", len(msg))
	}
	if len(msg) > 3*maxShown {
		t.Fatalf("error too long: %d bytes", len(msg))
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks the process table through pidfd (linux)")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// A grandchild in the background records its pid; the leader hangs.
	script := "exec sh -c 'sleep 1000 & echo $! > " + pidFile + "; wait'"
	_, err := run(t, &Params{CommandTimeout: 500 * time.Millisecond}, script)
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	assertGone(t, pidFile)
}

func TestGrandchildKilledAfterExit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks the process table through pidfd (linux)")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	// The leader exits at once, leaving a grandchild that holds no pipes.
	script := "exec sh -c 'sleep 1000 >/dev/null 2>&1 </dev/null & echo $! > " + pidFile + "'"
	if log, err := run(t, nil, script); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	assertGone(t, pidFile)
}

func TestBackgroundKilledAtEnd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("checks the process table through pidfd (linux)")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	script := "exec sh -c 'echo $$ > " + pidFile + "; exec sleep 1000' &\nexec sh -c 'while [ ! -s " + pidFile + " ]; do sleep 0.01; done'"
	if log, err := run(t, nil, script); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	assertGone(t, pidFile)
}
