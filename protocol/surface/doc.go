// Package surface is the engine behind a server's surface: the normalized
// snapshot of what a server offers (identity, revision, capabilities,
// tools with their schemas and annotations, resources, templates and
// prompts), the diff of two snapshots with each change classed as
// breaking or compatible, and the per-tool fingerprints that pin what a
// person approved.
//
// It imports protocol only (for its types) and does no I/O: callers list
// the server, read and write the files, and print the changes.
package surface
