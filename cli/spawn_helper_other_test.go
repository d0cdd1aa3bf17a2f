//go:build !unix

package cli

const spawnHelperArg = "mcpwire-test-helper"

func spawnHelper([]string) int { return 2 }
