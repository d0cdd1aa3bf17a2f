package demo

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestAnswersOwedAtEOF: a client that pipes its requests and closes stdin
// (`printf '…' | mcpwire serve-demo`) gets every answer, a slow call's
// included, and the server then exits; before, the answers still owed at
// the EOF were dropped.
func TestAnswersOwedAtEOF(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		initBody,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":20}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{"text":"last"}}}`,
	}, "\n") + "\n"
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "DEMO_CHILD_ARGS=[]")
	cmd.Stdin = strings.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the demo: %v\n%s", err, out)
	}
	for _, id := range []string{`"id":1,`, `"id":2,`, `"id":3,`, `"id":4,`} {
		if !strings.Contains(string(out), id) {
			t.Errorf("no answer with %s after stdin closed:\n%s", id, out)
		}
	}
}
