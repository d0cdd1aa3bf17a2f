package registry

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"sort"
	"strings"
)

// A Choice says how to run a server: its remote, one package type, or
// (both empty) the first that fits: a streamable HTTP remote, else a
// package whose runtime is on PATH, else an SSE remote.
type Choice struct {
	Remote  bool
	Package string
}

// Options are the user's choice and values for [MakePlan].
type Options struct {
	Choice Choice
	Values Values
	// LookPath finds a runtime (npx, uvx, dnx, docker); exec.LookPath
	// when nil.
	LookPath func(string) (string, error)
	// Bundle unpacks an MCPB bundle (see [Bundles.Fetch]) and returns its
	// folder and manifest; MCPB packages are refused when nil.
	Bundle func(url, sha256 string) (dir string, m *Manifest, err error)
}

// Provenance is where a registry-installed definition came from: the
// "registry" member of its entry.
type Provenance struct {
	URL         string `json:"url"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	PublishedAt string `json:"publishedAt,omitempty"`
	// Via is what was installed: "remote", or the package type.
	Via string `json:"via"`
	// Artifact names it exactly ("npm:@scope/pkg@1.2.3", a URL, an
	// image); Digest is the artifact's digest when known, else the
	// server.json document's.
	Artifact string `json:"artifact"`
	Digest   string `json:"digest"`
	// Vars are the --var values install bound (URL variables, arguments,
	// the {variables} of a value; never a secret's), query-encoded
	// ("root=%2Fsrv&tag=a&tag=b"), for upgrade to bind again.
	Vars string `json:"vars,omitempty"`
}

// Map returns the provenance as the "registry" member's object.
func (p Provenance) Map() map[string]string {
	m := map[string]string{"url": p.URL, "name": p.Name, "version": p.Version, "via": p.Via, "artifact": p.Artifact, "digest": p.Digest}
	if p.PublishedAt != "" {
		m["publishedAt"] = p.PublishedAt
	}
	if p.Vars != "" {
		m["vars"] = p.Vars
	}
	return m
}

// BoundVars are the --var values install bound, by name; a member that
// does not decode gives what decodes of it.
func (p Provenance) BoundVars() map[string][]string {
	v, _ := url.ParseQuery(p.Vars)
	return v
}

// ProvenanceOf reads a "registry" member's object back.
func ProvenanceOf(m map[string]string) (Provenance, bool) {
	p := Provenance{URL: m["url"], Name: m["name"], Version: m["version"], PublishedAt: m["publishedAt"], Via: m["via"], Artifact: m["artifact"], Digest: m["digest"], Vars: m["vars"]}
	return p, p.Name != "" && p.Version != ""
}

// A Plan is a definition ready to write, and what the user must know.
type Plan struct {
	// Entry is the definition, with its "registry" provenance.
	Entry      map[string]any
	Provenance Provenance
	Missing    []Missing
	// Secrets are the variables the definition reads from the
	// environment (isSecret inputs, written as ${VAR}).
	Secrets  []string
	Warnings []string
	// PostInstall are steps for the user to do by hand (never run).
	PostInstall []string
}

// A PlanError says that an entry cannot be installed as asked.
type PlanError struct {
	Name   string
	Reason string
}

func (e *PlanError) Error() string { return fmt.Sprintf("installing %q: %s", e.Name, e.Reason) }

// MakePlan turns a registry entry into a definition. It refuses a
// deleted entry, warns about a deprecated one, and lists in Plan.Missing
// each required input that has no value (the caller prompts, or fails
// naming them). Problems with the values given are a *PlanError.
func MakePlan(e *Entry, registryURL string, o Options) (*Plan, error) {
	name := e.Server.Name
	if e.Official.Status == StatusDeleted {
		return nil, &PlanError{Name: name, Reason: "the registry marks version " + e.Server.Version + " deleted" + statusSuffix(e)}
	}
	if o.LookPath == nil {
		o.LookPath = exec.LookPath
	}
	p := &Plan{Provenance: Provenance{URL: registryURL, Name: name, Version: e.Server.Version, PublishedAt: e.Official.PublishedAt, Digest: e.Digest}}
	if e.Official.Status == StatusDeprecated {
		p.Warnings = append(p.Warnings, "the registry marks this version deprecated"+statusSuffix(e))
	}
	b := &binder{vals: o.Values}
	var err error
	switch {
	case o.Choice.Remote:
		err = p.remote(e, b, "")
	case o.Choice.Package != "":
		err = p.pkg(e, b, o, o.Choice.Package)
	default:
		err = p.auto(e, b, o)
	}
	if err != nil {
		return nil, err
	}
	if len(b.problems) > 0 {
		return nil, &PlanError{Name: name, Reason: strings.Join(b.problems, "; ")}
	}
	p.Provenance.Vars = b.bound.Encode()
	p.Entry["registry"] = p.Provenance.Map()
	p.Missing, p.Secrets = b.missing, b.secrets
	sort.Strings(p.Secrets)
	p.Warnings = append(p.Warnings, b.warnings...)
	p.PostInstall = e.Server.PostInstall()
	return p, nil
}

func statusSuffix(e *Entry) string {
	if e.Official.StatusMessage == "" {
		return ""
	}
	return ": " + e.Official.StatusMessage
}

// runtimes are the commands each package type runs with.
var runtimes = map[string]string{PackageNPM: "npx", PackagePyPI: "uvx", PackageNuGet: "dnx", PackageOCI: "docker"}

// auto picks a streamable HTTP remote, else a package whose runtime is
// on PATH, else any remote.
func (p *Plan) auto(e *Entry, b *binder, o Options) error {
	for _, r := range e.Server.Remotes {
		if r.Type == "streamable-http" {
			return p.remote(e, b, "streamable-http")
		}
	}
	var tried []string
	for _, pk := range e.Server.Packages {
		if rt, ok := runtimes[pk.RegistryType]; ok {
			if _, err := o.LookPath(rt); err != nil {
				tried = append(tried, pk.RegistryType+" (needs "+rt+" on PATH)")
				continue
			}
		} else if pk.RegistryType != PackageMCPB || o.Bundle == nil {
			tried = append(tried, pk.RegistryType+" (not supported)")
			continue
		}
		return p.pkg(e, b, o, pk.RegistryType)
	}
	if len(e.Server.Remotes) > 0 {
		return p.remote(e, b, "")
	}
	if len(tried) == 0 {
		return &PlanError{Name: e.Server.Name, Reason: "the entry offers no package and no remote"}
	}
	return &PlanError{Name: e.Server.Name, Reason: "no package can run here: " + strings.Join(tried, ", ")}
}

// remote plans a remote of type typ ("" for the best: streamable HTTP,
// then SSE).
func (p *Plan) remote(e *Entry, b *binder, typ string) error {
	var r *Transport
	for _, want := range []string{"streamable-http", "sse"} {
		for i := range e.Server.Remotes {
			if e.Server.Remotes[i].Type == want && (typ == "" || typ == want) && r == nil {
				r = &e.Server.Remotes[i]
			}
		}
	}
	if r == nil {
		return &PlanError{Name: e.Server.Name, Reason: "the entry offers no remote (streamable-http or sse); try --package"}
	}
	u := replaceRefs(r.URL, "{", anyName, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := r.Variables[name]
		if !ok {
			b.problems = append(b.problems, fmt.Sprintf("the URL names variable %q that it does not declare", name))
			return m
		}
		got := b.bind("var", name, envName(name), v, false)
		if len(got) == 0 {
			return m
		}
		return got[0]
	})
	typeName := "http"
	if r.Type == "sse" {
		typeName = "sse"
	}
	p.Entry = map[string]any{"type": typeName, "url": u}
	if h := b.keyValues("header", r.Headers); h != nil {
		p.Entry["headers"] = h
	}
	p.Provenance.Via, p.Provenance.Artifact = "remote", r.URL
	return nil
}

// pkg plans the first package of type typ.
func (p *Plan) pkg(e *Entry, b *binder, o Options, typ string) error {
	var pk *Package
	for i := range e.Server.Packages {
		if e.Server.Packages[i].RegistryType == typ {
			pk = &e.Server.Packages[i]
			break
		}
	}
	if pk == nil {
		return &PlanError{Name: e.Server.Name, Reason: fmt.Sprintf("the entry offers no %s package", typ)}
	}
	if t := pk.Transport.Type; t != "" && t != "stdio" {
		return &PlanError{Name: e.Server.Name, Reason: fmt.Sprintf("its %s package speaks %s; only stdio packages are installed (a remote may serve: --remote)", typ, t)}
	}
	if pk.Identifier == "" || strings.HasPrefix(pk.Identifier, "-") {
		return &PlanError{Name: e.Server.Name, Reason: fmt.Sprintf("its %s package has no usable identifier", typ)}
	}
	if pk.FileSHA256 != "" && !validSHA256(pk.FileSHA256) {
		return &PlanError{Name: e.Server.Name, Reason: "fileSha256 is not 64 lower-case hex digits"}
	}
	rtArgs := b.args(pk.RuntimeArguments)
	pkgArgs := b.args(pk.PackageArguments)
	env := b.keyValues("env", pk.Env)
	p.Provenance.Via = typ
	if pk.FileSHA256 != "" {
		p.Provenance.Digest = "sha256:" + pk.FileSHA256
	}
	var cmd string
	var args []string
	switch typ {
	case PackageNPM, PackagePyPI, PackageNuGet:
		if !exactVersion(pk.Version) {
			return &PlanError{Name: e.Server.Name, Reason: fmt.Sprintf("its %s package has no exact version (%q)", typ, pk.Version)}
		}
		cmd = runtimes[typ]
		switch typ {
		case PackageNPM:
			p.Provenance.Artifact = pk.Identifier + "@" + pk.Version
			args = append(append(rtArgs, "-y", p.Provenance.Artifact), pkgArgs...)
		case PackagePyPI:
			p.Provenance.Artifact = pk.Identifier + "==" + pk.Version
			args = append(append(rtArgs, p.Provenance.Artifact), pkgArgs...)
		default:
			p.Provenance.Artifact = pk.Identifier + "@" + pk.Version
			args = append(append(rtArgs, p.Provenance.Artifact, "--yes"), pkgArgs...)
		}
		p.Provenance.Artifact = typ + ":" + p.Provenance.Artifact
	case PackageOCI:
		cmd = "docker"
		image := pk.Identifier
		if i := strings.Index(image, "@sha256:"); i >= 0 {
			p.Provenance.Digest = image[i+1:]
		} else {
			p.Warnings = append(p.Warnings, fmt.Sprintf("the image %s is pinned by tag, not by digest: what it runs may change", image))
		}
		args = []string{"run", "-i", "--rm"}
		args = append(args, rtArgs...)
		for _, k := range sortedKeys(env) {
			args = append(args, "-e", k)
		}
		args = append(append(args, image), pkgArgs...)
		p.Provenance.Artifact = "oci:" + image
	case PackageMCPB:
		return p.bundle(e, b, o, pk, env, pkgArgs)
	default:
		return &PlanError{Name: e.Server.Name, Reason: fmt.Sprintf("package type %q is not supported (npm, pypi, nuget, oci, mcpb)", typ)}
	}
	p.Entry = map[string]any{"command": cmd, "args": nonNil(args), "startupTimeout": FirstStartTimeout}
	if env != nil {
		p.Entry["env"] = env
	}
	return nil
}

// FirstStartTimeout is the startupTimeout (seconds) of a definition that
// runs a package through its runtime (npx, uvx, dnx, docker): its first
// start downloads the package, which the default bound of 30 s may not
// cover (server-everything's first start through npx took 27 s on a busy
// two-core machine).
const FirstStartTimeout = 120

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ErrNoBundles is returned for an MCPB package when no bundle store is
// given.
var ErrNoBundles = errors.New("MCPB bundles need a home folder to unpack into")

// exactVersion reports whether v names one version, not a range
// ("^1.2.3", ">=1", "1.x", "latest").
func exactVersion(v string) bool {
	if v == "" || v == "latest" || strings.ContainsAny(v, "^~<>=*|, ") {
		return false
	}
	for _, part := range strings.Split(v, ".") {
		if part == "x" || part == "X" || part == "" {
			return false
		}
	}
	return true
}
