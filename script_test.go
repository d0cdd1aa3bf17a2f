package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
	"github.com/mcpwire/mcpwire/internal/scripttest"
)

// The mcpwire binary that the scripts run, built once by TestMain; or the
// reason it could not be built. TestMain sets them before any test runs and
// nothing changes them afterwards.
var (
	scriptBinary   string
	scriptBuildErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpwire-scripts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin := filepath.Join(dir, "mcpwire")
	if os.PathSeparator == '\\' {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		// Fail TestScripts alone: other tests of this package still run.
		scriptBuildErr = fmt.Errorf("go build -o mcpwire . failed: %v\n%s", err, out)
	} else {
		scriptBinary = bin
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestScripts runs every testdata/script/*.txtar against the real binary
// (see internal/scripttest for the script language). Besides the harness's
// conditions, [peers] holds when scripts/deps.sh installed the npm peers.
func TestScripts(t *testing.T) {
	if scriptBuildErr != nil {
		t.Fatal(scriptBuildErr)
	}
	// When every script is done, no process any of them started remains.
	proctest.Check(t)
	// Scripts that need the npm peers run under [peers], with $NODE22,
	// $EVERYTHING (server-everything's script: exec $NODE22 $EVERYTHING stdio)
	// and $SDKTASKS (the TypeScript SDK's tasks server: $NODE22 $SDKTASKS).
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	node, everything, ok := peers.Installed(root)
	if !ok && peers.InCI() {
		t.Fatal("the npm test peers are not installed; run scripts/deps.sh")
	}
	scripttest.Run(t, &scripttest.Params{
		Dir:        filepath.Join("testdata", "script"),
		Binary:     scriptBinary,
		Env:        []string{"NODE22=" + node, "EVERYTHING=" + everything, "SDKTASKS=" + filepath.Join(root, "scripts", "peers", "sdk-tasks-server.mjs")},
		Conditions: map[string]bool{"peers": ok},
	})
}
