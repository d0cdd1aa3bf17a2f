package protocol

import "slices"

// An Era is how a server speaks MCP (2026-07-28/basic/versioning.mdx):
// modern servers take each request on its own, with the protocol version
// and client capabilities in its _meta; legacy servers open a session with
// the initialize handshake.
type Era string

// The eras.
const (
	// EraModern is revision 2026-07-28 and later: no initialize, no
	// sessions; server/discover, per-request _meta, multi round-trip
	// requests, subscriptions/listen.
	EraModern Era = "modern"
	// EraLegacy is 2025-11-25 and earlier: the initialize handshake.
	EraLegacy Era = "legacy"
)

// LatestVersion is the newest MCP revision this package speaks, the one
// asked for first by default.
const LatestVersion = ModernVersion

// ModernVersion is the modern revision this package speaks.
const ModernVersion = "2026-07-28"

// LatestLegacyVersion is the newest legacy revision, the one asked for in
// initialize unless a version is pinned.
const LatestLegacyVersion = "2025-11-25"

// supportedVersions lists the revisions this package speaks, newest first.
var supportedVersions = [...]string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// SupportedVersions returns the MCP revisions a session speaks, newest
// first.
func SupportedVersions() []string { return slices.Clone(supportedVersions[:]) }

// IsSupported reports whether v is one of [SupportedVersions].
func IsSupported(v string) bool { return slices.Contains(supportedVersions[:], v) }

// EraOf returns the era of revision v: modern from 2026-07-28 on, legacy
// before. Revisions are dates, so they compare as strings.
func EraOf(v string) Era {
	if v >= ModernVersion {
		return EraModern
	}
	return EraLegacy
}

// isLegacySupported reports whether v is a legacy revision this package
// speaks (one initialize may ask for or accept).
func isLegacySupported(v string) bool { return IsSupported(v) && EraOf(v) == EraLegacy }

// bestCommon returns the newest revision of offered that this package
// speaks and that is of era (any era when era is ""), or "".
func bestCommon(offered []string, era Era) string {
	for _, v := range supportedVersions {
		if slices.Contains(offered, v) && (era == "" || EraOf(v) == era) {
			return v
		}
	}
	return ""
}

// hasElicitationModes reports whether version v knows the form and url
// members of the elicitation capability (2025-11-25 and later).
func hasElicitationModes(v string) bool { return v >= "2025-11-25" }
