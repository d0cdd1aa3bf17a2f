package cli_test

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/manager"
)

// TestServeReleasesSubscriptions: a host session of serve that ends
// takes its resource subscriptions with it. Over --listen, two legacy
// host sessions subscribe to one resource of a server behind; when the
// first ends (its DELETE) the server is still subscribed for the other,
// when the second ends too serve unsubscribes it. Over stdio, the host's
// end of stdin ends the subscription on the server before serve exits.
// A modern host's subscription (its subscriptions/listen stream) holds
// one on the server while the stream is open.
// The server is the demo over HTTP with --verbose, run here so that it
// outlives serve: its demo://status shows the subscriptions of serve's
// session with it, and its stderr every request it got.
func TestServeReleasesSubscriptions(t *testing.T) {
	r := newRunner(t)
	demoURL, received := startDemoLog(t, r, "serve-demo", "--era=legacy", "--verbose", "--http", "127.0.0.1:0")
	r.run(t, "add", "d", "--url", demoURL).want(t, 0)
	releasesSubscriptions(t, r, received, []string{"serve", "d"})
}

// TestProxyReleasesSubscriptions is TestServeReleasesSubscriptions
// through proxy: it counts its hosts' subscriptions with serve's
// bookkeeping (mcpserver.Subscriptions).
func TestProxyReleasesSubscriptions(t *testing.T) {
	r := newRunner(t)
	demoURL, received := startDemoLog(t, r, "serve-demo", "--era=legacy", "--verbose", "--http", "127.0.0.1:0")
	releasesSubscriptions(t, r, received, []string{"proxy", demoURL})
}

// releasesSubscriptions drives the bridge of cmd (serve or proxy and its
// target, a legacy demo over HTTP whose stderr is received) as
// TestServeReleasesSubscriptions says.
func releasesSubscriptions(t *testing.T, r *runner, received <-chan string, cmd []string) {
	url, stop := startListen(t, r, append(append([]string{}, cmd...), "--listen", "127.0.0.1:0")...)
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	host := func(spec *manager.Spec) *manager.Conn {
		t.Helper()
		if spec.ProtocolVersion == "" {
			spec.ProtocolVersion = "2025-11-25" // sessions are the legacy era's
		}
		c, err := manager.Dial(ctx, spec, &manager.DialOptions{Environ: r.env})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	status := func(c *manager.Conn) string {
		t.Helper()
		res, err := c.ReadResource(ctx, "demo://status")
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("demo://status through serve: %+v %v", res, err)
		}
		return res.Contents[0].Text
	}
	const uri = "demo://readme"
	a := host(&manager.Spec{Name: "a", Transport: "http", URL: url})
	b := host(&manager.Spec{Name: "b", Transport: "http", URL: url})
	defer b.Close()
	for _, c := range []*manager.Conn{a, b} {
		if err := c.Subscribe(ctx, uri); err != nil {
			t.Fatal(err)
		}
	}
	if s := status(b); !strings.Contains(s, `"subscriptions":["`+uri+`"]`) {
		t.Fatalf("serve did not subscribe on the server: %s", s)
	}
	a.Close() // DELETE: the session ends
	if s := status(b); !strings.Contains(s, `"subscriptions":["`+uri+`"]`) {
		t.Fatalf("one host's session ended and serve unsubscribed another's: %s", s)
	}
	b.Close()
	c := host(&manager.Spec{Name: "c", Transport: "http", URL: url})
	defer c.Close()
	if s := status(c); !strings.Contains(s, `"subscriptions":[]`) {
		t.Fatalf("the last host's session ended and the server is still subscribed: %s", s)
	}
	waitForLine(ctx, t, received, "<- resources/unsubscribe")

	// Over stdio: the host ends its session by closing serve's stdin.
	stdio := append([]string{"--home", r.home}, cmd...)
	d := host(&manager.Spec{Name: "bridge", Transport: "stdio", Command: r.bin, Args: stdio})
	if err := d.Subscribe(ctx, uri); err != nil {
		t.Fatal(err)
	}
	waitForLine(ctx, t, received, "<- resources/subscribe")
	d.Close()
	waitForLine(ctx, t, received, "<- resources/unsubscribe")

	// A modern host subscribes with subscriptions/listen: serve
	// subscribes on the server while the stream is open, and not after
	// (the host unsubscribes, its stream ends; it subscribes again and
	// ends its session).
	m := host(&manager.Spec{Name: "bridge", Transport: "stdio", Command: r.bin, ProtocolVersion: "2026-07-28", Args: stdio})
	defer m.Close()
	if err := m.Subscribe(ctx, uri); err != nil {
		t.Fatal(err)
	}
	waitForLine(ctx, t, received, "<- resources/subscribe")
	if s := status(m); !strings.Contains(s, `"subscriptions":["`+uri+`"]`) {
		t.Fatalf("a modern host's subscription did not reach the server: %s", s)
	}
	if err := m.Unsubscribe(ctx, uri); err != nil {
		t.Fatal(err)
	}
	waitForLine(ctx, t, received, "<- resources/unsubscribe")
	if err := m.Subscribe(ctx, uri); err != nil {
		t.Fatal(err)
	}
	waitForLine(ctx, t, received, "<- resources/subscribe")
	m.Close()
	waitForLine(ctx, t, received, "<- resources/unsubscribe")
}

// startDemoLog runs mcpwire with args (a server that says where it
// listens) and returns its URL and its stderr, line by line; t.Cleanup
// stops it.
func startDemoLog(t *testing.T, r *runner, args ...string) (string, <-chan string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = r.dir, r.env, 5*time.Second
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Start()
	w.Close()
	if err != nil {
		cancel()
		out.Close()
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default: // the test reads what it waits for; the rest may go
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		<-drained
		out.Close()
	})
	re := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)`)
	deadline := time.NewTimer(hang)
	defer deadline.Stop()
	for {
		select {
		case l := <-lines:
			if m := re.FindStringSubmatch(l); m != nil {
				return m[1], lines
			}
		case <-deadline.C:
			t.Fatalf("mcpwire %v did not say where it listens", args)
		}
	}
}

// waitForLine reads lines until one contains want, or fails t when ctx ends.
func waitForLine(ctx context.Context, t *testing.T, lines <-chan string, want string) {
	t.Helper()
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, want) {
				return
			}
		case <-ctx.Done():
			t.Fatalf("no %q from the server", want)
		}
	}
}
