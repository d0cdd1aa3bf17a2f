package protocol

import "encoding/json"

// MCP Apps (the io.modelcontextprotocol/ui extension, docs/extensions/apps):
// a tool may declare a UI resource, a ui:// resource the host can render,
// in _meta.ui.resourceUri (earlier drafts: _meta["ui/resourceUri"]). The
// resource is an ordinary one, listed and read as any other; mcpwire
// renders nothing.

// ExtUI is the identifier of the MCP Apps extension.
const ExtUI = "io.modelcontextprotocol/ui"

// UIResource returns the URI of the UI resource the tool declares, ""
// when it declares none (or one that is not a ui:// URI).
func (t *Tool) UIResource() string {
	if !declared(t.Meta) {
		return ""
	}
	var m struct {
		UI struct {
			ResourceURI string `json:"resourceUri"`
		} `json:"ui"`
		Flat string `json:"ui/resourceUri"`
	}
	if json.Unmarshal(t.Meta, &m) != nil {
		return ""
	}
	uri := m.UI.ResourceURI
	if uri == "" {
		uri = m.Flat
	}
	if len(uri) < len("ui://") || uri[:len("ui://")] != "ui://" {
		return ""
	}
	return uri
}
