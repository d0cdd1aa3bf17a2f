package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestInstallPromptsOnATerminal: on a terminal, install asks for each
// required input that has no value, then for the approval; "n" writes
// nothing, "y" writes and approves what was shown.
func TestInstallPromptsOnATerminal(t *testing.T) {
	proctest.Check(t)
	doc := `{"name":"io.test/p","description":"d","version":"1.0.0","remotes":[{"type":"streamable-http","url":"https://{tenant}.example.com/mcp",
	 "variables":{"tenant":{"description":"your tenant","isRequired":true,"choices":["acme","other"]}},
	 "headers":[{"name":"X-Team","description":"your team","isRequired":true}]}]}`
	reg := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"server":%s,"_meta":{"io.modelcontextprotocol.registry/official":{"status":"active","isLatest":true}}}`, doc)
	}))
	defer reg.Close()
	bin := buildMcpwire(t)
	dir := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "MCPWIRE_HOME=" + dir + "/mcpwire", "TERM=dumb"}
	for _, answer := range []string{"n", "y"} {
		scr, m, exited, code := ptyRun(t, bin, dir, env, "install", "io.test/p", "-s", "project", "--registry", reg.URL, "--no-connect")
		for _, step := range []struct{ prompt, typed string }{{"your tenant", "acme"}, {"your team", "core"}, {"write and approve p? [y/N]", answer}} {
			scr.waitFor(t, step.prompt, exited)
			m.Write([]byte(step.typed + "\r"))
		}
		select {
		case <-exited:
		case <-time.After(hang):
			t.Fatalf("install still runs after the answers:\n%s", scr.String())
		}
		data, err := os.ReadFile(filepath.Join(dir, ".mcp.json"))
		switch answer {
		case "n":
			if *code != 3 || err == nil {
				t.Fatalf("answer n: exit %d, file %q\n%s", *code, data, scr.String())
			}
		case "y":
			if *code != 0 || !strings.Contains(string(data), "https://acme.example.com/mcp") || !strings.Contains(string(data), `"X-Team": "core"`) {
				t.Fatalf("answer y: exit %d, file %s\n%s", *code, data, scr.String())
			}
		}
	}
}
