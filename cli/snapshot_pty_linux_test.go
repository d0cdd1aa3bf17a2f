package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestSnapshotOnATerminalPinsTheClient: server-everything offers more
// tools to a client that declares elicitation. A snapshot taken on a
// terminal declares what one taken in a pipe does (the same bytes), and
// the README's CI recipe, diff in a pipe against the live server, finds no
// change. A snapshot taken with --elicit=defaults records that it
// declared elicitation, and diff in a pipe declares it too: still no change.
func TestSnapshotOnATerminalPinsTheClient(t *testing.T) {
	proctest.Check(t)
	cmd := peers.Everything(t)
	r := newRunner(t)
	onTerminal := func(args ...string) {
		t.Helper()
		scr, _, exited, code := ptyRun(t, r.bin, r.dir, append(r.env, "TERM=dumb"), args...)
		select {
		case <-exited:
		case <-time.After(hang):
			t.Fatalf("mcpwire %v still runs on the terminal:\n%s", args, scr.String())
		}
		if *code != 0 {
			t.Fatalf("mcpwire %v on a terminal: exit %d\n%s", args, *code, scr.String())
		}
	}
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	onTerminal(append([]string{"snapshot", "-o", "tty.json", "--"}, cmd...)...)
	r.run(t, append([]string{"snapshot", "-o", "pipe.json", "--"}, cmd...)...).want(t, 0)
	r.run(t, append([]string{"snapshot", "-o", "pipe2.json", "--"}, cmd...)...).want(t, 0)
	tty, pipe := read("tty.json"), read("pipe.json")
	if string(tty) != string(pipe) {
		t.Errorf("a snapshot on a terminal differs from one in a pipe:\n%s\n----\n%s", tty, pipe)
	}
	if string(pipe) != string(read("pipe2.json")) {
		t.Errorf("two snapshots in a pipe differ")
	}
	var snap struct {
		Tools  []struct{ Name string }
		Client struct {
			Elicitation  string
			Capabilities map[string]any
		}
	}
	if err := json.Unmarshal(tty, &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Client.Elicitation != "none" || snap.Client.Capabilities["elicitation"] != nil {
		t.Errorf("the terminal's snapshot declared elicitation: %+v", snap.Client)
	}
	res := r.run(t, append([]string{"diff", "tty.json", "--fail-on", "breaking", "--"}, cmd...)...).want(t, 0)
	if !strings.Contains(res.stdout, "no changes") || strings.Contains(res.stderr, "different client") {
		t.Errorf("diff of the terminal's snapshot against the live server:\n%s", res)
	}

	// Told otherwise: the snapshot declares elicitation, records it, and
	// diff declares it too.
	r.run(t, append([]string{"snapshot", "--elicit=defaults", "-o", "elicit.json", "--"}, cmd...)...).want(t, 0)
	var el struct {
		Tools  []struct{ Name string }
		Client struct{ Elicitation string }
	}
	if err := json.Unmarshal(read("elicit.json"), &el); err != nil {
		t.Fatal(err)
	}
	if el.Client.Elicitation != "defaults" || len(el.Tools) <= len(snap.Tools) {
		t.Errorf("with --elicit=defaults: %d tools (without: %d), client %+v", len(el.Tools), len(snap.Tools), el.Client)
	}
	res = r.run(t, append([]string{"diff", "elicit.json", "--fail-on", "any", "--"}, cmd...)...).want(t, 0)
	if !strings.Contains(res.stdout, "no changes") {
		t.Errorf("diff did not declare what the snapshot declared:\n%s", res)
	}
	// Two files taken with different declarations are compared, with a warning.
	res = r.run(t, "diff", "tty.json", "elicit.json").want(t, 0)
	if !strings.Contains(res.stderr, "different client declarations") {
		t.Errorf("no warning about the two declarations:\n%s", res)
	}
}
