package cli_test

import (
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestSpinnerCountsServers: on a terminal, list's and doctor's spinner
// says how many servers are done. One server answers at once, the other
// sleeps before serving; the spinner shows "1 of 2 done", then Ctrl-C
// ends the command (exit 130) and its servers.
func TestSpinnerCountsServers(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "add", "fast", "--", r.bin, "serve-demo").want(t, 0)
	r.run(t, "add", "slow", "--", r.bin, "serve-demo", "--start-delay", "1h").want(t, 0)
	for _, c := range []struct{ cmd, line string }{
		{"list", "connecting to 2 servers — 1 of 2 done"},
		{"doctor", "checking 2 servers — 1 of 2 done"},
	} {
		scr, m, exited, code := ptyRun(t, r.bin, r.dir, append(r.env, "TERM=dumb"), c.cmd, "--startup-timeout", "1h")
		scr.waitFor(t, c.line, exited)
		if _, err := m.Write([]byte{0x03}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(hang):
			t.Fatalf("%s still runs after Ctrl-C:\n%s", c.cmd, scr.String())
		}
		if *code != 130 {
			t.Errorf("%s after Ctrl-C: exit %d, want 130\n%s", c.cmd, *code, scr.String())
		}
	}
}
