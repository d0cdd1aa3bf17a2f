package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// An acceptRule is one line of a `diff --accept` file: a change to the
// item of this kind and name is known and fails nothing.
type acceptRule struct{ kind, name string }

// acceptKind is the kind a rule names, in the words of the output (a
// "resource template" may be written resourceTemplate), or false.
func acceptKind(word string) (string, bool) {
	switch word {
	case "server", "capability", "tool", "resource", "resourceTemplate", "prompt":
		return word, true
	case "template":
		return "resourceTemplate", true
	}
	return "", false
}

// readAccept reads a --accept file: one `KIND NAME` a line; blank lines
// and lines starting with # are skipped; NAME may be * for every item of
// the kind.
func readAccept(dir, name string) ([]acceptRule, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	data, err := safe.ReadFile(path, safe.KindConfig)
	if err != nil {
		return nil, usageErr("--accept: reading %s: %v", name, err)
	}
	return parseAccept(name, string(data))
}

// parseAccept parses the lines of a --accept file named name.
func parseAccept(name, text string) ([]acceptRule, error) {
	var rules []acceptRule
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, item, _ := strings.Cut(line, " ")
		k, ok := acceptKind(kind)
		item = strings.TrimSpace(item)
		if !ok || item == "" {
			return nil, usageErr("--accept %s:%d: %q is not KIND NAME (KIND: server, capability, tool, resource, resourceTemplate, prompt)", name, i+1, safe.Sanitize(oneLine(line, 80)))
		}
		rules = append(rules, acceptRule{k, item})
	}
	return rules, nil
}

// accepted says whether a rule lists the change's item.
func accepted(rules []acceptRule, c *change) bool {
	for _, r := range rules {
		if r.kind == c.Item && (r.name == "*" || r.name == c.Name) {
			return true
		}
	}
	return false
}

// acceptedLine is an accepted change for people.
func acceptedLine(c change) string { return fmt.Sprintf("%s (%s)", changeLine(c), c.Class) }
