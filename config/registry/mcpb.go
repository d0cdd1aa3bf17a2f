package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Bounds on an MCPB bundle.
const (
	MaxBundle         = 64 << 20  // the download
	MaxBundleUnpacked = 256 << 20 // all its files, unpacked
	MaxBundleFiles    = 10000
	maxManifest       = 1 << 20
)

// Bundles downloads and unpacks MCPB bundles into Dir (a folder of the
// home), one folder per SHA-256.
type Bundles struct {
	Dir  string
	HTTP *http.Client // nil: a client honouring HTTPS_PROXY, no redirects
	// MaxUnpacked bounds a bundle's files, unpacked; 0 is
	// MaxBundleUnpacked.
	MaxUnpacked int64
}

// A Manifest is what mcpwire reads of an MCPB bundle's manifest.json.
type Manifest struct {
	Name   string `json:"name"`
	Server struct {
		Type       string `json:"type"`
		EntryPoint string `json:"entry_point"`
		MCPConfig  struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcp_config"`
	} `json:"server"`
	UserConfig map[string]struct {
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Required    bool            `json:"required"`
		Sensitive   bool            `json:"sensitive"`
		Default     json.RawMessage `json:"default"`
	} `json:"user_config"`
}

// A BundleError says why a bundle was refused.
type BundleError struct {
	URL    string
	Reason string
}

func (e *BundleError) Error() string {
	return fmt.Sprintf("MCPB bundle %s: %s", safe.RedactURL(e.URL), e.Reason)
}

// Fetch downloads the bundle at rawURL over HTTPS, checks its SHA-256
// against want (the registry does not; the client must), and unpacks it
// under b.Dir: no path outside its folder, no symbolic links, at most
// MaxBundleUnpacked bytes (b.MaxUnpacked). A bundle already unpacked is
// reused.
func (b *Bundles) Fetch(ctx context.Context, rawURL, want string) (string, *Manifest, error) {
	bad := func(f string, a ...any) (string, *Manifest, error) {
		return "", nil, &BundleError{URL: rawURL, Reason: fmt.Sprintf(f, a...)}
	}
	if !validSHA256(want) {
		return bad("fileSha256 %q is not 64 lower-case hex digits", want)
	}
	if u, err := url.Parse(rawURL); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		return bad("a bundle is downloaded over HTTPS only")
	}
	data, err := b.download(ctx, rawURL)
	if err != nil {
		return bad("%v", err)
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return bad("its SHA-256 is %s, the registry says %s: refused", got, want)
	}
	zr, err := readZip(data)
	if err != nil {
		return bad("not a zip archive: %v", err)
	}
	m, err := readManifest(zr)
	if err != nil {
		return bad("%v", err)
	}
	dir := filepath.Join(b.Dir, want)
	if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
		return dir, m, nil
	}
	if err := os.MkdirAll(b.Dir, 0o700); err != nil {
		return bad("%v", err)
	}
	tmp, err := os.MkdirTemp(b.Dir, ".unpack-")
	if err != nil {
		return bad("%v", err)
	}
	limit := b.MaxUnpacked
	if limit <= 0 {
		limit = MaxBundleUnpacked
	}
	if err := unpack(zr, tmp, limit); err != nil {
		os.RemoveAll(tmp)
		return bad("%v", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if fi, e := os.Lstat(dir); e == nil && fi.IsDir() {
			return dir, m, nil // unpacked by another process meanwhile
		}
		return bad("%v", err)
	}
	return dir, m, nil
}

func (b *Bundles) download(ctx context.Context, rawURL string) ([]byte, error) {
	hc := b.HTTP
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = http.ProxyFromEnvironment
		hc = &http.Client{Transport: t}
	}
	cp := *hc
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return errRedirect }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := cp.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the download answered %d", resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxBundle+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBundle {
		return nil, fmt.Errorf("larger than %d bytes", MaxBundle)
	}
	return data, nil
}

// checkZipPath refuses a member path that leaves its folder.
func checkZipPath(name string) error {
	if name == "" || strings.Contains(name, "\\") || path.IsAbs(name) || filepath.IsAbs(name) || strings.ContainsRune(name, 0) {
		return fmt.Errorf("member %q: not a relative path", name)
	}
	clean := path.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") || (len(clean) > 1 && clean[1] == ':') {
		return fmt.Errorf("member %q: a path outside its folder", name)
	}
	return nil
}

func readManifest(zr []*zipMember) (*Manifest, error) {
	for _, f := range zr {
		if path.Clean(f.Name) != "manifest.json" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("manifest.json: %v", err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, maxManifest+1))
		rc.Close()
		if err != nil || len(data) > maxManifest {
			return nil, fmt.Errorf("manifest.json: unreadable or larger than %d bytes", maxManifest)
		}
		var m Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("manifest.json: %v", err)
		}
		if m.Server.MCPConfig.Command == "" {
			return nil, fmt.Errorf("manifest.json: server.mcp_config.command is missing")
		}
		return &m, nil
	}
	return nil, fmt.Errorf("no manifest.json")
}

// unpack writes the members of zr under dir, at most limit bytes.
func unpack(zr []*zipMember, dir string, limit int64) error {
	if len(zr) > MaxBundleFiles {
		return fmt.Errorf("more than %d members", MaxBundleFiles)
	}
	var total int64
	for _, f := range zr {
		if err := checkZipPath(f.Name); err != nil {
			return err
		}
		mode := f.Mode()
		target := filepath.Join(dir, filepath.FromSlash(path.Clean(f.Name)))
		switch {
		case mode&os.ModeSymlink != 0:
			return fmt.Errorf("member %q: symbolic links are refused", f.Name)
		case mode.IsDir():
			if err := os.MkdirAll(target, 0o700); err != nil {
				return err
			}
			continue
		case !mode.IsRegular():
			return fmt.Errorf("member %q: not a regular file", f.Name)
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return err
		}
		n, err := writeMember(f, target, limit-total, limit)
		if err != nil {
			return fmt.Errorf("member %q: %v", f.Name, err)
		}
		total += n
	}
	return nil
}

func writeMember(f *zipMember, target string, room, limit int64) (int64, error) {
	rc, err := f.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	perm := os.FileMode(0o600)
	if f.Mode()&0o111 != 0 {
		perm = 0o700
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, io.LimitReader(rc, room+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > room {
		err = fmt.Errorf("the bundle unpacks to more than %d bytes", limit)
	}
	return n, err
}

// bundle plans an MCPB package: fetched, checked and unpacked, its
// manifest's mcp_config becomes the command.
func (p *Plan) bundle(e *Entry, b *binder, o Options, pk *Package, env map[string]string, pkgArgs []string) error {
	if o.Bundle == nil {
		return &PlanError{Name: e.Server.Name, Reason: ErrNoBundles.Error()}
	}
	if pk.FileSHA256 == "" {
		return &PlanError{Name: e.Server.Name, Reason: "its MCPB package has no fileSha256: refused"}
	}
	dir, m, err := o.Bundle(pk.Identifier, pk.FileSHA256)
	if err != nil {
		return &PlanError{Name: e.Server.Name, Reason: err.Error()}
	}
	sub := func(s string) string {
		return replaceRefs(s, "${", manifestName, func(v string) string {
			key := v[2 : len(v)-1]
			if key == "__dirname" {
				return dir
			}
			key = strings.TrimPrefix(key, "user_config.")
			uc, ok := m.UserConfig[key]
			if !ok {
				b.problems = append(b.problems, fmt.Sprintf("manifest.json names user_config %q that it does not declare", key))
				return v
			}
			in := Input{Description: uc.Description, IsRequired: uc.Required, IsSecret: uc.Sensitive}
			var def string
			if json.Unmarshal(uc.Default, &def) == nil {
				in.Default = def
			} else if len(uc.Default) > 0 && string(uc.Default) != "null" {
				in.Default = string(uc.Default)
			}
			got := b.bind("var", key, envName(key), in, false)
			if len(got) == 0 {
				return ""
			}
			return got[0]
		})
	}
	mc := m.Server.MCPConfig
	args := make([]string, 0, len(mc.Args)+len(pkgArgs))
	for _, a := range mc.Args {
		args = append(args, sub(a))
	}
	args = append(args, pkgArgs...)
	for k, v := range mc.Env {
		if env == nil {
			env = map[string]string{}
		}
		if _, set := env[k]; !set {
			env[k] = sub(v)
		}
	}
	p.Entry = map[string]any{"command": sub(mc.Command), "args": args}
	if env != nil {
		p.Entry["env"] = env
	}
	p.Provenance.Artifact = "mcpb:" + pk.Identifier
	return nil
}
