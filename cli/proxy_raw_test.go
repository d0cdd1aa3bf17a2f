package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// proxyAnswer runs mcpwire with args (a proxy over stdio), writes lines
// to its stdin and returns the line that answers id 2, read as it came.
func proxyAnswer(t *testing.T, r *runner, lines []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir, cmd.Env, cmd.WaitDelay = r.dir, r.env, 5*time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	if _, err := io.WriteString(stdin, strings.Join(lines, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("mcpwire %s wrote a line that is not JSON: %q", strings.Join(args, " "), sc.Text())
		}
		if string(m.ID) == "2" {
			return sc.Text()
		}
	}
	t.Fatalf("mcpwire %s: no answer to id 2:\n%s", strings.Join(args, " "), stderr.String())
	return ""
}

const (
	legacyInit   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	legacyDone   = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	legacyEcho   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	modernEcho   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"text":"hi"}}}`
	legacyRead   = `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"demo://readme"}}`
	legacyPrompt = `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet","arguments":{"name":"Ada"}}}`
	modernPrompt = `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"greet","arguments":{"name":"Ada"}}}`
	modernRead   = `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"uri":"demo://readme"}}`
)

// checkRead checks the answer line of a resources/read passed on raw:
// the contents, and the head of the host's era only (a modern host's
// one resultType, ttlMs and cacheScope, the proxy's).
func checkRead(t *testing.T, how, line string, modern bool) {
	t.Helper()
	var m struct {
		Result struct {
			Contents []struct{ URI, Text string }
		}
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || len(m.Result.Contents) != 1 || m.Result.Contents[0].URI != "demo://readme" || m.Result.Contents[0].Text == "" {
		t.Errorf("%s: the contents did not pass (%v): %s", how, err, line)
	}
	for _, k := range []string{`"resultType"`, `"ttlMs"`, `"cacheScope"`} {
		if n := strings.Count(line, k); modern != (n == 1) || n > 1 {
			t.Errorf("%s: %d %s (modern host: %v): %s", how, n, k, modern, line)
		}
	}
}

// checkPassed checks the answer line of a tools/call that the proxy
// passed on as raw bytes: the tool's text, and the head of the host's
// era only (a legacy host gets no resultType; a modern one one resultType
// and the serverInfo in _meta).
func checkPassed(t *testing.T, how, line string, modern bool) {
	t.Helper()
	var m struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%s: %v: %s", how, err, line)
	}
	var content []struct{ Text string }
	_ = json.Unmarshal(m.Result["content"], &content)
	if len(content) != 1 || content[0].Text != "hi" {
		t.Errorf("%s: the tool's content did not pass: %s", how, line)
	}
	n := strings.Count(line, `"resultType"`)
	switch {
	case !modern && n != 0:
		t.Errorf("%s: a legacy host got a modern result head: %s", how, line)
	case modern && (n != 1 || string(m.Result["resultType"]) != `"complete"`):
		t.Errorf("%s: a modern host got %d resultType: %s", how, n, line)
	case modern && !strings.Contains(string(m.Result["_meta"]), `"io.modelcontextprotocol/serverInfo"`):
		t.Errorf("%s: a modern host got no serverInfo: %s", how, line)
	}
}

// TestProxyRawResults: a tools/call, a resources/read and a prompts/get
// result cross the proxy as the target's bytes, translated only where the eras differ: each era of host
// in front of each era of target.
func TestProxyRawResults(t *testing.T) {
	r := newRunner(t)
	for _, target := range []string{"--era=modern", "--era=legacy"} {
		args := []string{"proxy", "--", r.bin, "serve-demo", target}
		line := proxyAnswer(t, r, []string{legacyInit, legacyDone, legacyEcho}, args...)
		checkPassed(t, "legacy host, "+target, line, false)
		line = proxyAnswer(t, r, []string{modernEcho}, args...)
		checkPassed(t, "modern host, "+target, line, true)
		line = proxyAnswer(t, r, []string{legacyInit, legacyDone, legacyRead}, args...)
		checkRead(t, "legacy host, read, "+target, line, false)
		line = proxyAnswer(t, r, []string{modernRead}, args...)
		checkRead(t, "modern host, read, "+target, line, true)
		for _, c := range []struct {
			lines  []string
			modern bool
		}{{[]string{legacyInit, legacyDone, legacyPrompt}, false}, {[]string{modernPrompt}, true}} {
			line = proxyAnswer(t, r, c.lines, args...)
			if n := strings.Count(line, `"resultType"`); !strings.Contains(line, `"messages":[`) || !strings.Contains(line, "Ada") || c.modern != (n == 1) || n > 1 {
				t.Errorf("prompt, modern host %v, %s: %s", c.modern, target, line)
			}
		}
	}
}

// TestProxyRawPrettyTarget: a modern HTTP server that indents its JSON
// answers; the proxy's host still gets each answer on one line.
func TestProxyRawPrettyTarget(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		var in struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.NewDecoder(req.Body).Decode(&in) != nil || in.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := map[string]any{"resultType": "complete", "_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]string{"name": "pretty", "version": "1"}}}
		switch in.Method {
		case "server/discover":
			result["supportedVersions"] = []string{"2026-07-28"}
			result["capabilities"] = map[string]any{"tools": map[string]any{}}
		case "tools/call":
			result["content"] = []map[string]string{{"type": "text", "text": "hi"}}
		default:
			result["tools"] = []any{}
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.MarshalIndent(map[string]any{"jsonrpc": "2.0", "id": in.ID, "result": result}, "", "  ")
		_, _ = w.Write(b)
	}))
	defer srv.Close()
	r := newRunner(t)
	line := proxyAnswer(t, r, []string{legacyInit, legacyDone, legacyEcho}, "proxy", srv.URL)
	checkPassed(t, "legacy host, indenting server", line, false)
	line = proxyAnswer(t, r, []string{modernEcho}, "proxy", srv.URL)
	checkPassed(t, "modern host, indenting server", line, true)
}
