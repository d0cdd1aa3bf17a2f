//go:build !unix

package cli

import "os"

// openTerminal returns nil: prompts read stdin through a goroutine.
func openTerminal(*os.File) *os.File { return nil }
