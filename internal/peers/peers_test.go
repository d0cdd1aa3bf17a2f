package peers

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peers-test","version":"0"}}}`

func TestRoot(t *testing.T) {
	root := Root(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("Root = %q: %v", root, err)
	}
}

func TestEverythingStdio(t *testing.T) {
	argv := Everything(t)
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(initialize + "\n")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the initialize answer: %v", err)
	}
	if !strings.Contains(line, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize answer: %s", line)
	}
}

func TestEverythingHTTP(t *testing.T) {
	for _, mode := range []string{"streamable", "sse"} {
		var host string
		t.Run(mode, func(t *testing.T) {
			u := EverythingHTTP(t, mode)
			pu, err := url.Parse(u)
			if err != nil {
				t.Fatal(err)
			}
			host = pu.Host
			if !strings.HasPrefix(host, "127.0.0.1:") {
				t.Fatalf("URL %s is not on 127.0.0.1", u)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var req *http.Request
			if mode == "streamable" {
				req, _ = http.NewRequestWithContext(ctx, "POST", u, strings.NewReader(initialize))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
			} else {
				req, _ = http.NewRequestWithContext(ctx, "GET", u, nil)
				req.Header.Set("Accept", "text/event-stream")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			want := `"protocolVersion":"2025-11-25"`
			if mode == "sse" {
				want = "event: endpoint"
			}
			// Read until the wanted text shows up; the SSE stream stays open.
			r := bufio.NewReader(io.LimitReader(resp.Body, 1<<20))
			for {
				line, err := r.ReadString('\n')
				if strings.Contains(line, want) {
					return
				}
				if err != nil {
					t.Fatalf("%s: %s: no %q in the answer: %v", mode, resp.Status, want, err)
				}
			}
		})
		if host == "" {
			continue
		}
		// The cleanup of the subtest killed the server: nothing listens there now.
		if c, err := net.DialTimeout("tcp", host, 5*time.Second); err == nil {
			c.Close()
			t.Errorf("%s: server still listening on %s after cleanup", mode, host)
		}
	}
}

func TestInstalled(t *testing.T) {
	node, everything, ok := Installed(Root(t))
	if !ok {
		t.Skip("peers not installed")
	}
	if node != Node(t) || everything != Everything(t)[1] {
		t.Fatalf("Installed = %s, %s; Node = %s, Everything = %v", node, everything, Node(t), Everything(t))
	}
	if _, _, ok := Installed(t.TempDir()); ok {
		t.Fatal("Installed in an empty directory = true")
	}
}
