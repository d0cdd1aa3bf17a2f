// Package registry is mcpwire's client of an MCP Registry (the official
// one at [DefaultURL], or any subregistry serving the same /v0.1 API):
// search and resolve server.json documents, turn one into a server
// definition with its inputs bound ([Plan]), and read and write the lock
// file (mcp.lock) that pins what a project installed.
//
// Everything a registry sends is untrusted: responses are bounded in
// size, documents are checked before use, and every string is text to
// sanitize (internal/safe) before it reaches a terminal. The base URL is
// HTTPS, or plain HTTP to loopback only.
package registry
