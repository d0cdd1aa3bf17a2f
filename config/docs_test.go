package config

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// docTable returns the rows of the first Markdown table after the heading
// "## "+section of docs/config.md, each as its cells with the backticks
// taken out.
func docTable(t *testing.T, section string) [][]string {
	t.Helper()
	data, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## "+section+"\n")
	if !ok {
		t.Fatalf("docs/config.md has no section %q", section)
	}
	var rows [][]string
	inTable := false
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		inTable = true
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i, c := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "`", ""))
		}
		rows = append(rows, cells)
	}
	if len(rows) < 2 {
		t.Fatalf("docs/config.md, %s: no table", section)
	}
	return rows[2:] // the header and the rule
}

// TestDocsConfigMembers checks docs/config.md against the table of members
// the parser reads: every member it accepts has a row, with its aliases,
// type, transport and approval as the parser and the digest treat them,
// and every row is a member the parser accepts; the same for oauth.
func TestDocsConfigMembers(t *testing.T) {
	documented := map[string]bool{}
	for _, row := range docTable(t, "Members") {
		if len(row) != 7 {
			t.Errorf("docs/config.md: row %q: want 7 cells (member, aliases, type, transport, default, approval, example)", row)
			continue
		}
		name, aliases, typ, only, def, approval, example := row[0], row[1], row[2], row[3], row[4], row[5], row[6]
		documented[name] = true
		m := lookupMember(name)
		if m == nil || m.name != name {
			t.Errorf("docs/config.md documents %q, which the parser does not accept as a member", name)
			continue
		}
		var as []string
		for _, a := range strings.Split(aliases, ",") {
			if a = strings.TrimSpace(a); a != "" {
				as = append(as, a)
			}
		}
		if !slices.Equal(as, m.aliases) {
			t.Errorf("docs/config.md: %s: aliases %q, the parser reads %q", name, as, m.aliases)
		}
		if typ != m.typ {
			t.Errorf("docs/config.md: %s: type %q, the parser reads %q", name, typ, m.typ)
		}
		wantOnly := map[string]string{"": "both", TypeStdio: "stdio", TypeHTTP: "http"}[m.only]
		if only != wantOnly {
			t.Errorf("docs/config.md: %s: transport %q, the parser takes it for %q", name, only, wantOnly)
		}
		wantApproval := "covered"
		if m.digest == notCovered {
			wantApproval = "not covered"
		}
		if approval != wantApproval {
			t.Errorf("docs/config.md: %s: approval %q, the digest: %q", name, approval, wantApproval)
		}
		if def == "" || !strings.HasPrefix(example, `"`+name+`": `) && !slices.ContainsFunc(m.aliases, func(a string) bool { return strings.HasPrefix(example, `"`+a+`": `) }) {
			t.Errorf("docs/config.md: %s: needs a default and an example of the member (%q)", name, example)
		}
		checkDocExample(t, name, example)
	}
	for _, m := range members {
		if !documented[m.name] {
			t.Errorf("the parser accepts %q, which docs/config.md does not document", m.name)
		}
	}

	oauthDoc := map[string]bool{}
	for _, row := range docTable(t, "oauth") {
		if len(row) != 3 {
			t.Errorf("docs/config.md, oauth: row %q: want 3 cells", row)
			continue
		}
		oauthDoc[row[0]] = true
		i := slices.IndexFunc(oauthMembers, func(o oauthMember) bool { return o.name == row[0] })
		switch {
		case i < 0:
			t.Errorf("docs/config.md documents oauth.%s, which the parser does not accept", row[0])
		case oauthMembers[i].typ != row[1]:
			t.Errorf("docs/config.md: oauth.%s: type %q, the parser reads %q", row[0], row[1], oauthMembers[i].typ)
		}
	}
	for _, o := range oauthMembers {
		if !oauthDoc[o.name] {
			t.Errorf("the parser accepts oauth.%s, which docs/config.md does not document", o.name)
		}
	}
}

// checkDocExample parses a member's example as the parser reads it (in a
// definition of the right transport), so that every example of the page is
// one the parser accepts without warnings.
func checkDocExample(t *testing.T, name, example string) {
	t.Helper()
	m := lookupMember(name)
	base := `"command": "x"`
	switch {
	case name == "command":
		base = `"args": []`
	case name == "url":
		base = `"type": "http"`
	case m.only == TypeHTTP || strings.Contains(example, `"sse"`):
		base = `"url": "https://x.example/mcp"`
	}
	entry := "{" + example + ", " + base + "}"
	data := `{"mcpServers": {"s": ` + entry + `}}`
	pf, err := parseFile("doc.json", ScopeUser, []byte(data))
	if err != nil {
		t.Errorf("docs/config.md: %s: the example %s is not JSON: %v", name, example, err)
		return
	}
	if len(pf.warnings) > 0 || pf.servers[0].Err != nil {
		t.Errorf("docs/config.md: %s: the parser refuses the example %s: %v %q", name, data, pf.servers[0].Err, pf.warnings)
	}
}
