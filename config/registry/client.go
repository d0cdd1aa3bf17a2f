package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// DefaultURL is the official MCP Registry.
const DefaultURL = "https://registry.modelcontextprotocol.io"

// Bounds on what a registry may send.
const (
	// MaxResponse is the largest answer read (a page or one entry).
	MaxResponse = 4 << 20
	// MaxPages bounds a search's pages; pageSize is asked for each.
	MaxPages = 50
	pageSize = 100
)

// A Client talks to one registry.
type Client struct {
	base string // scheme://host[:port][/path], no trailing slash
	http *http.Client
}

// New returns a client of the registry at base (DefaultURL when ""): HTTPS,
// or plain HTTP to loopback only; no user:password. It honours
// HTTPS_PROXY and NO_PROXY, and never follows a redirect. hc, when not
// nil, is used instead (tests give one that trusts their certificate);
// its redirect policy is replaced.
func New(base string, hc *http.Client) (*Client, error) {
	if base == "" {
		base = DefaultURL
	}
	if err := safe.CheckServerURL(base, false); err != nil {
		return nil, fmt.Errorf("registry %s: %w", safe.RedactURL(base), err)
	}
	u, err := url.Parse(base)
	if err != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("registry %s: a base URL has no query or fragment", safe.RedactURL(base))
	}
	c := &http.Client{Timeout: 30 * time.Second}
	if hc != nil {
		cp := *hc
		c = &cp
	} else {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = http.ProxyFromEnvironment
		c.Transport = t
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return errRedirect }
	return &Client{base: strings.TrimRight(base, "/"), http: c}, nil
}

var errRedirect = errors.New("the registry redirected; redirects are refused")

// URL returns the registry's base URL.
func (c *Client) URL() string { return c.base }

// A StatusError is a registry's answer other than 200.
type StatusError struct {
	URL    string
	Status int
	Body   string // the start of the answer, untrusted text
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("registry %s answered %d: %s", e.URL, e.Status, safe.Sanitize(e.Body))
}

// ErrNotFound is wrapped by errors for a name or version the registry
// does not have.
var ErrNotFound = errors.New("not in the registry")

// get reads one bounded JSON answer into v.
func (c *Client) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	u := c.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("registry %s: %w", safe.RedactURL(c.base), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("registry %s: reading the answer: %w", safe.RedactURL(c.base), err)
	}
	if len(body) > MaxResponse {
		return nil, fmt.Errorf("registry %s: the answer is larger than %d bytes", safe.RedactURL(c.base), MaxResponse)
	}
	if resp.StatusCode != http.StatusOK {
		if len(body) > 200 {
			body = body[:200]
		}
		se := &StatusError{URL: safe.RedactURL(u), Status: resp.StatusCode, Body: string(body)}
		if resp.StatusCode == http.StatusNotFound {
			return nil, fmt.Errorf("%w (%w)", ErrNotFound, se)
		}
		return nil, se
	}
	return body, nil
}

// listResponse is the wire form of a page of /v0.1/servers.
type listResponse struct {
	Servers  []json.RawMessage `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
		Count      int    `json:"count"`
	} `json:"metadata"`
}

// Search returns the latest version of each server whose name holds term
// (all servers when term is ""), following metadata.nextCursor for at
// most MaxPages pages. An entry that is not a usable document is left
// out and counted in skipped.
func (c *Client) Search(ctx context.Context, term string) (entries []*Entry, skipped int, err error) {
	q := url.Values{"version": {"latest"}, "limit": {fmt.Sprint(pageSize)}}
	if term != "" {
		q.Set("search", term)
	}
	seen := map[string]bool{}
	for page := 0; ; page++ {
		if page == MaxPages {
			return entries, skipped, fmt.Errorf("registry %s: more than %d pages; narrow the search", safe.RedactURL(c.base), MaxPages)
		}
		body, err := c.get(ctx, "/v0.1/servers", q)
		if err != nil {
			return entries, skipped, err
		}
		var lr listResponse
		if err := json.Unmarshal(body, &lr); err != nil {
			return entries, skipped, fmt.Errorf("registry %s: not a server list: %v", safe.RedactURL(c.base), err)
		}
		for _, raw := range lr.Servers {
			e, err := ParseEntry(raw)
			if err != nil || seen[e.Server.Name] {
				skipped++
				continue
			}
			seen[e.Server.Name] = true
			entries = append(entries, e)
		}
		next := lr.Metadata.NextCursor
		if next == "" || len(lr.Servers) == 0 || next == q.Get("cursor") {
			return entries, skipped, nil
		}
		q.Set("cursor", next)
	}
}

// Get returns one version of a server ("latest" for the latest), deleted
// ones included (the caller refuses them, naming why).
func (c *Client) Get(ctx context.Context, name, version string) (*Entry, error) {
	if !validRegistryName(name) {
		return nil, fmt.Errorf("%q is not a registry name (namespace/name)", name)
	}
	if version == "" {
		version = "latest"
	}
	path := "/v0.1/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	body, err := c.get(ctx, path, url.Values{"include_deleted": {"true"}})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("server %q version %s: %w", name, version, err)
		}
		return nil, err
	}
	e, err := ParseEntry(body)
	if err != nil {
		return nil, err
	}
	if e.Server.Name != name || version != "latest" && e.Server.Version != version {
		return nil, &DocumentError{Name: name, Reason: fmt.Sprintf("asked for %s@%s, the registry answered %s@%s", name, version, e.Server.Name, e.Server.Version)}
	}
	return e, nil
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}
