package cli

import (
	"net/url"
	"os"
	"path/filepath"

	"github.com/mcpwire/mcpwire/protocol"
)

// rootsFrom turns directories (relative to dir) into file:// roots.
func rootsFrom(dir string, dirs []string) ([]protocol.Root, error) {
	var roots []protocol.Root
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(dir, d)
		}
		fi, err := os.Stat(d)
		if err != nil {
			return nil, usageErr("--root %s: %v", d, err)
		}
		if !fi.IsDir() {
			return nil, usageErr("--root %s: not a directory", d)
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		roots = append(roots, protocol.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	return roots, nil
}
