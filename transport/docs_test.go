package transport

import (
	"os"
	"strings"
	"testing"
)

// TestDocsConfigChildEnv checks that docs/config.md's environment policy
// names every variable that ChildEnv passes.
func TestDocsConfigChildEnv(t *testing.T) {
	data, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(data), "## The environment of a stdio server")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, v := range append(append([]string{"LC_*"}, hostVars...), windowsVars...) {
		if !strings.Contains(section, "`"+v+"`") {
			t.Errorf("docs/config.md's environment policy does not name %s, which stdio servers get", v)
		}
	}
}
