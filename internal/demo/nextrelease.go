package demo

import (
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// serverVersion is the version the server gives in serverInfo.
func (s *server) serverVersion() string {
	if s.nextReleaseOn() {
		return "0.2.0"
	}
	return "0.1.0"
}

// nextRelease changes the tool list as a careless next release of the
// demo would (--next-release), so that `mcpwire diff` has a real change
// to classify: crash is gone; echo gets an optional argument and a new
// description; add takes integers only; sleep gets a maximum; env needs a
// new argument; image loses its read-only hint; greet is new.
func nextRelease(base []toolDef) []toolDef {
	out := make([]toolDef, 0, len(base))
	for _, t := range base {
		switch t.Name {
		case "crash":
			continue
		case "echo":
			t.Description = "Returns the text it is given, upper-cased when asked."
			t.InputSchema = schema(`"text":{"type":"string","description":"the text to echo"},"upper":{"type":"boolean"}`, "text")
		case "add":
			t.InputSchema = schema(`"a":{"type":"integer"},"b":{"type":"integer"}`, "a", "b")
		case "sleep":
			t.InputSchema = schema(`"ms":{"type":"integer","minimum":0,"maximum":60000}`, "ms")
		case "env":
			t.InputSchema = schema(`"name":{"type":"string","x-mcp-header":"Env-Name"},"fallback":{"type":"string"}`, "name", "fallback")
		case "image":
			t.Annotations = nil
		}
		out = append(out, t)
	}
	return append(out, toolDef{Name: "greet", Title: "Greet", Description: "Greets name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
}

// descriptions reads Options.DescriptionsFile: nil when not given.
func (s *server) descriptions() (map[string]string, error) {
	if s.opts.DescriptionsFile == "" {
		return nil, nil
	}
	data, err := safe.ReadFile(s.opts.DescriptionsFile, safe.KindConfig)
	if err != nil {
		return nil, fmt.Errorf("reading the descriptions: %v", err)
	}
	var desc map[string]string
	if err := json.Unmarshal(data, &desc); err != nil {
		return nil, fmt.Errorf("reading the descriptions: %v", err)
	}
	return desc, nil
}

// instructions are the server's instructions: those of the descriptions
// file (its member "(instructions)") when it has them.
func (s *server) instructions() string {
	if desc, _ := s.descriptions(); desc["(instructions)"] != "" {
		return desc["(instructions)"]
	}
	return s.instructionsText()
}

// describe sets the descriptions of tools from Options.DescriptionsFile,
// when given.
func (s *server) describe(tools []toolDef) error {
	desc, err := s.descriptions()
	if err != nil {
		return err
	}
	for i := range tools {
		if d, ok := desc[tools[i].Name]; ok {
			tools[i].Description = d
		}
	}
	return nil
}

// nextReleaseOn says whether the next release is served: --next-release,
// or a descriptions file whose member "(next-release)" is set (a test's
// server upgrade between connections).
func (s *server) nextReleaseOn() bool {
	if s.opts.NextRelease {
		return true
	}
	desc, _ := s.descriptions()
	return desc["(next-release)"] != ""
}
