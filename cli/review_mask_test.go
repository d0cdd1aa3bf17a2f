package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestReviewMasksLiteralCredentials: a project file's literal credential
// (Authorization: Bearer proj-token-xyz) shows in every review (get, get
// --json, approve, approve --all) as its first four characters and its
// length, with a warning; a ${VAR} reference and every other value show
// in full (issue 20, item 5).
func TestReviewMasksLiteralCredentials(t *testing.T) {
	r := newRunner(t)
	r.env = append(r.env, "PROJ_KEY=env-value-of-proj-key-0123")
	writeJSON(t, filepath.Join(r.dir, ".mcp.json"), map[string]any{"mcpServers": map[string]any{
		"p": map[string]any{"url": "https://p.example/mcp", "headers": map[string]string{
			"Authorization": "Bearer proj-token-xyz", "X-Trace": "visible-trace-value", "X-Api-Key": "${PROJ_KEY}"}},
		"q": map[string]any{"command": "x", "env": map[string]string{"GITHUB_TOKEN": "ghp_0123456789", "MODE": "plain-mode"}},
	}})
	check := func(res *result, jsonDoc bool) {
		t.Helper()
		out := res.stdout + res.stderr
		for _, leak := range []string{"proj-token-xyz", "ghp_0123456789"} {
			if strings.Contains(out, leak) {
				t.Errorf("the review shows the literal credential %s:\n%s", leak, res)
			}
		}
		for _, want := range []string{"Bear…(21)", "visible-trace-value", "${PROJ_KEY}"} {
			if strings.Contains(out, "p.example") && !strings.Contains(out, want) {
				t.Errorf("the review lacks %s:\n%s", want, res)
			}
		}
		if strings.Contains(out, "p.example") && !strings.Contains(out, "headers.Authorization is a literal credential") {
			t.Errorf("no warning about the literal credential:\n%s", res)
		}
		if jsonDoc && !json.Valid([]byte(res.stdout)) {
			t.Errorf("not JSON:\n%s", res)
		}
	}
	res := r.run(t, "get", "p").want(t, 0)
	check(res, false)
	if !strings.Contains(res.stdout, `"Authorization": "Bear…(21)"`) {
		t.Errorf("get shows no masked Authorization:\n%s", res)
	}
	res = r.run(t, "get", "p", "--json").want(t, 0)
	check(res, true)
	var doc struct {
		Definition struct {
			Headers map[string]string `json:"headers"`
		} `json:"definition"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Definition.Headers["Authorization"] != "Bear…(21)" || doc.Definition.Headers["X-Trace"] != "visible-trace-value" {
		t.Errorf("get --json definition: %v", doc.Definition.Headers)
	}
	q := r.run(t, "get", "q").want(t, 0)
	check(q, false)
	if !strings.Contains(q.stdout, `"GITHUB_TOKEN": "ghp_…(14)"`) || !strings.Contains(q.stdout, `"MODE": "plain-mode"`) {
		t.Errorf("get q:\n%s", q)
	}
	// approve expands first: PROJ_KEY must be set for p to run.
	r.env = append(r.env, "PROJ_KEY=proj-key-value")
	check(r.run(t, "approve", "p").want(t, 0), false)
	res = r.run(t, "approve", "--all", "--project", "--yes")
	if res.code == 2 { // --yes comes with issue 20, item 11
		res = r.run(t, "approve", "--all", "--project")
	}
	check(res.want(t, 0), false)
	if !strings.Contains(res.stderr, "ghp_…(14)") {
		t.Errorf("approve --all shows no masked GITHUB_TOKEN:\n%s", res)
	}
}
