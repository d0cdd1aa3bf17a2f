package cli_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/peers"
)

// TestBridgesGoSDK: the Go SDK's client (v1.8.0's listfeatures, a host
// that is not ours) lists tools, resources, templates and prompts
// through proxy and serve, over stdio and over --listen, with the demo
// (modern-only and legacy-only) behind them.
func TestBridgesGoSDK(t *testing.T) {
	host := peers.GoSDK(t, "listfeatures")
	r := newRunner(t)
	r.run(t, "add", "old", "--", r.bin, "serve-demo", "--era=legacy").want(t, 0)
	r.run(t, "add", "modern", "--", r.bin, "serve-demo", "--era=modern").want(t, 0)
	check := func(how string, want []string, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, host, args...)
		cmd.Dir, cmd.Env, cmd.WaitDelay = r.dir, r.env, 5*time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the Go SDK client: %v\n%s", how, err, out)
		}
		for _, w := range append(want, "tools:", "resources:", "resource templates:", "prompts:") {
			if !strings.Contains(string(out), "\t"+w+"\n") && !strings.Contains(string(out), w+"\n") {
				t.Fatalf("%s: %q not listed:\n%s", how, w, out)
			}
		}
	}
	direct := []string{"echo", "readme", "item", "greet"}
	served := []string{"mcp__old__echo", "mcp__modern__add", "readme", "item", "mcp__old__greet", "mcp__modern__plain"}
	for _, era := range []string{"--era=modern", "--era=legacy"} {
		check("proxy over stdio "+era, direct, r.bin, "proxy", "--", r.bin, "serve-demo", era)
		url, stop := startProxyListen(t, r, "--", r.bin, "serve-demo", era)
		check("proxy --listen "+era, direct, "-http", url)
		stop()
	}
	check("serve over stdio", served, r.bin, "--home", r.home, "serve")
	url, stop := startListen(t, r, "serve", "--listen", "127.0.0.1:0")
	defer stop()
	check("serve --listen", served, "-http", url)
}

// TestBridgesGoSDKHost: the Go SDK's client (internal/peers/testdata/
// gosdkhost) in each era it speaks (2026-07-28 through server/discover,
// 2025-11-25 and 2025-06-18 through initialize) calls echo, add and an
// elicitation through proxy and serve, over stdio and --listen, with a
// server of each era behind. A modern host's elicitation comes to it
// as an input request of its call.
func TestBridgesGoSDKHost(t *testing.T) {
	host := peers.GoSDK(t, "gosdkhost")
	r := newRunner(t)
	r.run(t, "add", "old", "--", r.bin, "serve-demo", "--era=legacy").want(t, 0)
	r.run(t, "add", "modern", "--", r.bin, "serve-demo", "--era=modern").want(t, 0)
	check := func(how, protocol string, args ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, host, append([]string{"-protocol", protocol}, args...)...)
		cmd.Dir, cmd.Env, cmd.WaitDelay = r.dir, r.env, 5*time.Second
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s (%s): the Go SDK host: %v\n%s", how, protocol, err, out)
		}
		var got struct {
			Protocol, Echo, Asked string
			Sum                   float64
			Tools                 []string
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s (%s): %v\n%s", how, protocol, err, out)
		}
		want := protocol
		if want == "" {
			want = "2026-07-28"
		}
		if got.Protocol != want || got.Echo != "from the Go SDK" || got.Sum != 5 || !strings.Contains(got.Asked, `"Ada"`) || len(got.Tools) < 10 {
			t.Fatalf("%s (%s): %+v", how, protocol, got)
		}
	}
	for _, protocol := range []string{"", "2025-11-25", "2025-06-18"} {
		for _, era := range []string{"legacy", "modern"} {
			check("proxy, a "+era+" server", protocol, r.bin, "proxy", "--", r.bin, "serve-demo", "--era="+era)
		}
		check("serve", protocol, "-prefix", "mcp__old__", r.bin, "--home", r.home, "serve")
		check("serve", protocol, "-prefix", "mcp__modern__", r.bin, "--home", r.home, "serve")
	}
	url, stop := startProxyListen(t, r, "--", r.bin, "serve-demo", "--era=legacy")
	defer stop()
	surl, sstop := startListen(t, r, "serve", "--listen", "127.0.0.1:0")
	defer sstop()
	for _, protocol := range []string{"", "2025-11-25"} {
		check("proxy --listen", protocol, "-http", url)
		check("serve --listen", protocol, "-prefix", "mcp__modern__", "-http", surl)
	}
}
