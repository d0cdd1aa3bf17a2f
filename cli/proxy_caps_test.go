package cli_test

import (
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// capsTools are the tools server-everything lists only to a client that
// declared roots, elicitation or sampling: what it lists shows what the
// proxy declared to it.
var capsTools = []string{"get-roots-list", "trigger-elicitation-request", "trigger-sampling-request"}

// listed says which of capsTools a `test --json` output lists.
func listed(stdout string) []string {
	var got []string
	for _, name := range capsTools {
		if strings.Contains(stdout, `"`+name+`"`) {
			got = append(got, name)
		}
	}
	return got
}

// TestProxyDeclaresHostCaps: the proxy declares to its target what its
// host declared, no more. server-everything (legacy, stdio) lists none
// of capsTools to a host of either era that declared nothing, through
// proxy as directly, and get-roots-list to one that declared roots; the
// demo (each era) tells a host that declared no roots that it did not.
// Over --listen the target is told the union of what the hosts
// declared: a host that declares roots has it connected again
// declaring them, and the hosts after it see what that declares.
func TestProxyDeclaresHostCaps(t *testing.T) {
	proctest.Check(t)
	everything := peers.Everything(t)
	r := newRunner(t)
	proxy := append([]string{"--", r.bin, "proxy", "--"}, everything...)
	for _, pin := range []string{"--protocol=2026-07-28", "--protocol=2025-11-25"} {
		res := r.run(t, append([]string{"test", "--json", pin}, proxy...)...).want(t, 0)
		if got := listed(res.stdout); len(got) != 0 || !strings.Contains(res.stdout, `"echo"`) {
			t.Errorf("%s, a host that declared nothing: server-everything lists %v through proxy:\n%s", pin, got, res)
		}
		res = r.run(t, append([]string{"test", "--json", pin, "--root", r.dir}, proxy...)...).want(t, 0)
		if got := listed(res.stdout); len(got) != 1 || got[0] != "get-roots-list" {
			t.Errorf("%s, a host that declared roots: server-everything lists %v through proxy, want get-roots-list:\n%s", pin, got, res)
		}
		for _, era := range []string{"--era=modern", "--era=legacy"} {
			res = r.run(t, "call", pin, "roots", "--", r.bin, "proxy", "--", r.bin, "serve-demo", era)
			if !strings.Contains(res.stdout+res.stderr, "the client did not declare the roots capability") {
				t.Errorf("%s, demo %s: a host that declared no roots is not told so through proxy:\n%s", pin, era, res)
			}
		}
	}

	url, stop := startProxyListen(t, r, append([]string{"--"}, everything...)...)
	defer stop()
	for i, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--protocol=2025-11-25"}, 0},
		{[]string{"--protocol=2026-07-28"}, 0},
		{[]string{"--protocol=2025-11-25", "--root", r.dir}, 1},
		{[]string{"--protocol=2026-07-28"}, 1}, // the union
	} {
		res := r.run(t, append([]string{"test", "--json", url}, c.args...)...).want(t, 0)
		if got := listed(res.stdout); len(got) != c.want || !strings.Contains(res.stdout, `"echo"`) {
			t.Errorf("--listen, host %d %v: server-everything lists %v, want %d of %v:\n%s", i+1, c.args, got, c.want, capsTools, res)
		}
	}
}
