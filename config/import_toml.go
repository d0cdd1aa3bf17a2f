package config

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// tomlMember is the name the JSON importer reads a member of a TOML
// client's server entry (snake case, Codex's names) as, or false.
func tomlMember(k string) (string, bool) {
	switch k {
	case "env_vars":
		return "envVars", true
	case "bearer_token_env_var":
		return "bearerTokenEnvVar", true
	case "http_headers":
		return "headers", true
	case "env_http_headers":
		return "envHeaders", true
	case "startup_timeout_sec":
		return "startupTimeoutSec", true
	case "startup_timeout_ms":
		return "startupTimeoutMs", true
	case "tool_timeout_sec":
		return "toolTimeoutSec", true
	case "enabled_tools":
		return "enabledTools", true
	case "disabled_tools":
		return "disabledTools", true
	}
	return "", false
}

// importTOML reads the servers of a client that keeps them in TOML:
// Codex's [mcp_servers.NAME] tables, Blitz's [[mcp.servers]] array (each
// with its name).
func importTOML(client, path string, data []byte, opts ImportOptions) ([]*Imported, error) {
	root, err := parseTOML(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%v", path, err)
	}
	type named struct {
		name string
		v    any
	}
	var entries []named
	switch client {
	case ClientCodex:
		servers, ok := root.get("mcp_servers").(*tomlTable)
		if !ok && root.get("mcp_servers") != nil {
			return nil, fmt.Errorf("%s: mcp_servers is not a table", path)
		}
		if servers != nil {
			for _, k := range servers.keys {
				entries = append(entries, named{k, servers.get(k)})
			}
		}
	case ClientBlitz:
		mcp, _ := root.get("mcp").(*tomlTable)
		if mcp == nil {
			break
		}
		servers, ok := mcp.get("servers").(tomlTables)
		if !ok && mcp.get("servers") != nil {
			return nil, fmt.Errorf("%s: mcp.servers is not an array of tables ([[mcp.servers]])", path)
		}
		for i, s := range servers {
			name, _ := s.get("name").(string)
			if name == "" {
				name = fmt.Sprintf("server-%d", i+1)
			}
			entries = append(entries, named{name, s})
		}
	default:
		return nil, fmt.Errorf("%s: %s keeps its servers in JSON, not TOML", path, client)
	}
	var out []*Imported
	for _, e := range entries {
		t, ok := e.v.(*tomlTable)
		if !ok {
			im := &Imported{Name: e.name, Source: path, Scope: opts.Scope, Origin: originOf(opts.Scope), Skip: "the entry is not a table"}
			out = append(out, im)
			continue
		}
		raw, err := tomlEntryJSON(client, t)
		if err != nil {
			im := &Imported{Name: e.name, Source: path, Scope: opts.Scope, Origin: originOf(opts.Scope), Skip: err.Error()}
			out = append(out, im)
			continue
		}
		out = append(out, importEntry(client, path, opts.Scope, e.name, raw, opts))
	}
	return out, nil
}

// tomlEntryJSON writes a TOML server entry as the JSON entry the
// importer reads: known snake-case members under mcpwire's names, the
// others as they are (so that the importer names them as not carried).
func tomlEntryJSON(client string, t *tomlTable) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	for _, k := range t.keys {
		if client == ClientBlitz && k == "name" {
			continue
		}
		name := k
		if n, ok := tomlMember(k); ok {
			name = n
		}
		v, err := tomlJSON(t.get(k))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", k, err)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(marshalString(name))
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
