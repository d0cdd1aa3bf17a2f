package surface

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpwire/mcpwire/protocol"
)

// Client is what mcpwire declared when a snapshot was taken: the
// revision and its era, the client capabilities, the roots offered, and
// how elicitation and sampling were answered. A server may offer more (or
// fewer) tools to a client that declares more, so `diff` against a live
// server connects with exactly this declaration (Same compares two).
type Client struct {
	Protocol     string          `json:"protocol"`
	Era          string          `json:"era"`
	Capabilities json.RawMessage `json:"capabilities"`
	// Roots are the URIs of the roots offered; none when the roots
	// capability was not declared.
	Roots []string `json:"roots"`
	// Elicitation is how elicitation requests were answered: "none" (not
	// declared), "interactive", "defaults", "decline", "cancel" or "file";
	// ElicitationModes the modes declared ("form", "url").
	Elicitation      string   `json:"elicitation"`
	ElicitationModes []string `json:"elicitationModes"`
	// Sampling is "none" (not declared) or "canned" (answered from a file).
	Sampling string `json:"sampling"`
}

// NewClient builds the declaration of a session: version is the revision
// spoken, caps the capabilities declared, roots the URIs offered,
// elicitation and sampling the answering modes.
func NewClient(version string, caps map[string]any, roots []string, elicitation, sampling string) (*Client, error) {
	raw, err := json.Marshal(caps)
	if err != nil {
		return nil, err
	}
	c := &Client{Protocol: version, Era: string(protocol.EraOf(version)), Roots: slices.Sorted(slices.Values(roots)),
		Elicitation: elicitation, ElicitationModes: []string{}, Sampling: sampling}
	if c.Roots == nil {
		c.Roots = []string{}
	}
	if c.Capabilities, err = NormalizeJSON(raw); err != nil {
		return nil, fmt.Errorf("client capabilities: %v", err)
	}
	if el, ok := caps["elicitation"]; ok {
		c.ElicitationModes = append(c.ElicitationModes, "form") // the only mode before 2025-11-25
		if m, ok := el.(map[string]any); ok {
			if _, url := m["url"]; url {
				c.ElicitationModes = append(c.ElicitationModes, "url")
			}
		}
	}
	return c, nil
}

// DeclaresElicitation, DeclaresSampling, DeclaresRoots say which of the
// capabilities a person or a model answers were declared.
func (c *Client) DeclaresElicitation() bool { return c.has("elicitation") }

// DeclaresSampling says whether sampling was declared.
func (c *Client) DeclaresSampling() bool { return c.has("sampling") }

// DeclaresRoots says whether roots were declared.
func (c *Client) DeclaresRoots() bool { return c.has("roots") }

// DeclaresURLElicitation says whether URL mode elicitation was declared.
func (c *Client) DeclaresURLElicitation() bool { return slices.Contains(c.ElicitationModes, "url") }

func (c *Client) has(name string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(c.Capabilities, &m) != nil {
		return false
	}
	_, ok := m[name]
	return ok
}

// Same says whether two declarations would show a server the same
// client: the same revision and the same capabilities (how the requests
// were answered does not change what is offered).
func (c *Client) Same(o *Client) bool {
	return c.Protocol == o.Protocol && string(c.Capabilities) == string(o.Capabilities) && slices.Equal(c.Roots, o.Roots)
}
