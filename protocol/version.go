package protocol

import "slices"

// LatestVersion is the newest MCP revision this package speaks, the one
// asked for by default.
const LatestVersion = "2025-11-25"

// supportedVersions lists the revisions accepted in an initialize answer,
// newest first.
var supportedVersions = [...]string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// SupportedVersions returns the MCP revisions a session accepts, newest
// first.
func SupportedVersions() []string { return slices.Clone(supportedVersions[:]) }

// IsSupported reports whether v is one of [SupportedVersions].
func IsSupported(v string) bool { return slices.Contains(supportedVersions[:], v) }

// hasElicitationModes reports whether version v knows the form and url
// members of the elicitation capability (2025-11-25 and later).
func hasElicitationModes(v string) bool { return v >= "2025-11-25" }
