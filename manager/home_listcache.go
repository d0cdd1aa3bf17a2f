package manager

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// ListCacheFile is the home's cache of each server's tool list, beyond
// what the spec asks (its ttlMs caching lives within one session): so
// that `mcpwire list --cached` answers without starting anything, and a
// Manager with Options.CachedTools offers tools at once while its servers
// start. An entry is keyed by the digest of the definition (as the era
// cache's, which covers env and header values only hashed) and the
// revision the client pinned (none: both eras), and holds the era,
// revision and client capabilities it was listed under; it is used only
// when the capabilities are the same. A list that is not "public"
// (cacheScope "private", or none given) is served only under the auth
// context it was listed under (see authDigest). The file is 0600, written
// atomically under its lock, read through safe.ReadFile, at most
// maxListEntries servers and maxCachedTools tools each.
const ListCacheFile = "list-cache.json"

const (
	maxListEntries = 128
	maxCachedTools = 4096
	// listRefresh is how old an unchanged entry may get before a new
	// listing writes it again (its age is what list --cached shows).
	listRefresh = time.Minute
)

// A CachedList is what the list cache holds of one server.
type CachedList struct {
	Era      protocol.Era `json:"era"`
	Protocol string       `json:"protocol"`
	Caps     string       `json:"caps"` // the client capabilities it was listed under
	Saved    time.Time    `json:"saved"`
	// Scope is the list's cacheScope: "public" is served whatever the
	// credentials; anything else ("private", or none given) only under
	// the auth context it was listed under, whose keyed digest Auth is.
	Scope string           `json:"scope,omitempty"`
	Auth  string           `json:"auth,omitempty"`
	Tools []*protocol.Tool `json:"tools"`
}

type listCacheFile struct {
	Version int                    `json:"version"`
	Servers map[string]*CachedList `json:"servers"`
}

func (h *Home) listCachePath() string { return filepath.Join(h.dir, ListCacheFile) }

// readListCache reads the cache file; a missing or unreadable one is
// empty.
func (h *Home) readListCache() *listCacheFile {
	f := &listCacheFile{Version: 1, Servers: map[string]*CachedList{}}
	if h == nil {
		return f
	}
	data, err := safe.ReadFile(h.listCachePath(), safe.KindCache)
	if err != nil {
		return f
	}
	var got listCacheFile
	if json.Unmarshal(data, &got) == nil && got.Version == 1 && got.Servers != nil {
		f.Servers = got.Servers
	}
	return f
}

// listKey is the cache key of spec's server listed by a client that
// pinned the revision pin ("": none, both eras spoken); spec's own
// protocolVersion, when set, is the pin. A list taken under another
// revision is not served. "" when the home has no key to key it by:
// nothing is then cached.
func (h *Home) listKey(spec *Spec, pin string) string {
	if spec.ProtocolVersion != "" {
		pin = spec.ProtocolVersion
	}
	key := cacheKey(h.dir)
	if key == nil {
		return ""
	}
	k := "def:" + defDigest(key, spec)
	if pin != "" {
		k += " protocol:" + pin
	}
	return k
}

// CachedTools returns the cached tool list of spec's server, listed under
// the client capabilities caps (see CapsKey) and spec's pinned revision,
// if the cache has one.
func (h *Home) CachedTools(spec *Spec, caps string) (*CachedList, bool) {
	if h == nil || spec == nil {
		return nil, false
	}
	return h.readListCache().lookup(h, spec, "", caps)
}

func (f *listCacheFile) lookup(h *Home, spec *Spec, pin, caps string) (*CachedList, bool) {
	k := h.listKey(spec, pin)
	e := f.Servers[k]
	if k == "" || e == nil || e.Caps != caps || !protocol.IsSupported(e.Protocol) || len(e.Tools) > maxCachedTools {
		return nil, false
	}
	if !h.servable(e, spec) {
		return nil, false
	}
	e.Tools = slices.DeleteFunc(e.Tools, func(t *protocol.Tool) bool { return t == nil || t.Name == "" })
	return e, true
}

// storeTools records spec's tool list, listed by a client that pinned
// pin; failures are ignored (a cache).
func (h *Home) storeTools(spec *Spec, pin string, era protocol.Era, version, caps, scope string, tools []*protocol.Tool) {
	if h == nil || len(tools) > maxCachedTools {
		return
	}
	auth := ""
	if scope != "public" {
		if auth = h.authDigest(spec); auth == "" {
			return // no key to key it by: not cached
		}
	}
	key := h.listKey(spec, pin)
	if key == "" {
		return
	}
	now := time.Now()
	if old, ok := h.readListCache().Servers[key]; ok && old.Era == era && old.Protocol == version && old.Caps == caps &&
		old.Scope == scope && old.Auth == auth && now.Sub(old.Saved) < listRefresh && sameTools(old.Tools, tools) {
		return // nothing to write
	}
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return
	}
	lock, err := safe.Lock(h.listCachePath())
	if err != nil {
		return
	}
	defer lock.Unlock()
	f := h.readListCache()
	f.Servers[key] = &CachedList{Era: era, Protocol: version, Caps: caps, Saved: now, Scope: scope, Auth: auth, Tools: tools}
	if len(f.Servers) > maxListEntries {
		keys := make([]string, 0, len(f.Servers))
		for k := range f.Servers {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return f.Servers[b].Saved.Compare(f.Servers[a].Saved) })
		for _, k := range keys[maxListEntries:] {
			delete(f.Servers, k)
		}
	}
	data, err := json.Marshal(f)
	if err != nil {
		return
	}
	_ = safe.WritePrivate(h.listCachePath(), append(data, '\n'))
}

// sameTools says whether two tool lists encode the same.
func sameTools(a, b []*protocol.Tool) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// capsKey names the client capabilities the Manager declares to s, as
// the list cache keys its entries: a list listed under other capabilities
// (roots, elicitation offered or not) is not served.
func (s *server) capsKey() string {
	o := &s.m.opts
	roots := len(o.Roots) > 0 || o.ListRoots != nil || s.spec != nil && len(s.spec.Roots) > 0
	key := fmt.Sprintf("roots=%t elicit=%t", roots, o.Elicit != nil)
	if o.Sample != nil {
		key += " sample=true"
	}
	return key
}

// cachedOffersLocked is the offer of the cached tools; s.mu is held.
func (s *server) cachedOffersLocked() []offer {
	if s.cachedOffers == nil || s.offersDef != s.def {
		name := s.def.Name
		out := make([]offer, 0, len(s.cached.Tools))
		for _, t := range s.cached.Tools {
			if toolEnabled(s.def, t.Name) {
				out = append(out, offer{base: qualifyPrefixed(s.def.Prefix, name, t.Name), held: s.surface.Held(t.Name), tool: Tool{Server: name, Original: t.Name, Title: t.DisplayName(),
					Description: t.Description, InputSchema: normalizeSchema(t.InputSchema), RawInputSchema: t.InputSchema, Annotations: t.Annotations, Cached: true}})
			}
		}
		s.cachedOffers = out
	}
	return s.cachedOffers
}

// hasTool says whether the server's current list has tool; s.mu is held.
func (s *server) hasToolLocked(tool string) bool {
	return slices.ContainsFunc(s.tools, func(t *protocol.Tool) bool { return t.Name == tool })
}

// CachedLists returns, for each server of the configuration in its order,
// what the home's list cache holds of it (nil: nothing usable), without
// starting anything.
func (m *Manager) CachedLists() []*CachedList {
	servers, err := m.list()
	if err != nil {
		return nil
	}
	f := m.opts.Home.readListCache()
	out := make([]*CachedList, len(servers))
	for i, s := range servers {
		if s.spec != nil {
			out[i], _ = f.lookup(m.opts.Home, s.spec, s.m.opts.ProtocolVersion, s.capsKey())
		}
	}
	return out
}

// CachedToolNames returns the names of the tools the list cache holds for
// spec's server, whatever capabilities they were listed under (shell
// completion: it starts nothing); none when the cache has no entry.
func (h *Home) CachedToolNames(spec *Spec) []string {
	if h == nil || spec == nil {
		return nil
	}
	k := h.listKey(spec, "")
	e := h.readListCache().Servers[k]
	if k == "" || e == nil || len(e.Tools) > maxCachedTools || !h.servable(e, spec) {
		return nil
	}
	var out []string
	for _, t := range e.Tools {
		if t != nil && t.Name != "" {
			out = append(out, t.Name)
		}
	}
	return out
}

// servable says whether the cached entry e may be served for spec: a
// public list always, any other only under the auth context it was
// listed under (caching.mdx: a private response MUST NOT be shared
// across authorization contexts).
func (h *Home) servable(e *CachedList, spec *Spec) bool {
	if e.Scope == "public" {
		return true
	}
	a := h.authDigest(spec)
	return a != "" && hmac.Equal([]byte(a), []byte(e.Auth))
}

// authDigest is the digest of the auth context spec's server is listed
// under: the values of the headers and environment the definition sends
// (as expanded), and the identity of its OAuth login (issuer, client,
// resource, grant, the login itself), not the access token, which a
// refresh changes. It is an HMAC by the home's approval key, so that the
// cache file never holds what a short secret could be guessed back from;
// "" when the key cannot be had (a private list is then not cached).
func (h *Home) authDigest(spec *Spec) string {
	key, err := config.LoadKey(h.dir)
	if err != nil {
		return ""
	}
	ctx := struct {
		Header, Env                            map[string]string
		Issuer, Client, Resource, Grant, Login string
		Assertion                              string
	}{Header: map[string]string{}, Env: spec.Env}
	for k, v := range spec.Header {
		ctx.Header[strings.ToLower(k)] = v
	}
	if rec, _, err := h.tokens.Load(spec.Name); err == nil && rec != nil {
		ctx.Issuer, ctx.Resource, ctx.Grant, ctx.Login, ctx.Assertion = rec.Issuer, rec.Resource, rec.Grant, rec.Login, rec.AssertionFile
		if rec.Client != nil {
			ctx.Client = rec.Client.ClientID
		}
	}
	data, err := json.Marshal(ctx) // map keys sorted
	if err != nil {
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("mcpwire list cache auth\x00"))
	m.Write(data)
	return hex.EncodeToString(m.Sum(nil))
}
