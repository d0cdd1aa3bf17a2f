package cli_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestDiffAcceptAndJUnitCounts: the demo's next release against its
// snapshot. The JUnit report fails one case per breaking change, as many
// as the text says; listing the breaking changes' items in --accept makes
// the job pass and prints them as accepted.
func TestDiffAcceptAndJUnitCounts(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	r.run(t, "snapshot", "--demo", "-o", "demo.json").want(t, 0)
	next := []string{"--", r.bin, "serve-demo", "--next-release"}
	res := r.run(t, append([]string{"diff", "demo.json", "--fail-on", "breaking", "--junit", "d.xml"}, next...)...).want(t, 1)
	m := regexp.MustCompile(`(\d+) breaking changes?`).FindStringSubmatch(res.stdout)
	if m == nil {
		t.Fatalf("no count of breaking changes:\n%s", res)
	}
	xml, err := os.ReadFile(filepath.Join(r.dir, "d.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(xml), "<failure"); strconv.Itoa(got) != m[1] {
		t.Errorf("the text says %s breaking changes, the JUnit report %d failures:\n%s", m[1], got, xml)
	}
	// GitHub annotations: an error per breaking change, the summary last.
	gh := r.run(t, append([]string{"diff", "demo.json", "--format", "github"}, next...)...).want(t, 0)
	if got := strings.Count(gh.stdout, "::error "); strconv.Itoa(got) != m[1] {
		t.Errorf("--format github: %d errors, want %s:\n%s", got, m[1], gh)
	}
	if !strings.Contains(gh.stdout, "::notice title=MCP diff,file=demo.json::") {
		t.Errorf("--format github: no summary anchored to the snapshot:\n%s", gh)
	}
	// Accept every item that broke.
	var accept strings.Builder
	accept.WriteString("# known: the next release\n")
	for _, l := range regexp.MustCompile(`(?m)^  ✗ (\w+) (\S+):`).FindAllStringSubmatch(res.stdout, -1) {
		accept.WriteString(l[1] + " " + l[2] + "\n")
	}
	if err := os.WriteFile(filepath.Join(r.dir, "accept.txt"), []byte(accept.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res = r.run(t, append([]string{"diff", "demo.json", "--fail-on", "breaking", "--accept", "accept.txt"}, next...)...).want(t, 0)
	if !strings.Contains(res.stdout, "Accepted (--accept) ("+m[1]+")") && !strings.Contains(res.stdout, "accepted change") {
		t.Errorf("the accepted changes are not shown as accepted:\n%s", res)
	}
	if strings.Contains(res.stdout, "Breaking (") {
		t.Errorf("an accepted change is still shown as breaking:\n%s", res)
	}
	os.WriteFile(filepath.Join(r.dir, "bad.txt"), []byte("widget x\n"), 0o644)
	res = r.run(t, append([]string{"diff", "demo.json", "--accept", "bad.txt"}, next...)...).want(t, 2)
	if !strings.Contains(res.stderr, "bad.txt:1") {
		t.Errorf("a bad --accept line is not named:\n%s", res)
	}
}
