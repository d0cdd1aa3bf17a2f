package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Statuses of a registry entry (the official extension's "status").
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// Package types of server.json (registryType) that mcpwire installs.
const (
	PackageNPM   = "npm"
	PackagePyPI  = "pypi"
	PackageNuGet = "nuget"
	PackageOCI   = "oci"
	PackageMCPB  = "mcpb"
)

// A Server is a server.json document, as far as mcpwire reads it.
type Server struct {
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
	Meta        *serverMeta `json:"_meta,omitempty"`
}

// serverMeta is the publisher's part of a document's _meta.
type serverMeta struct {
	Publisher struct {
		PostInstall json.RawMessage `json:"postInstallInstructions,omitempty"`
	} `json:"io.modelcontextprotocol.registry/publisher-provided"`
}

// PostInstall returns the publisher's "postInstallInstructions" (in the
// publisher-provided _meta; a string or an array of strings), as steps
// for the user to do by hand: mcpwire shows them and never runs them.
func (s *Server) PostInstall() []string {
	if s.Meta == nil || len(s.Meta.Publisher.PostInstall) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(s.Meta.Publisher.PostInstall, &one) == nil {
		return nonEmptyLines(one)
	}
	var list []string
	if json.Unmarshal(s.Meta.Publisher.PostInstall, &list) == nil {
		var out []string
		for _, l := range list {
			out = append(out, nonEmptyLines(l)...)
		}
		return out
	}
	return nil
}

func nonEmptyLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// A Transport is a package's transport or a remote.
type Transport struct {
	Type      string           `json:"type"`
	URL       string           `json:"url,omitempty"`
	Headers   []KeyValueInput  `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// A Package is one way to run the server locally.
type Package struct {
	RegistryType     string          `json:"registryType"`
	RegistryBaseURL  string          `json:"registryBaseUrl,omitempty"`
	Identifier       string          `json:"identifier"`
	Version          string          `json:"version,omitempty"`
	FileSHA256       string          `json:"fileSha256,omitempty"`
	RuntimeHint      string          `json:"runtimeHint,omitempty"`
	Transport        Transport       `json:"transport"`
	RuntimeArguments []Argument      `json:"runtimeArguments,omitempty"`
	PackageArguments []Argument      `json:"packageArguments,omitempty"`
	Env              []KeyValueInput `json:"environmentVariables,omitempty"`
}

// An Input is a value the user may have to give.
type Input struct {
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	Format      string           `json:"format,omitempty"`
	Value       string           `json:"value,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// A KeyValueInput is a header or an environment variable.
type KeyValueInput struct {
	Input
	Name string `json:"name"`
}

// An Argument is a positional or named argument of a command.
type Argument struct {
	Input
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// Official is the registry's own metadata of an entry.
type Official struct {
	Status          string `json:"status"`
	StatusMessage   string `json:"statusMessage,omitempty"`
	StatusChangedAt string `json:"statusChangedAt,omitempty"`
	PublishedAt     string `json:"publishedAt,omitempty"`
	UpdatedAt       string `json:"updatedAt,omitempty"`
	IsLatest        bool   `json:"isLatest"`
}

// An Entry is one version of a server as a registry answers it.
type Entry struct {
	Server   Server
	Official Official
	// Raw is the server.json document as the registry sent it; Digest is
	// "sha256:" and the hex SHA-256 of its compacted bytes.
	Raw    json.RawMessage
	Digest string
}

// serverResponse is the wire form of an entry.
type serverResponse struct {
	Server json.RawMessage `json:"server"`
	Meta   struct {
		Official *Official `json:"io.modelcontextprotocol.registry/official"`
	} `json:"_meta"`
}

// A DocumentError says that a registry answer is not a usable document.
type DocumentError struct {
	Name   string // the server's name, when known
	Reason string
}

func (e *DocumentError) Error() string {
	if e.Name == "" {
		return "registry answer: " + e.Reason
	}
	return fmt.Sprintf("registry entry %q: %s", e.Name, e.Reason)
}

// ParseEntry reads one {"server": …, "_meta": …} object of a registry
// answer and checks its server.json ([ParseServer]).
func ParseEntry(data []byte) (*Entry, error) {
	var r serverResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &DocumentError{Reason: "not a server response: " + err.Error()}
	}
	return entryOf(&r)
}

func entryOf(r *serverResponse) (*Entry, error) {
	s, err := ParseServer(r.Server)
	if err != nil {
		return nil, err
	}
	e := &Entry{Server: *s, Raw: r.Server, Digest: documentDigest(r.Server)}
	if r.Meta.Official != nil {
		e.Official = *r.Meta.Official
	}
	switch e.Official.Status {
	case "":
		e.Official.Status = StatusActive
	case StatusActive, StatusDeprecated, StatusDeleted:
	default:
		return nil, &DocumentError{Name: s.Name, Reason: fmt.Sprintf("unknown status %q", e.Official.Status)}
	}
	return e, nil
}

// ParseServer reads and checks a server.json document: a name of the
// registry's form, a version, and packages and remotes mcpwire can read
// (their problems are reported when one is chosen, see [Plan]).
func ParseServer(data []byte) (*Server, error) {
	var s Server
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, &DocumentError{Reason: "not a server.json document: " + err.Error()}
	}
	if !validRegistryName(s.Name) || len(s.Name) > 200 {
		return nil, &DocumentError{Reason: fmt.Sprintf("server name %q is not of the form namespace/name", s.Name)}
	}
	if s.Version == "" || len(s.Version) > 255 {
		return nil, &DocumentError{Name: s.Name, Reason: "no version"}
	}
	if strings.ContainsAny(s.Version, "/\x00") || strings.TrimSpace(s.Version) != s.Version {
		return nil, &DocumentError{Name: s.Name, Reason: fmt.Sprintf("version %q is not a plain version", s.Version)}
	}
	return &s, nil
}

// documentDigest is "sha256:" and the SHA-256 of doc, compacted.
func documentDigest(doc []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, doc) != nil {
		b.Reset()
		b.Write(doc)
	}
	return sha256Hex(b.Bytes())
}
