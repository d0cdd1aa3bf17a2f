package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestRecordASession: call --record writes the session as JSON Lines, 0600:
// a header, each message both ways with its time offset, the session's
// transport, era and revision; a secret given in the server's environment
// (and echoed back by the server) is nowhere in the file.
func TestRecordASession(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	const secret = "sk-live-0123456789abcdef"
	r.run(t, "call", "--record", "rec.jsonl", "-e", "API_KEY="+secret, "echo", "text=key "+secret, "--", r.bin, "serve-demo").want(t, 0)
	path := filepath.Join(r.dir, "rec.jsonl")
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("the recording is %v, want 0600", st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte(secret)) {
		t.Errorf("the secret is in the recording:\n%s", data)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	var sent, recv, sessions int
	methods := map[string]bool{}
	for sc.Scan() {
		var l struct {
			T       *float64
			Dir     string
			Msg     struct{ Method string }
			Session *struct{ Transport, Era, Protocol string }
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.T == nil {
			t.Fatalf("not a line of a recording: %s (%v)", sc.Bytes(), err)
		}
		switch {
		case l.Dir == "send":
			sent++
			methods[l.Msg.Method] = true
		case l.Dir == "recv":
			recv++
		case l.Session != nil:
			sessions++
			if l.Session.Transport != "stdio" || l.Session.Era == "" || l.Session.Protocol == "" {
				t.Errorf("session line: %+v", l.Session)
			}
		}
	}
	if sent == 0 || recv == 0 || sessions != 1 || !methods["tools/call"] {
		t.Errorf("sent %d, received %d, %d session lines, methods %v:\n%s", sent, recv, sessions, methods, data)
	}
	if !strings.Contains(string(data), `"recording":1`) {
		t.Errorf("no header")
	}
}

// TestRecordHTTP: a session recorded over streamable HTTP carries each
// exchange's method, status and the headers that matter: the session id
// as an opaque marker (never the id), the revision, Content-Type; a 401's
// WWW-Authenticate with its scheme and resource_metadata; the bearer
// token sent in a header nowhere, in any form.
func TestRecordHTTP(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	const token = "tok-0123456789-recorded"
	url, stop := startListen(t, r, "serve-demo", "--http", "127.0.0.1:0", "--require-auth", token)
	defer stop()
	r.run(t, "call", url, "--record", "denied.jsonl", "echo", "text=hi").want(t, 4)
	r.run(t, "call", url, "--protocol", "2025-06-18", "--header", "Authorization: Bearer "+token, "--record", "rec.jsonl", "echo", "text=hi").want(t, 0)
	type httpLine struct {
		HTTP *struct {
			Method            string
			Status            int
			Request, Response map[string]string
		}
	}
	read := func(name string) (lines []httpLine, data []byte) {
		t.Helper()
		data, _ = os.ReadFile(filepath.Join(r.dir, name))
		for _, l := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var hl httpLine
			if err := json.Unmarshal(l, &hl); err != nil {
				t.Fatalf("%s: %v: %s", name, err, l)
			}
			if hl.HTTP != nil {
				lines = append(lines, hl)
			}
		}
		return lines, data
	}
	lines, data := read("denied.jsonl")
	if len(lines) == 0 || lines[0].HTTP.Status != 401 || !strings.Contains(lines[0].HTTP.Response["Www-Authenticate"], "resource_metadata=") {
		t.Errorf("the 401 is not recorded with its challenge:\n%s", data)
	}
	lines, data = read("rec.jsonl")
	if bytes.Contains(data, []byte(token)) || bytes.Contains(data, []byte("0123456789-recorded")) {
		t.Errorf("the token is in the recording:\n%s", data)
	}
	var posts, marked int
	for _, l := range lines {
		h := l.HTTP
		if h.Method == "POST" && h.Status == 200 {
			posts++
			if !strings.HasPrefix(h.Response["Content-Type"], "application/json") && !strings.HasPrefix(h.Response["Content-Type"], "text/event-stream") {
				t.Errorf("a POST without its Content-Type: %+v", h)
			}
		}
		if id := h.Request["Mcp-Session-Id"]; id != "" {
			marked++
			if id != "session-1" {
				t.Errorf("the session id is recorded as %q, want the marker session-1", id)
			}
			if h.Request["Mcp-Protocol-Version"] != "2025-06-18" {
				t.Errorf("a request without its revision: %+v", h)
			}
		}
		if a := h.Request["Authorization"]; a != "" && a != "***" {
			t.Errorf("Authorization recorded as %q", a)
		}
	}
	if posts < 3 || marked < 2 {
		t.Errorf("%d POSTs answered, %d with the session's marker:\n%s", posts, marked, data)
	}
}
