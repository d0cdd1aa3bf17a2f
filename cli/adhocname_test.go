package cli

import "testing"

func TestCommandName(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"npx", "-y", "@scope/server-foo"}, "server-foo"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-everything@2025.1.1", "stdio"}, "server-everything"},
		{[]string{"/usr/local/bin/npx", "--yes", "mcp-remote", "https://x"}, "mcp-remote"},
		{[]string{"npx", "-p", "pkg-a", "tool-b"}, "tool-b"},
		{[]string{"uvx", "mcp-server-git", "--repository", "."}, "mcp-server-git"},
		{[]string{"uvx", "--from", "git+https://h/x.git", "mcp-server-x==1.0"}, "mcp-server-x"},
		{[]string{"pnpm", "dlx", "@acme/mcp"}, "mcp"},
		{[]string{"docker", "run", "-i", "--rm", "-e", "TOKEN", "ghcr.io/github/github-mcp-server:v1"}, "github-mcp-server"},
		{[]string{"node", "dist/index.js"}, "index"},
		{[]string{"python3", "-m", "mcp_server_time"}, "mcp_server_time"},
		{[]string{"./bin/my-server", "--flag"}, "my-server"},
		{[]string{`C:\tools\srv.exe`}, "srv"},
		{[]string{"npx"}, "npx"},
		{[]string{"npx", "-y"}, "npx"},
		{[]string{"+++"}, "server"},
	} {
		if got := commandName(tc.words); got != tc.want {
			t.Errorf("commandName(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}
