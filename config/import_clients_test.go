package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportClientFiles reads files as Codex, Blitz, orb and zut write
// them (testdata/import) and checks what mcpwire makes of each entry:
// every member it can map carried, what it cannot named per entry.
func TestImportClientFiles(t *testing.T) {
	tests := []struct {
		client, file string
		want         map[string]string // name → the entry as JSON
		notes        map[string][]string
	}{
		{ClientCodex, "codex-config.toml", map[string]string{
			"context7":  `{"command":"npx","args":["-y","@upstash/context7-mcp"],"env":{"MY_ENV_VAR":"MY_ENV_VALUE"},"startupTimeout":20,"toolTimeout":120.5}`,
			"figma":     `{"url":"https://mcp.figma.com/mcp","headers":{"X-Figma-Region":"us-east-1"},"bearerTokenEnvVar":"FIGMA_OAUTH_TOKEN","envHeaders":{"X-Org-Id":"FIGMA_ORG_ID"}}`,
			"docs":      `{"command":"C:\\tools\\docs-server.exe","env":{"LOG_LEVEL":"debug"},"cwd":"/srv/docs","envVars":["DOCS_TOKEN","HOME_REGION"],"startupTimeout":15,"disabled":true,"enabledTools":["search","fetch"],"disabledTools":["delete"]}`,
			"slow":      `{"command":"slow-server","toolTimeout":300}`,
			"needs-key": `{"command":"srv","args":["--token","${TOKEN}"]}`,
		}, map[string][]string{
			"slow":      {`field "experimental_flag" is not carried over`, "toolTimeoutSec: 9000 s is out of mcpwire's range; 300 s instead"},
			"needs-key": {`renamed from "needs key"`, "args: codex does not expand variables, but mcpwire will expand the ${…} in it"},
		}},
		{ClientBlitz, "blitz-config.toml", map[string]string{
			"github":   `{"url":"https://api.githubcopilot.com/mcp/","bearerTokenEnvVar":"GITHUB_PAT","toolTimeout":30}`,
			"fs":       `{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/home/me/src"],"envVars":["LANG"]}`,
			"server-3": `{"command":"anonymous-server"}`,
		}, map[string][]string{"github": {`field "prefix" is not carried over`}}},
		{ClientBlitz, "blitz-mcp_config.json", map[string]string{
			"memory": `{"command":"npx","args":["-y","@modelcontextprotocol/server-memory"],"startupTimeout":45}`,
		}, nil},
		{ClientOrb, "orb-settings.json", map[string]string{
			"search": `{"url":"https://search.example.com/mcp","headers":{"X-Key":"${SEARCH_KEY}"}}`,
			"local":  `{"command":"orb-tool","args":["serve"],"env":{"MODE":"fast"},"timeout":45,"toolTimeout":90}`,
		}, map[string][]string{"search": {`field "maxRetries" is not carried over`}}},
		{ClientZut, "zut-mcp.json", map[string]string{
			"api":  `{"url":"https://api.example.com/mcp","bearerTokenEnvVar":"API_TOKEN","envHeaders":{"X-Tenant":"TENANT_ID"},"startupTimeout":12,"toolTimeout":240}`,
			"tool": `{"command":"zut-tool","args":["--dir","${HOME}/work"],"env":{"K":"${K:-v}"},"envVars":["GITHUB_TOKEN"]}`,
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "import", tt.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Import(tt.client, path, data, ImportOptions{Scope: "user", Dir: "/work/proj", UserHome: "/home/me"})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, im := range got {
				seen[im.Name] = true
				if im.Skip != "" {
					t.Errorf("%s: skipped: %s", im.Name, im.Skip)
					continue
				}
				b, _ := json.Marshal(im.Entry)
				if want, ok := tt.want[im.Name]; !ok {
					t.Errorf("unexpected server %s: %s", im.Name, b)
				} else if string(b) != want {
					t.Errorf("%s:\n got %s\nwant %s", im.Name, b, want)
				}
				for _, n := range tt.notes[im.Name] {
					if !slices.ContainsFunc(im.Notes, func(s string) bool { return strings.Contains(s, n) }) {
						t.Errorf("%s: notes %q lack %q", im.Name, im.Notes, n)
					}
				}
				if tt.client == ClientZut && slices.ContainsFunc(im.Notes, func(s string) bool { return strings.Contains(s, "does not expand") }) {
					t.Errorf("%s: zut expands ${VAR}, but the notes say otherwise: %q", im.Name, im.Notes)
				}
				// What is imported is a definition mcpwire reads without error.
				entry, _ := json.Marshal(im.Entry)
				pf, err := parseFile("x.json", ScopeUser, []byte(`{"mcpServers": {"s": `+string(entry)+`}}`))
				if err != nil || pf.servers[0].Err != nil || len(pf.warnings) > 0 {
					t.Errorf("%s: mcpwire refuses the entry it imported: %v %v %q", im.Name, err, pf.servers[0].Err, pf.warnings)
				}
			}
			for name := range tt.want {
				if !seen[name] {
					t.Errorf("server %s was not imported", name)
				}
			}
		})
	}
}

// TestImportTOMLErrors: a TOML file that is not TOML fails as a whole,
// naming the file, line and column.
func TestImportTOMLErrors(t *testing.T) {
	_, err := Import(ClientCodex, "/h/.codex/config.toml", []byte("[mcp_servers.x]\ncommand = npx\n"), ImportOptions{Scope: "user"})
	if err == nil || !strings.Contains(err.Error(), "/h/.codex/config.toml:2:11:") {
		t.Errorf("error %v", err)
	}
	_, err = Import(ClientCodex, "c.toml", []byte("mcp_servers = 1\n"), ImportOptions{Scope: "user"})
	if err == nil || !strings.Contains(err.Error(), "mcp_servers is not a table") {
		t.Errorf("error %v", err)
	}
}
