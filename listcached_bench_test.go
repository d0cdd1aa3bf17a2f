package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// `mcpwire list --cached` over 8 configured servers whose tools the list
// cache holds (issue 28 item 4: under 50 ms as a whole process): nothing
// is started, the answer comes from the home's list-cache.json. Its floor,
// BenchmarkListCachedFloor, is the same binary's start and exit (mcpwire
// --version) with the same home. Both binaries and the cache are made
// before the timer.

// listCachedHome makes a home of 8 demo servers and fills its list cache
// with one `mcpwire list`; it returns the binary and the environment.
func listCachedHome(b *testing.B) (string, []string) {
	dir := b.TempDir()
	bin := buildFor(b, ".", dir, "mcpwire")
	env := append(os.Environ(), "MCPWIRE_HOME="+dir, "HOME="+dir, "XDG_CONFIG_HOME="+dir)
	run := func(args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("mcpwire %v: %v\n%s", args, err, out)
		}
	}
	for i := range 8 {
		run("add", fmt.Sprintf("demo%d", i), "--", bin, "serve-demo")
	}
	run("list")
	cmd := exec.Command(bin, "list", "--cached")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "8 from the list cache") {
		b.Fatalf("list --cached: %v\n%s", err, out)
	}
	return bin, env
}

func benchListCached(b *testing.B, args ...string) {
	bin, env := listCachedHome(b)
	for b.Loop() {
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("mcpwire %v: %v\n%s", args, err, out)
		}
	}
}

// BenchmarkListCachedFloor is the binary's start and exit.
func BenchmarkListCachedFloor(b *testing.B) { benchListCached(b, "--version") }

// BenchmarkListCached8 is `mcpwire list --cached` over 8 cached servers.
func BenchmarkListCached8(b *testing.B) { benchListCached(b, "list", "--cached") }
