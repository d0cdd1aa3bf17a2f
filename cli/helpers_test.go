package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/cli"
)

// hang bounds the waits of the tests that run mcpwire and watch it, so
// that a bug fails instead of hanging; it is not a timing assertion.
const hang = 60 * time.Second

// buildMcpwire returns the path of the real binary, built once for the
// whole test package (see cli.BuiltBinary).
func buildMcpwire(t *testing.T) string {
	t.Helper()
	return cli.BuiltBinary(t)
}

// A runner runs the binary with a home and a working directory of its own
// and an environment that holds only PATH, HOME, MCPWIRE_HOME, TMPDIR and
// Env.
type runner struct {
	bin  string
	home string // MCPWIRE_HOME
	dir  string // working directory
	env  []string
}

func newRunner(t *testing.T) *runner {
	t.Helper()
	base := t.TempDir()
	r := &runner{
		bin:  buildMcpwire(t),
		home: filepath.Join(base, "home", "mcpwire"),
		dir:  filepath.Join(base, "work"),
	}
	for _, d := range []string{r.dir, filepath.Join(base, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(base, "home"),
		"MCPWIRE_HOME=" + r.home,
		"TMPDIR=" + filepath.Join(base, "tmp"),
	}
	return r
}

// A result is what one run of the binary left.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (res *result) String() string {
	return "mcpwire " + strings.Join(res.args, " ") + "\n[exit " + strconv.Itoa(res.code) + "]\n[stdout]\n" + res.stdout + "\n[stderr]\n" + res.stderr
}

// run runs the binary with args, bounded by a minute, and returns its
// outputs and exit code.
func (r *runner) run(t *testing.T, args ...string) *result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = r.dir
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	res := &result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		res.code = ee.ExitCode()
	default:
		t.Fatalf("mcpwire %s: %v\n%s", strings.Join(args, " "), err, res)
	}
	return res
}

// want fails t unless res exited with code.
func (res *result) want(t *testing.T, code int) *result {
	t.Helper()
	if res.code != code {
		t.Fatalf("exit %d, want %d:\n%s", res.code, code, res)
	}
	return res
}

// lines splits s into its non-empty lines.
func lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}
