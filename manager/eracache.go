package manager

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/protocol"
)

// EraCacheFile is the era cache's file in the home folder.
const EraCacheFile = "era-cache.json"

// maxEraEntries bounds the era cache; the entries seen longest ago go.
const maxEraEntries = 512

// An EraCache remembers which era and revision each server spoke last
// (2026-07-28/basic/versioning.mdx: clients MAY persist the era across
// restarts of the same server configuration), by the digest of its
// definition and, for HTTP servers, by origin. With it a legacy server is
// not probed with server/discover again (a stdio server that never
// answers the probe costs its timeout once, not on every start), and a
// modern one is asked for its revision first. The session detects the
// era afresh when the cached one proves wrong, and the cache learns the
// new one. The file is <home>/era-cache.json, written atomically under a
// lock; it holds no secrets: the definition's digest is an HMAC keyed by
// the home's approval key, so that a short secret in its env or args
// cannot be guessed back from the file. A nil *EraCache remembers nothing; Home.EraCache gives
// the home's.
type EraCache struct {
	path string
	home string // whose approval key keys the digests
}

// eraFile is the cache file's content.
type eraFile struct {
	Version int                  `json:"version"`
	Servers map[string]eraRecord `json:"servers"`
}

type eraRecord struct {
	_ [0]func() // not comparable: no equality function in the binary

	Era      protocol.Era `json:"era"`
	Protocol string       `json:"protocol"`
	Seen     int64        `json:"seen"` // Unix seconds
}

// eraKeys are the cache keys of spec: its definition's digest first (an
// HMAC by key; none when key is nil), then (HTTP) its origin.
func eraKeys(key []byte, spec *Spec) []string {
	var keys []string
	if key != nil {
		keys = append(keys, "def:"+defDigest(key, spec))
	}
	if spec.Transport != "stdio" {
		if u, err := url.Parse(spec.URL); err == nil && u.Host != "" {
			keys = append(keys, "origin:"+strings.ToLower(u.Scheme)+"://"+strings.ToLower(u.Host))
		}
	}
	return keys
}

// defDigest is the hex HMAC-SHA-256, by key, of what spec runs: its
// transport, command, args, env, folder, URL and header names.
func defDigest(key []byte, spec *Spec) string {
	h := hmac.New(sha256.New, key)
	h.Write([]byte("mcpwire definition cache key\x00"))
	enc := json.NewEncoder(h)
	headerNames := make([]string, 0, len(spec.Header))
	for k := range spec.Header {
		headerNames = append(headerNames, strings.ToLower(k))
	}
	sort.Strings(headerNames)
	_ = enc.Encode([]any{spec.Transport, spec.Command, spec.Args, spec.Env, spec.Dir, spec.URL, headerNames})
	return hex.EncodeToString(h.Sum(nil))
}

// cacheKey is the home's approval key, which keys the caches' digests;
// nil when it cannot be read or made (nothing is then cached by
// definition).
func cacheKey(home string) []byte {
	key, err := config.LoadKey(home)
	if err != nil {
		return nil
	}
	return key
}

// read reads the cache file; a missing or unreadable one is empty.
func (c *EraCache) read() *eraFile {
	f := &eraFile{Version: 1, Servers: map[string]eraRecord{}}
	data, err := safe.ReadFile(c.path, safe.KindCache)
	if err != nil {
		return f
	}
	var got eraFile
	if json.Unmarshal(data, &got) == nil && got.Version == 1 && got.Servers != nil {
		f.Servers = got.Servers
	}
	return f
}

// Lookup returns what the cache knows of spec's server, or nil.
func (c *EraCache) Lookup(spec *Spec) *protocol.EraHint {
	if c == nil {
		return nil
	}
	f := c.read()
	for _, k := range eraKeys(cacheKey(c.home), spec) {
		r, ok := f.Servers[k]
		if ok && (r.Era == protocol.EraLegacy || r.Era == protocol.EraModern) && protocol.IsSupported(r.Protocol) && protocol.EraOf(r.Protocol) == r.Era {
			return &protocol.EraHint{Era: r.Era, Version: r.Protocol}
		}
	}
	return nil
}

// eraRefresh is how old a record may be before Store writes it again
// although nothing changed.
const eraRefresh = 24 * time.Hour

// Store records that spec's server spoke version (of era). Failures to
// write are ignored: the cache is a hint.
func (c *EraCache) Store(spec *Spec, era protocol.Era, version string) {
	if c == nil {
		return
	}
	keys := eraKeys(cacheKey(c.home), spec)
	f := c.read()
	fresh := true
	for _, k := range keys {
		r, ok := f.Servers[k]
		if !ok || r.Era != era || r.Protocol != version || time.Since(time.Unix(r.Seen, 0)) > eraRefresh {
			fresh = false
		}
	}
	if fresh {
		return // nothing to write
	}
	c.update(func(f *eraFile) {
		now := time.Now().Unix()
		for _, k := range keys {
			f.Servers[k] = eraRecord{Era: era, Protocol: version, Seen: now}
		}
	})
}

// Forget drops what the cache knows of spec's server.
func (c *EraCache) Forget(spec *Spec) {
	if c == nil {
		return
	}
	c.update(func(f *eraFile) {
		for _, k := range eraKeys(cacheKey(c.home), spec) {
			delete(f.Servers, k)
		}
	})
}

// eraLockWait bounds the wait for the cache's lock: the cache is a hint,
// and a lock another process keeps (a stuck one) skips the update rather
// than hold up the command, or its exit on a signal.
const eraLockWait = time.Second

// update changes the cache file under its lock.
func (c *EraCache) update(change func(*eraFile)) {
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), eraLockWait)
	defer cancel()
	lock, err := safe.LockContext(ctx, c.path)
	if err != nil {
		return
	}
	defer lock.Unlock()
	f := c.read()
	before, _ := json.MarshalIndent(f, "", "  ")
	change(f)
	if len(f.Servers) > maxEraEntries {
		keys := make([]string, 0, len(f.Servers))
		for k := range f.Servers {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int { return int(f.Servers[b].Seen - f.Servers[a].Seen) })
		for _, k := range keys[maxEraEntries:] {
			delete(f.Servers, k)
		}
	}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil || string(data) == string(before) {
		return
	}
	_ = safe.WritePrivate(c.path, append(data, '\n'))
}
