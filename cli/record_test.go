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
