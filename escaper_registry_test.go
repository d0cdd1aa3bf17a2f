package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/hostile"
)

// hostileRegistry serves /v0.1 of the MCP Registry with one entry per
// hostile string, each holding it in every text a registry sends: title,
// description, status message, post-install steps, a remote's URL, a
// header's and an argument's default, a package's identifier. One more
// entry has a hostile name (which the client must leave out).
func hostileRegistry(t *testing.T) *httptest.Server {
	var entries []map[string]any
	for i, s := range hostile.Strings {
		server := map[string]any{"name": fmt.Sprintf("io.hostile/s%d", i), "title": "title " + s.S, "description": "desc " + s.S, "version": "1.0.0",
			"remotes": []any{map[string]any{"type": "streamable-http", "url": "https://h.example/" + s.S,
				"headers": []any{map[string]any{"name": "X-A", "default": s.S, "description": s.S}}}},
			"packages": []any{map[string]any{"registryType": "npm", "identifier": "pkg" + s.S, "version": "1.0.0", "transport": map[string]any{"type": "stdio"},
				"packageArguments": []any{map[string]any{"type": "positional", "valueHint": "v", "default": s.S}}}},
			"_meta": map[string]any{"io.modelcontextprotocol.registry/publisher-provided": map[string]any{"postInstallInstructions": "step " + s.S}}}
		entries = append(entries, map[string]any{"server": server, "_meta": map[string]any{"io.modelcontextprotocol.registry/official": map[string]any{
			"status": "deprecated", "statusMessage": "msg " + s.S, "publishedAt": "2026-01-01T00:00:00Z", "isLatest": true}}})
	}
	entries = append(entries, map[string]any{"server": map[string]any{"name": "bad " + hostile.All(), "version": "1", "description": "x"}})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if r.URL.Path == "/v0.1/servers" {
			enc.Encode(map[string]any{"servers": entries, "metadata": map[string]any{"count": len(entries)}})
			return
		}
		rest, _ := strings.CutPrefix(r.URL.EscapedPath(), "/v0.1/servers/")
		name, _, _ := strings.Cut(rest, "/versions/")
		name, _ = url.PathUnescape(name)
		for _, e := range entries {
			if e["server"].(map[string]any)["name"] == name {
				enc.Encode(e)
				return
			}
		}
		http.Error(w, "not found "+hostile.All(), http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// registryRuns are the registry commands of the hostile walk.
func registryRuns(t *testing.T) [][]string {
	u := hostileRegistry(t).URL
	return [][]string{
		{"search", "io", "--registry", u}, {"search", "nosuch" + strings.ReplaceAll(hostile.All(), "\x00", ""), "--registry", u},
		{"install", "io.hostile/s0", "--registry", u, "-s", "project", "--yes"},
		{"install", "io.hostile/s11", "--registry", u, "--package", "npm", "-s", "project", "--yes", "--as", "s11"},
		{"install", "io.hostile/s2", "--registry", u, "--yes"}, {"install", "io.hostile/nosuch", "--registry", u, "--yes"},
		{"outdated"}, {"upgrade", "--all", "--yes"}, {"sync", "--frozen"},
	}
}
