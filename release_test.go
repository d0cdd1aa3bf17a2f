package main

import (
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// maxReleaseBytes bounds the linux/amd64 release binary (issue 15: at
// most 9 MB). scripts/release.sh checks the same bound.
const maxReleaseBytes = 9_000_000

// TestReleaseScript runs scripts/release.sh for linux/amd64 and checks what
// it promises: a static binary (no program interpreter, built without
// cgo), stripped, within the size bound, and a SHA256SUMS file that sums
// it. The other five targets are the same command with other GOOS and
// GOARCH; CI builds darwin and windows in test.sh.
func TestReleaseScript(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release binary; -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", "scripts/release.sh", out)
	cmd.Env = append(os.Environ(), "TARGETS=linux/amd64", "VERSION=test")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, b)
	}
	bin := filepath.Join(out, "mcpwire-test-linux-amd64")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("linux/amd64 release binary: %d bytes (bound %d)", len(data), maxReleaseBytes)
	if len(data) > maxReleaseBytes {
		t.Errorf("the linux/amd64 release binary is %d bytes, more than %d: see what grew with go tool nm -size -sort size", len(data), maxReleaseBytes)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("the binary asks for a program interpreter: it is not static")
		}
	}
	if f.Section(".symtab") != nil {
		t.Errorf("the binary has a symbol table: not stripped (-ldflags='-s -w')")
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if want := hex.EncodeToString(sum[:]) + "  mcpwire-test-linux-amd64\n"; string(sums) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant:\n%s", sums, want)
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		v, err := exec.Command(bin, "version").Output()
		if err != nil || !strings.HasPrefix(string(v), "mcpwire ") {
			t.Errorf("the release binary's version: %v\n%s", err, v)
		}
		// Built without HTTP/2, its HTTP client and server still work.
		home := t.TempDir()
		cmd := exec.Command(bin, "--home", home, "test", "--demo=http")
		cmd.Dir = home
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "✓ demo http") {
			t.Errorf("the release binary's test --demo=http: %v\n%s", err, out)
		}
	}
}
