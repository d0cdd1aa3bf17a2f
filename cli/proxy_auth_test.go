package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
	"github.com/mcpwire/mcpwire/oauth"
)

// TestProxyOAuth: the mcp-remote job. A host on proxy's stdio reaches an
// OAuth-protected server through one session: mcpwire sends the token
// (the host never sees one), and when the server refuses the token in
// the middle of the session (401) it is refreshed without the host's
// session ending.
func TestProxyOAuth(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	r.run(0, "login", "srv")

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb bytes.Buffer
	exe, _ := os.Executable()
	env := Env{Stdin: inR, Stdout: outW, Stderr: &errb, Dir: r.home, Home: r.home,
		Getenv: func(k string) string { return r.env[k] }, Executable: exe}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"proxy", "srv"}, env)
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	var all strings.Builder
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id int) string {
		t.Helper()
		want := `"id":` + strings.TrimSpace(string(mustJSONText(id))) + `,`
		for lines.Scan() {
			all.WriteString(lines.Text() + "\n")
			if strings.Contains(lines.Text(), want) {
				return lines.Text()
			}
		}
		t.Fatalf("no answer %d from proxy:\n%s\n%s", id, all.String(), errb.String())
		return ""
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"host","version":"1"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"first"}}}`)
	if a := answer(2); !strings.Contains(a, "first") {
		t.Fatalf("the first call through proxy: %s", a)
	}

	// The access token is refused (401) while the host's session goes on.
	store := oauth.NewStore(r.home)
	rec, _, err := store.Load("srv")
	if err != nil || rec == nil {
		t.Fatal(rec, err)
	}
	f.ExpireAccess()
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"second"}}}`)
	if a := answer(3); !strings.Contains(a, "second") {
		t.Fatalf("the call after the token expired: %s\n%s", a, errb.String())
	}
	f.Mu.Lock()
	refreshes := f.Refreshes
	f.Mu.Unlock()
	if refreshes != 1 {
		t.Fatalf("%d refreshes, want 1", refreshes)
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("proxy exit %d:\n%s", code, errb.String())
	}
	if out := all.String() + errb.String() + r.all.String(); strings.Contains(out, leak) || strings.Contains(out, rec.Token.AccessToken) {
		t.Fatalf("a token reached the host or the output:\n%s", out)
	}
}

// mustJSONText is v as JSON.
func mustJSONText(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
