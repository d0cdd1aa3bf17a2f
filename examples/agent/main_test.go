package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestMain doubles as the person's browser of the login step: run with
// AGENT_TEST_BROWSER=1 and the authorization URL, it approves at once.
func TestMain(m *testing.M) {
	if os.Getenv("AGENT_TEST_BROWSER") == "1" && len(os.Args) == 2 {
		if err := fakeauth.Approve(os.Args[1]); err != nil {
			fmt.Fprintln(os.Stderr, "browser:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAgent builds the example and runs it as its user would: adds a
// stdio server (the mounted command line's demo server) and an HTTP
// server that needs a login, lists the tools (the login is reported
// with a command that works), logs in through the mounted command line,
// lists and calls again. Every output is checked.
func TestAgent(t *testing.T) {
	proctest.Check(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "agent")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	browser, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f := fakeauth.New(t)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "AGENT_HOME=" + filepath.Join(dir, "home"),
		"TMPDIR=" + t.TempDir(), "BROWSER=" + browser, "AGENT_TEST_BROWSER=1", "NO_COLOR=1"}
	run := func(want int, args ...string) (stdout, stderr string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env, cmd.Dir = env, dir
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		cmd.WaitDelay = 5 * time.Second
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("agent %s: %v", strings.Join(args, " "), err)
		}
		if code != want {
			t.Fatalf("agent %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, o.String(), e.String())
		}
		if strings.Contains(o.String()+e.String(), fakeauth.Leak) {
			t.Fatalf("agent %s: a secret in the output", strings.Join(args, " "))
		}
		return o.String(), e.String()
	}
	names := func(stdout string) []string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
			name, _, _ := strings.Cut(line, "\t")
			out = append(out, name)
		}
		return out
	}
	demoTools := []string{"echo", "add", "sleep", "fail", "big", "crash", "notify", "env", "roots", "ask", "sample", "image"}
	qualified := func(server string) []string {
		var out []string
		for _, n := range demoTools {
			out = append(out, "mcp__"+server+"__"+n)
		}
		return out
	}

	stdout, _ := run(0, "mcp", "add", "local", "--", bin, "mcp", "serve-demo")
	if !strings.Contains(stdout, "try it: agent mcp test local") {
		t.Fatalf("add:\n%s", stdout)
	}
	run(0, "mcp", "add", "remote", "--url", f.URL+"/mcp")

	stdout, stderr := run(0)
	if got := names(stdout); !slices.Equal(got, qualified("local")) {
		t.Fatalf("tools:\n%s\nwant %v", stdout, qualified("local"))
	}
	if !strings.Contains(stdout, "mcp__local__echo\tReturns the text it is given.\n") {
		t.Fatalf("tool line:\n%s", stdout)
	}
	// Two lines, in either order (OnLoginNeeded runs on the Manager's
	// goroutine, beside the program's own).
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	slices.Sort(lines)
	if want := []string{"agent: remote needs a login: agent mcp login remote", "agent: remote: needs login"}; !slices.Equal(lines, want) {
		t.Fatalf("stderr:\n%s\nwant the lines %q", stderr, want)
	}

	stdout, _ = run(0, strings.Fields("mcp login remote")...)
	if !strings.HasPrefix(stdout, "logged in to remote (scopes mcp:read, expires ") {
		t.Fatalf("login:\n%s", stdout)
	}
	stdout, stderr = run(0)
	if got := names(stdout); !slices.Equal(got, append(qualified("local"), qualified("remote")...)) || stderr != "" {
		t.Fatalf("tools after the login:\n%s\nstderr:\n%s", stdout, stderr)
	}
	stdout, _ = run(0, "call", "mcp__remote__echo", `{"text":"hello from the agent"}`)
	if stdout != "hello from the agent\n" {
		t.Fatalf("call: %q", stdout)
	}
	_, stderr = run(1, "call", "mcp__local__nosuch")
	if !strings.Contains(stderr, `no tool "mcp__local__nosuch"`) {
		t.Fatalf("call of an unknown tool:\n%s", stderr)
	}
	stdout, _ = run(0, "mcp", "help")
	if !strings.Contains(stdout, "Usage: agent mcp <command>") {
		t.Fatalf("help:\n%s", stdout)
	}
}
