package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// built is the real binary, built once for the whole test package by the
// first test that needs it (a build per test cost seconds each, and under
// load made tests slow enough to fail); TestMain removes it at the end.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

// BuiltBinary returns the path of the real mcpwire binary, building it on
// first use. It exists only in tests (this file is a _test.go file); the
// tests of package cli_test reach it through the package.
func BuiltBinary(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		if bin := os.Getenv("MCPWIRE_TEST_BINARY"); bin != "" {
			// Built beforehand (a Windows test binary run under wine,
			// where there is no go to build with: see
			// TestSessionsWindowsUnderWine).
			built.bin = bin
			return
		}
		built.dir, built.err = os.MkdirTemp("", "mcpwire-cli-test-")
		if built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "mcpwire")
		if runtime.GOOS == "windows" {
			bin += ".exe"
		}
		cmd := exec.Command("go", "build", "-o", bin, "github.com/mcpwire/mcpwire")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build mcpwire: %v\n%s", err, out)
			return
		}
		built.bin = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// removeBuilt removes the binary BuiltBinary built, if any.
func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}
