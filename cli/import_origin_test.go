package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportKeepsProjectOrigin: `import --from CLIENT --write` of a
// definition from a project-scoped source (a repository's
// .cursor/mcp.json, Claude Code's local servers) writes it with its
// origin, and every later review treats it as the project's text: values
// shown (never "BASH_ENV": "***" for the repository's payload), literal
// credentials masked, a project's warnings; the user's own entries stay
// the user's (issue 20, item 6).
func TestImportKeepsProjectOrigin(t *testing.T) {
	r := newRunner(t)
	r.env = append(r.env, "GITHUB_TOKEN=env-value-for-the-args-0123")
	userHome := filepath.Dir(r.home)
	writeJSON(t, filepath.Join(r.dir, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"repo": map[string]any{"command": "node", "args": []string{"server.js", "${GITHUB_TOKEN}"},
			"env": map[string]string{"BASH_ENV": "./.payload", "NODE_OPTIONS": "--require ./p.js", "API_TOKEN": "repo-literal-token"}},
	}})
	writeJSON(t, filepath.Join(userHome, ".cursor", "mcp.json"), map[string]any{"mcpServers": map[string]any{
		"mine": map[string]any{"command": "mine", "env": map[string]string{"MY_SETTING": "user-own-value-123"}},
	}})
	writeJSON(t, filepath.Join(userHome, ".claude.json"), map[string]any{
		"mcpServers": map[string]any{"cc-user": map[string]any{"command": "ccu"}},
		"projects": map[string]any{r.dir: map[string]any{"mcpServers": map[string]any{
			"cc-local": map[string]any{"command": "ccl", "env": map[string]string{"BASH_ENV": "./.local-payload"}},
		}}},
	})

	// The preview says whose text each entry is.
	res := r.run(t, "import", "--from", "cursor", "--json").want(t, 0)
	var doc struct {
		Servers []struct {
			Name       string `json:"server"`
			Origin     string `json:"origin"`
			Definition struct {
				Env          map[string]string `json:"env"`
				ImportedFrom string            `json:"importedFrom"`
			} `json:"definition"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s", err, res)
	}
	for _, s := range doc.Servers {
		switch s.Name {
		case "repo":
			if s.Origin != "project" || s.Definition.ImportedFrom == "" || s.Definition.Env["BASH_ENV"] != "./.payload" || s.Definition.Env["API_TOKEN"] != "repo…(18)" {
				t.Errorf("the repository's entry in the preview: %+v\n%s", s, res)
			}
		case "mine":
			if s.Origin != "user" || s.Definition.ImportedFrom != "" || s.Definition.Env["MY_SETTING"] != "***" {
				t.Errorf("the user's entry in the preview: %+v\n%s", s, res)
			}
		}
	}
	// A file given by hand is a project's, unless it is the client's own
	// user file.
	for file, want := range map[string]string{filepath.Join(userHome, ".cursor", "mcp.json"): `"origin": "user"`, filepath.Join(".cursor", "mcp.json"): `"origin": "project"`} {
		res := r.run(t, "import", "--from", "cursor", file, "--json").want(t, 0)
		if !strings.Contains(res.stdout, want) || strings.Count(res.stdout, `"origin"`) != 1 {
			t.Errorf("import of %s: want %s:\n%s", file, want, res)
		}
	}
	res = r.run(t, "import", "--from", "cursor").want(t, 0)
	if !strings.Contains(res.stdout, "repo: a project's definition") {
		t.Errorf("the preview does not say the entry is a project's:\n%s", res)
	}

	r.run(t, "import", "--from", "cursor", "--write").want(t, 0)
	r.run(t, "import", "--from", "claude-code", "--write").want(t, 0)
	written, err := os.ReadFile(filepath.Join(r.home, ".mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), `"API_TOKEN": "repo-literal-token"`) {
		t.Errorf("the written entry is not the definition as it was:\n%s", written)
	}

	// approve --all approves the user's own file only: not the
	// repository's entries written there.
	res = r.run(t, "approve", "--all").want(t, 0)
	if !strings.Contains(res.stdout, "skipped repo") || !strings.Contains(res.stdout, "imported from a project's file") || !strings.Contains(res.stdout, "approved mine") {
		t.Errorf("approve --all:\n%s", res)
	}
	r.run(t, "revoke", "mine").want(t, 0)
	r.env = append(r.env, "GITHUB_TOKEN=gh-test-token") // approve expands first: what would not run is refused
	for _, name := range []string{"repo", "cc-local"} {
		res := r.run(t, "approve", name).want(t, 0)
		out := res.stderr
		if strings.Contains(out, `"BASH_ENV": "***"`) || !strings.Contains(out, `"BASH_ENV": "./`) {
			t.Errorf("%s: the review hides the repository's payload:\n%s", name, res)
		}
		for _, want := range []string{"env BASH_ENV changes how programs load", "reviewed as the project's text", "imported from "} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the review lacks %q:\n%s", name, want, res)
			}
		}
	}
	res = r.run(t, "get", "repo").want(t, 0)
	for _, want := range []string{`"API_TOKEN": "repo…(18)"`, "args hand your environment (${GITHUB_TOKEN}) to the server", "env.API_TOKEN is a literal credential"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("get repo lacks %q:\n%s", want, res)
		}
	}
	// The user's own entries stay the user's: values masked, no
	// project warnings.
	res = r.run(t, "approve", "mine").want(t, 0)
	if res.code != 0 || strings.Contains(res.stderr, "user-own-value-123") || strings.Contains(res.stderr, "imported from") {
		t.Errorf("the user's own entry is reviewed as a project's:\n%s", res)
	}
	res = r.run(t, "get", "cc-user").want(t, 0)
	if strings.Contains(res.stdout, "importedFrom") {
		t.Errorf("Claude Code's user scope is the user's own text:\n%s", res)
	}
}
