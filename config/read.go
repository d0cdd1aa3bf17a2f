package config

import (
	"path/filepath"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// readServerFile reads a server file of scope through the one bounded
// reader. A project file is its repository's: a symbolic link that leads
// out of its folder (to the user's own ~/.claude.json or home .mcp.json,
// whose secrets a project's review would show) is refused.
func readServerFile(path, scope string) ([]byte, error) {
	if scope == ScopeProject {
		return safe.ReadFileIn(filepath.Dir(path), path, safe.KindConfig)
	}
	return safe.ReadFile(path, safe.KindConfig)
}
