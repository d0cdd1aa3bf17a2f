package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// chromiumFlags run Debian's chromium headless on a machine with no
// network but loopback: no sandbox (tests may run as root), no GPU, and
// none of the background connections that would be refused.
var chromiumFlags = []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"}

// findChromium returns Debian's chromium (scripts/chromium.sh installs it
// for CI), or skips; under CI=true a missing browser fails.
func findChromium(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := exec.LookPath(path); err != nil {
		if peers.InCI() {
			t.Fatalf("no chromium at %s: scripts/chromium.sh installs it (apt-get install chromium, as root)", path)
		}
		t.Skipf("no chromium at %s (scripts/chromium.sh installs it)", path)
	}
	return path
}

// TestLoginRealBrowser logs in to the TypeScript SDK's OAuth example
// server with a real headless Chromium as BROWSER: Chromium opens the
// authorization address, the example's authorization server redirects it
// to mcpwire's loopback callback, and the page Chromium ends on is
// mcpwire's. Then the token works: test and call succeed.
func TestLoginRealBrowser(t *testing.T) {
	proctest.Check(t)
	chromium := findChromium(t)
	url := peers.SDKOAuthExample(t)
	r := newRunner(t)

	// BROWSER is a small program that runs Chromium on the address and
	// keeps the page it ended on (the DOM), so the test can read it.
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	script := filepath.Join(dir, "browser.sh")
	var b strings.Builder
	b.WriteString("#!/bin/sh\nexec " + shellQuote(chromium))
	for _, f := range chromiumFlags {
		b.WriteString(" " + f)
	}
	b.WriteString(" --user-data-dir=" + shellQuote(filepath.Join(dir, "profile")) + " --dump-dom \"$1\" >" + shellQuote(page) + " 2>" + shellQuote(filepath.Join(dir, "chromium.log")) + "\n")
	if err := os.WriteFile(script, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	r.env["BROWSER"] = script

	r.run(0, "add", "sdk", "--url", url)
	stdout, stderr := r.run(0, "login", "sdk")
	if !strings.Contains(stdout, "logged in to sdk") {
		t.Fatalf("login said:\n%s\n%s", stdout, stderr)
	}
	dom, err := os.ReadFile(page)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "chromium.log"))
		t.Fatalf("chromium left no page: %v\n%s", err, log)
	}
	if !strings.Contains(string(dom), "Authorization complete") {
		t.Fatalf("chromium did not end on mcpwire's callback page:\n%s", dom)
	}
	checkMode(t, filepath.Join(r.home, "mcp-tokens", "sdk.json"))
	stdout, _ = r.run(0, "call", "sdk", "greet", "name=chromium")
	if !strings.Contains(stdout, "chromium") {
		t.Fatalf("call greet after the login:\n%s", stdout)
	}
}
