package config

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportFormats reads one file of each client, in that client's own
// format, and checks the definitions mcpwire makes of them.
func TestImportFormats(t *testing.T) {
	dir := filepath.FromSlash("/work/proj")
	tests := []struct {
		client, scope, file string
		want                map[string]string // name -> the entry as JSON
		notes               map[string]string // name -> a note it must have
		skip                map[string]string // name -> why it is skipped
	}{
		{client: ClientClaudeDesktop, scope: "user", file: `{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]},
    "my server": {"command": "uvx", "args": ["x"], "env": {"API_KEY": "k"}}
  },
  "globalShortcut": "Ctrl+Space"
}`,
			want: map[string]string{
				"filesystem": `{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/Users/me/Desktop"]}`,
				"my-server":  `{"command":"uvx","args":["x"],"env":{"API_KEY":"k"}}`,
			},
			notes: map[string]string{"my-server": `renamed from "my server"`},
		},
		{client: ClientClaudeCode, scope: "user", file: `{
  "numStartups": 3,
  "mcpServers": {
    "sentry": {"type": "http", "url": "https://mcp.sentry.dev/mcp", "headers": {"Authorization": "Bearer ${SENTRY_TOKEN}"}},
    "old": {"type": "sse", "url": "https://example.com/sse"}
  },
  "projects": {
    "/work/proj": {"mcpServers": {"db": {"type": "stdio", "command": "npx", "args": ["db-mcp"], "env": {"DSN": "${DSN:-postgres://localhost}"}}}},
    "/work/other": {"mcpServers": {"not-this": {"command": "x"}}}
  }
}`,
			want: map[string]string{
				"sentry": `{"url":"https://mcp.sentry.dev/mcp","headers":{"Authorization":"Bearer ${SENTRY_TOKEN}"}}`,
				"old":    `{"type":"sse","url":"https://example.com/sse"}`,
				"db":     `{"command":"npx","args":["db-mcp"],"env":{"DSN":"${DSN:-postgres://localhost}"}}`,
			},
		},
		{client: ClientCursor, scope: "project", file: `{
  // Cursor's file may hold comments
  "mcpServers": {
    "userjot": {"url": "https://api.userjot.com/v1/mcp", "headers": {"Authorization": "Bearer ${env:USERJOT_TOKEN}"}},
    "local": {"command": "node", "args": ["${workspaceFolder}/server.js"], "envFile": "${workspaceFolder}/.env"},
  }
}`,
			want: map[string]string{
				"userjot": `{"url":"https://api.userjot.com/v1/mcp","headers":{"Authorization":"Bearer ${USERJOT_TOKEN}"}}`,
				"local":   `{"command":"node","args":["` + jsonPath(dir) + `/server.js"]}`,
			},
			notes: map[string]string{"local": "envFile is not read by mcpwire"},
		},
		{client: ClientVSCode, scope: "project", file: `{
  "inputs": [{"type": "promptString", "id": "perplexity-key", "description": "Perplexity API Key", "password": true}],
  "servers": {
    "perplexity": {"type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"], "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}},
    "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
    "legacy": {"type": "sse", "url": "http://localhost:3001/sse"}
  }
}`,
			want: map[string]string{
				"perplexity": `{"command":"npx","args":["-y","server-perplexity-ask"],"env":{"PERPLEXITY_API_KEY":"${PERPLEXITY_KEY}"}}`,
				"github":     `{"url":"https://api.githubcopilot.com/mcp/"}`,
				"legacy":     `{"type":"sse","url":"http://localhost:3001/sse"}`,
			},
			notes: map[string]string{"perplexity": "here it is ${PERPLEXITY_KEY}: set that variable"},
		},
		{client: ClientWindsurf, scope: "user", file: `{
  "mcpServers": {
    "zapier": {"serverUrl": "https://actions.zapier.com/mcp/KEY/sse", "headers": {"X-Token": "${env:ZAPIER_TOKEN}"}},
    "git": {"command": "py", "args": ["-m", "mcp_server_git"], "disabled": true, "env": {}},
    "secret": {"command": "x", "env": {"K": "${file:/home/me/key.txt}"}}
  }
}`,
			want: map[string]string{
				"zapier": `{"url":"https://actions.zapier.com/mcp/KEY/sse","headers":{"X-Token":"${ZAPIER_TOKEN}"}}`,
				"git":    `{"command":"py","args":["-m","mcp_server_git"],"disabled":true}`,
				"secret": `{"command":"x","env":{"K":"${file:/home/me/key.txt}"}}`,
			},
			notes: map[string]string{"secret": "${file:/home/me/key.txt} cannot be expanded by mcpwire"},
		},
		{client: ClientGemini, scope: "user", file: `{
  "theme": "Dracula",
  "mcp": {"excluded": ["experimental"]},
  "mcpServers": {
    "pythonTools": {"command": "python", "args": ["-m", "my_mcp_server"], "env": {"API_KEY": "$MY_API_TOKEN"}, "timeout": 15000, "trust": false, "includeTools": ["safe_tool"]},
    "github": {"httpUrl": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_PAT}"}},
    "events": {"url": "http://localhost:8080/sse"},
    "experimental": {"command": "exp"}
  }
}`,
			want: map[string]string{
				"pythonTools":  `{"command":"python","args":["-m","my_mcp_server"],"env":{"API_KEY":"${MY_API_TOKEN}"},"timeout":15,"enabledTools":["safe_tool"]}`,
				"github":       `{"url":"https://api.githubcopilot.com/mcp/","headers":{"Authorization":"Bearer ${GITHUB_PAT}"}}`,
				"events":       `{"type":"sse","url":"http://localhost:8080/sse"}`,
				"experimental": `{"command":"exp","disabled":true}`,
			},
			notes: map[string]string{"pythonTools": "trust is not carried over"},
		},
		{client: ClientZut, scope: "project", file: `{
  "mcpServers": {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "requestTimeout": 60, "idleTimeout": 300},
    "supabase": {"transport": "streamable-http", "url": "https://mcp.supabase.com/mcp", "headers": {"Authorization": "Bearer TOKEN"}},
    "legacy": {"transport": "sse", "url": "https://example.com/sse"},
    "ws": {"transport": "websocket", "url": "wss://example.com"}
  }
}`,
			want: map[string]string{
				"filesystem": `{"command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","/tmp"],"timeout":60}`,
				"supabase":   `{"url":"https://mcp.supabase.com/mcp","headers":{"Authorization":"Bearer TOKEN"}}`,
				"legacy":     `{"type":"sse","url":"https://example.com/sse"}`,
			},
			notes: map[string]string{"filesystem": `field "idleTimeout" is not carried over`},
			skip:  map[string]string{"ws": `transport "websocket" is not one mcpwire speaks`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			got, err := Import(tt.client, "f.json", []byte(tt.file), ImportOptions{Scope: tt.scope, Dir: dir, UserHome: "/home/me"})
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, im := range got {
				seen[im.Name] = true
				if why, ok := tt.skip[im.Name]; ok {
					if !strings.Contains(im.Skip, why) {
						t.Errorf("%s: skip %q, want %q", im.Name, im.Skip, why)
					}
					continue
				}
				if im.Skip != "" {
					t.Errorf("%s: skipped: %s", im.Name, im.Skip)
					continue
				}
				// Every entry carries its origin; only the client's user
				// scope is the user's own text (issue 20, item 6).
				if project := im.Scope != "user"; (im.Entry.ImportedFrom == "f.json") != project || (im.Origin == OriginProject) != project {
					t.Errorf("%s of scope %s: origin %q, importedFrom %q", im.Name, tt.scope, im.Origin, im.Entry.ImportedFrom)
				}
				e := im.Entry
				e.ImportedFrom = ""
				b, _ := json.Marshal(e)
				if want, ok := tt.want[im.Name]; !ok {
					t.Errorf("unexpected server %s: %s", im.Name, b)
				} else if string(b) != want {
					t.Errorf("%s:\n got %s\nwant %s", im.Name, b, want)
				}
				if n, ok := tt.notes[im.Name]; ok && !slices.ContainsFunc(im.Notes, func(s string) bool { return strings.Contains(s, n) }) {
					t.Errorf("%s: notes %q lack %q", im.Name, im.Notes, n)
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

func jsonPath(p string) string { b, _ := json.Marshal(p); return string(b[1 : len(b)-1]) }

// TestImportPaths checks the usual places on each system.
func TestImportPaths(t *testing.T) {
	env := map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`}
	loc := func(goos string) ImportLocation {
		return ImportLocation{GOOS: goos, UserHome: "/home/me", Dir: "/proj", Getenv: func(k string) string { return env[k] }}
	}
	tests := []struct {
		client, goos string
		want         []string
	}{
		{ClientClaudeDesktop, "darwin", []string{"/home/me/Library/Application Support/Claude/claude_desktop_config.json"}},
		{ClientClaudeDesktop, "linux", []string{"/home/me/.config/Claude/claude_desktop_config.json"}},
		{ClientClaudeCode, "linux", []string{"/home/me/.claude.json"}},
		{ClientCursor, "linux", []string{"/home/me/.cursor/mcp.json", "/proj/.cursor/mcp.json"}},
		{ClientVSCode, "darwin", []string{"/home/me/Library/Application Support/Code/User/mcp.json", "/proj/.vscode/mcp.json"}},
		{ClientVSCode, "linux", []string{"/home/me/.config/Code/User/mcp.json", "/proj/.vscode/mcp.json"}},
		{ClientWindsurf, "linux", []string{"/home/me/.codeium/windsurf/mcp_config.json"}},
		{ClientGemini, "linux", []string{"/home/me/.gemini/settings.json", "/proj/.gemini/settings.json"}},
		{ClientZut, "linux", []string{"/home/me/.local/state/zut/mcp.json", "/proj/.zut/mcp.json"}},
		{ClientZut, "darwin", []string{"/home/me/Library/Application Support/zut/mcp.json", "/proj/.zut/mcp.json"}},
		{ClientCodex, "linux", []string{"/home/me/.codex/config.toml", "/proj/.codex/config.toml"}},
		{ClientBlitz, "linux", []string{"/home/me/.blitz/config.toml", "/proj/.blitz/config.toml", "/proj/.agents/mcp_config.json"}},
		{ClientOrb, "linux", []string{"/home/me/.orb/settings.json", "/proj/.orb/settings.json"}},
	}
	for _, tt := range tests {
		got, err := ImportPaths(tt.client, loc(tt.goos))
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i] = filepath.ToSlash(got[i])
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s on %s: %q, want %q", tt.client, tt.goos, got, tt.want)
		}
	}
	if got, _ := ImportPaths(ClientClaudeDesktop, loc("windows")); !strings.Contains(got[0], "Roaming") || !strings.HasSuffix(filepath.ToSlash(got[0]), "Claude/claude_desktop_config.json") {
		t.Errorf("claude-desktop on windows: %q", got)
	}
	if _, err := ImportPaths("notepad", loc("linux")); err == nil || !strings.Contains(err.Error(), "known: claude-desktop") {
		t.Errorf("unknown client: %v", err)
	}
}

// TestImportRefusesNonJSON: a file that is not JSON fails as a whole.
func TestImportRefusesNonJSON(t *testing.T) {
	for _, data := range []string{"", "[]", "{", "mcpServers: {}"} {
		if _, err := Import(ClientCursor, "f.json", []byte(data), ImportOptions{}); err == nil {
			t.Errorf("%q: no error", data)
		}
	}
	got, err := Import(ClientCursor, "f.json", []byte(`{"other": 1}`), ImportOptions{})
	if err != nil || len(got) != 0 {
		t.Errorf("a file without servers: %v, %v", got, err)
	}
}

// FuzzStripJSONC: valid JSON passes unchanged in meaning; whatever comes
// out is as long as what went in.
func FuzzStripJSONC(f *testing.F) {
	f.Add([]byte(`{"a": "// not a comment", "b": [1, 2,], /* c */ "c": "\"/*"} // end`))
	f.Add([]byte(`{"a":1,}`))
	f.Add([]byte(`/* open`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := StripJSONC(data)
		if len(out) != len(data) {
			t.Fatalf("length %d, want %d", len(out), len(data))
		}
		if json.Valid(data) {
			// Numbers stay as written (1E1000 is valid JSON, but no float64).
			decode := func(d []byte) (any, error) {
				var v any
				dec := json.NewDecoder(bytes.NewReader(d))
				dec.UseNumber()
				err := dec.Decode(&v)
				return v, err
			}
			a, errA := decode(data)
			b, errB := decode(out)
			if errA != nil || errB != nil || !json.Valid(out) {
				t.Fatalf("valid JSON broken: %q -> %q (%v, %v)", data, out, errA, errB)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Fatalf("valid JSON changed: %q -> %q", data, out)
			}
		}
	})
}

// FuzzImport: no input crashes the importer.
func FuzzImport(f *testing.F) {
	f.Add(ClientGemini, []byte(`{"mcpServers":{"a b":{"command":"x","env":{"K":"$V"},"timeout":1e9}}}`))
	f.Add(ClientVSCode, []byte(`{"servers":{"s":{"url":"${input:x}","type":"sse"}}}`))
	f.Add(ClientClaudeCode, []byte(`{"projects":{"/d":{"mcpServers":{"p":{"command":"c"}}}}}`))
	f.Fuzz(func(t *testing.T, client string, data []byte) {
		got, err := Import(client, "f.json", data, ImportOptions{Scope: "user", Dir: "/d"})
		if err != nil {
			return
		}
		for _, im := range got {
			if ValidName(im.Name) != nil {
				t.Fatalf("invalid name %q", im.Name)
			}
			if _, err := json.Marshal(im.Entry); err != nil {
				t.Fatal(err)
			}
		}
	})
}
