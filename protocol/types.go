package protocol

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// The wire types below follow schema.ts of 2025-11-25 (and the members
// 2026-07-28 adds) member for member;
// unknown members are ignored, so older and newer servers decode too.
// Members that are free-form JSON (schemas, _meta, structuredContent) are
// kept as json.RawMessage, exactly as the server sent them.

// An Implementation names a client or a server (clientInfo, serverInfo).
type Implementation struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// An Icon is an image a server offers for itself, a tool, a prompt or a
// resource. Src is untrusted: a URL or a data: URI.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// ListChangedCapability is a server capability that may announce changes
// of its list.
type ListChangedCapability struct {
	ListChanged bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is the server's resources capability.
type ResourcesCapability struct {
	Subscribe   bool `json:"subscribe,omitempty"`
	ListChanged bool `json:"listChanged,omitempty"`
}

// ServerCapabilities says what a server offers; a nil member was not
// declared. Logging, Completions, Tasks and Experimental are kept raw.
type ServerCapabilities struct {
	Experimental json.RawMessage        `json:"experimental,omitempty"`
	Logging      json.RawMessage        `json:"logging,omitempty"`
	Completions  json.RawMessage        `json:"completions,omitempty"`
	Prompts      *ListChangedCapability `json:"prompts,omitempty"`
	Resources    *ResourcesCapability   `json:"resources,omitempty"`
	Tools        *ListChangedCapability `json:"tools,omitempty"`
	Tasks        json.RawMessage        `json:"tasks,omitempty"`
	Extensions   json.RawMessage        `json:"extensions,omitempty"`
}

// declared reports whether a raw capability member is present (null is
// taken as absent).
func declared(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// HasLogging reports whether the server declared the logging capability.
func (c *ServerCapabilities) HasLogging() bool { return declared(c.Logging) }

// HasCompletions reports whether the server declared the completions
// capability.
func (c *ServerCapabilities) HasCompletions() bool { return declared(c.Completions) }

// Names lists the declared capabilities, for reports: "tools",
// "resources", "resources.subscribe", "prompts", "logging", "completions",
// "tasks", "experimental", with ".listChanged" entries where declared.
func (c *ServerCapabilities) Names() []string {
	var out []string
	if c.Tools != nil {
		out = append(out, "tools")
		if c.Tools.ListChanged {
			out = append(out, "tools.listChanged")
		}
	}
	if c.Resources != nil {
		out = append(out, "resources")
		if c.Resources.Subscribe {
			out = append(out, "resources.subscribe")
		}
		if c.Resources.ListChanged {
			out = append(out, "resources.listChanged")
		}
	}
	if c.Prompts != nil {
		out = append(out, "prompts")
		if c.Prompts.ListChanged {
			out = append(out, "prompts.listChanged")
		}
	}
	if declared(c.Logging) {
		out = append(out, "logging")
	}
	if declared(c.Completions) {
		out = append(out, "completions")
	}
	if declared(c.Tasks) {
		out = append(out, "tasks")
	}
	if declared(c.Experimental) {
		out = append(out, "experimental")
	}
	if declared(c.Extensions) {
		out = append(out, "extensions")
	}
	return out
}

// InitializeResult is the server's answer to initialize.
type InitializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
	Meta            json.RawMessage    `json:"_meta,omitempty"`
}

// Annotations are the client-facing hints on content and resources.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// ToolAnnotations are hints about a tool's behaviour. They are untrusted:
// a server may say anything.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolExecution says whether a tool supports task-augmented calls.
type ToolExecution struct {
	TaskSupport string `json:"taskSupport,omitempty"` // "forbidden", "optional", "required"
}

// A Tool is one entry of tools/list.
type Tool struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description,omitempty"`
	InputSchema  json.RawMessage  `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
	Execution    *ToolExecution   `json:"execution,omitempty"`
	Icons        []Icon           `json:"icons,omitempty"`
	Meta         json.RawMessage  `json:"_meta,omitempty"`
}

// DisplayName returns the tool's title, else its annotations' title, else
// its name, as the spec orders them.
func (t *Tool) DisplayName() string {
	switch {
	case t.Title != "":
		return t.Title
	case t.Annotations != nil && t.Annotations.Title != "":
		return t.Annotations.Title
	}
	return t.Name
}

// ResourceContents is one item of resources/read, or an embedded
// resource: text (Text) or binary (Blob, base64).
type ResourceContents struct {
	URI      string          `json:"uri"`
	MimeType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Meta     json.RawMessage `json:"_meta,omitempty"`
}

// IsBlob reports whether the contents are binary.
func (r *ResourceContents) IsBlob() bool { return r.Blob != "" }

// Bytes returns the contents: the decoded blob, or the text's bytes.
func (r *ResourceContents) Bytes() ([]byte, error) {
	if r.Blob == "" {
		return []byte(r.Text), nil
	}
	b, err := base64.StdEncoding.DecodeString(r.Blob)
	if err != nil {
		return nil, fmt.Errorf("decoding blob of %s: %v", r.URI, err)
	}
	return b, nil
}

// Content is one content block: Type says which members are set.
//
//   - "text": Text
//   - "image", "audio": Data (base64) and MimeType
//   - "resource_link": URI, Name, and optionally Title, Description,
//     MimeType, Size, Icons
//   - "resource": Resource (embedded text or blob)
//
// Sampling's "tool_use" and "tool_result" blocks decode too; their other
// members are ignored.
type Content struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Data        string            `json:"data,omitempty"`
	MimeType    string            `json:"mimeType,omitempty"`
	URI         string            `json:"uri,omitempty"`
	Name        string            `json:"name,omitempty"`
	Title       string            `json:"title,omitempty"`
	Description string            `json:"description,omitempty"`
	Size        *int64            `json:"size,omitempty"`
	Icons       []Icon            `json:"icons,omitempty"`
	Resource    *ResourceContents `json:"resource,omitempty"`
	Annotations *Annotations      `json:"annotations,omitempty"`
	Meta        json.RawMessage   `json:"_meta,omitempty"`
}

// DataBytes decodes Data (image and audio content).
func (c *Content) DataBytes() ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(c.Data)
	if err != nil {
		return nil, fmt.Errorf("decoding %s data: %v", c.Type, err)
	}
	return b, nil
}

// CallToolResult is the answer to tools/call. IsError is the tool's own
// failure, reported as a result, not as an error.
type CallToolResult struct {
	Content           []Content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              json.RawMessage `json:"_meta,omitempty"`

	// OutputProblem, when not empty, says how StructuredContent fails the
	// tool's outputSchema (known when the tool was listed on this
	// session). It is never sent or received.
	OutputProblem string `json:"-"`
}

// A Resource is one entry of resources/list.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Size        *int64          `json:"size,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// A ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Annotations *Annotations    `json:"annotations,omitempty"`
	Icons       []Icon          `json:"icons,omitempty"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// ReadResourceResult is the answer to resources/read. A modern server
// says how long it may be taken as fresh (TTLMs) and who may share it
// (CacheScope: "public" or "private").
type ReadResourceResult struct {
	Contents   []ResourceContents `json:"contents"`
	TTLMs      *int64             `json:"ttlMs,omitempty"`
	CacheScope string             `json:"cacheScope,omitempty"`
	Meta       json.RawMessage    `json:"_meta,omitempty"`
}

// A Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Icons       []Icon           `json:"icons,omitempty"`
	Meta        json.RawMessage  `json:"_meta,omitempty"`
}

// A PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`

	// sent: the server sent required (false too), and it is encoded
	// again as sent (a proxy passes on what its server said).
	sent bool
}

// promptArgument is PromptArgument without its methods.
type promptArgument PromptArgument

// UnmarshalJSON notes whether the argument's required was sent.
func (a *PromptArgument) UnmarshalJSON(b []byte) error {
	var w struct {
		promptArgument
		Required *bool `json:"required"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*a = PromptArgument(w.promptArgument)
	if w.Required != nil {
		a.Required, a.sent = *w.Required, true
	}
	return nil
}

// MarshalJSON encodes required when it is true or was sent false.
func (a PromptArgument) MarshalJSON() ([]byte, error) {
	if !a.sent || a.Required {
		return json.Marshal(promptArgument(a))
	}
	return json.Marshal(struct {
		promptArgument
		Required bool `json:"required"`
	}{promptArgument(a), false})
}

// Plain is a without what it remembers of how it was sent (a snapshot
// holds what an argument means, not how it was spelled).
func (a PromptArgument) Plain() PromptArgument {
	return PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required}
}

// A PromptMessage is one message of a prompt.
type PromptMessage struct {
	Role    string  `json:"role"` // "user" or "assistant"
	Content Content `json:"content"`
}

// GetPromptResult is the answer to prompts/get.
type GetPromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Meta        json.RawMessage `json:"_meta,omitempty"`
}

// A Reference names what completion/complete completes: a prompt
// ("ref/prompt", Name) or a resource template ("ref/resource", URI).
type Reference struct {
	Type string `json:"type"`
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// PromptRef returns a reference to the prompt name.
func PromptRef(name string) Reference { return Reference{Type: "ref/prompt", Name: name} }

// ResourceRef returns a reference to the resource template uriTemplate.
func ResourceRef(uriTemplate string) Reference {
	return Reference{Type: "ref/resource", URI: uriTemplate}
}

// Completion is the completion member of completion/complete's answer.
type Completion struct {
	Values  []string `json:"values"`
	Total   *int64   `json:"total,omitempty"`
	HasMore bool     `json:"hasMore,omitempty"`
}

// CompleteResult is the answer to completion/complete.
type CompleteResult struct {
	Completion Completion      `json:"completion"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
}

// ProgressParams is the body of notifications/progress.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"` // a JSON string or integer, as sent
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
}

// LogParams is the body of notifications/message.
type LogParams struct {
	Level  string          `json:"level"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data"`
}

// logLevels are the levels of logging/setLevel and notifications/message,
// from least to most severe.
var logLevels = [...]string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// LogLevels returns the logging levels, from least to most severe.
func LogLevels() []string { return append([]string(nil), logLevels[:]...) }

// A Root is a directory or file the client offers the server (roots/list).
type Root struct {
	URI  string          `json:"uri"` // a file:// URI
	Name string          `json:"name,omitempty"`
	Meta json.RawMessage `json:"_meta,omitempty"`
}

// ElicitParams is the body of elicitation/create: form mode (Mode "form"
// or empty, RequestedSchema) or URL mode (Mode "url", URL, ElicitationID).
type ElicitParams struct {
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	ElicitationID   string          `json:"elicitationId,omitempty"`
	URL             string          `json:"url,omitempty"`
	Meta            json.RawMessage `json:"_meta,omitempty"`
}

// ElicitResult answers elicitation/create. Action is "accept", "decline"
// or "cancel"; Content is set with "accept" in form mode.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}
