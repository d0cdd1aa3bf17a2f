package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// proxyFlags are proxy's own flags.
type proxyFlags struct {
	_ [0]func() // not comparable: no equality function in the binary

	listen      string
	public      bool
	bearerVar   string
	noAuth      bool
	allowOrigin string
}

// register adds the flags of --listen to fs (proxy and serve share them).
func (pf *proxyFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&pf.listen, "listen", "", "serve streamable HTTP at `ADDR` (e.g. 127.0.0.1:8080) instead of stdio")
	fs.BoolVar(&pf.public, "listen-public", false, "allow a --listen address that is not loopback")
	fs.StringVar(&pf.bearerVar, "bearer-token-env-var", "", "with --listen: require the bearer token in the environment variable `NAME`")
	fs.BoolVar(&pf.noAuth, "no-auth", false, "with --listen-public: serve without a bearer token (anyone who reaches the address may use the server)")
}

// runProxy serves one target to its caller: over stdio (the host starts
// mcpwire proxy TARGET as its server), or with --listen over streamable
// HTTP. mcpwire is the client of the target (its transport, era, OAuth
// tokens and process stay here) and a server, of both eras, to the host.
func runProxy(ctx context.Context, inv *invocation, args []string) error {
	fs := newFlagSet("proxy")
	var tf targetFlags
	var pf proxyFlags
	var pl proxyLogin
	tf.register(fs)
	pf.register(fs)
	pl.register(fs)
	pos, tail, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	t, rest, err := inv.resolveTarget(ctx, &tf, pos, tail, hasTail)
	if err != nil {
		return err
	}
	defer t.stop()
	if err := noMoreArgs(rest); err != nil {
		return err
	}
	if err := pl.arm(ctx, inv, t); err != nil {
		return err
	}
	sopts := mcpserver.Options{Log: safe.NewTextWriter(inv.env.Stderr), LogPrefix: "mcpwire proxy"}
	if pf.listen != "" {
		if err := inv.listenPolicy(&pf, &sopts, "the server"); err != nil {
			return err
		}
	}
	fwd := mcpserver.NewForwarder()
	pt := &proxyTarget{inv: inv, t: t, tf: &tf, fwd: fwd, listen: pf.listen != ""}
	fwd.ClientOptions(&pt.popts)
	fwd.SetDial(pt.dial)
	fwd.SetRetire(pt.retire)
	defer pt.close()
	sopts = fwd.Options(sopts)
	live := sopts.Instructions
	sopts.Instructions = func() string {
		if g := pt.pinGate(); g != nil {
			return g.instructions()
		}
		return live()
	}
	srv := mcpserver.New(sopts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pt.ctx, pt.cancel = ctx, cancel
	if pf.listen == "" {
		err := srv.ServeStdio(ctx, inv.env.Stdin, inv.env.Stdout)
		fwd.Release() // the host's end of input ends its subscriptions
		if err != nil {
			return err
		}
		conn, derr := pt.current()
		if conn == nil {
			return derr // the target never connected: why, if it was tried
		}
		return inv.targetEnded(t, conn.Err(), ctx)
	}
	return inv.serveListen(ctx, srv, pf.listen, "proxy", safe.Sanitize(t.spec.Name))
}

// A proxyTarget is the proxy's connection to its target, made when the
// first host says what it declares and made again (the forwarder
// decides) when a later host declares more: the target is told what
// the hosts declared, never more.
type proxyTarget struct {
	_ [0]func() // not comparable: no equality function in the binary

	inv    *invocation
	t      *target
	tf     *targetFlags
	popts  protocol.Options
	fwd    *mcpserver.Forwarder
	listen bool // many hosts (--listen), not one over stdio
	ctx    context.Context
	cancel context.CancelFunc // ends the proxy (its target's session ended)

	mu    sync.Mutex
	conn  *manager.Conn                       // the current connection, nil before the first
	err   error                               // the last connection's failure while none was made
	gate  *proxyGate                          // nil: nothing pinned (made at the first connection)
	olds  map[*protocol.Session]*manager.Conn // replaced, still serving requests
	ended sync.WaitGroup                      // the closing of replaced connections
}

// dial is the forwarder's Dial: it connects the target declaring caps
// (in the proxy's lifetime, not the host's request's); the connection
// it replaces is closed when the forwarder retires it (retire).
func (pt *proxyTarget) dial(_ context.Context, caps json.RawMessage) (*protocol.Session, error) {
	opts := pt.popts
	opts.Declare = caps
	conn, err := pt.inv.connect(pt.ctx, pt.t, pt.tf, opts)
	pt.mu.Lock()
	old := pt.conn
	if err != nil {
		if old == nil {
			pt.err = err
		}
		pt.mu.Unlock()
		if pt.listen { // over stdio the proxy says it as it ends
			pt.inv.say("mcpwire proxy: connecting to %s for a host: %s\n", safe.Sanitize(pt.t.spec.Name), safe.Sanitize(err.Error()))
		}
		return nil, err
	}
	pt.conn, pt.err = conn, nil
	if old != nil {
		if pt.olds == nil {
			pt.olds = map[*protocol.Session]*manager.Conn{}
		}
		pt.olds[old.Session] = old
	}
	g := pt.gate
	if g == nil {
		g = newProxyGate(pt.t) // connect checked the pinned surface
		pt.gate = g
	}
	pt.mu.Unlock()
	if g != nil {
		g.setLive(conn.Init().Instructions)
		pt.fwd.SetGate(g)
	}
	go pt.watch(conn)
	return conn.Session, nil
}

// retire is the forwarder's: it closes a replaced connection that no
// request of a host uses any longer, in the background (a stdio server
// is given its grace to exit), before the proxy ends.
func (pt *proxyTarget) retire(s *protocol.Session) {
	pt.mu.Lock()
	old := pt.olds[s]
	delete(pt.olds, s)
	if old != nil {
		pt.ended.Add(1)
	}
	pt.mu.Unlock()
	if old != nil {
		go func() {
			defer pt.ended.Done()
			old.Close()
		}()
	}
}

// watch ends the proxy when conn, still the current connection, ends.
func (pt *proxyTarget) watch(conn *manager.Conn) {
	select {
	case <-conn.Done():
		pt.mu.Lock()
		cur := pt.conn == conn
		pt.mu.Unlock()
		if cur {
			pt.cancel()
		}
	case <-pt.ctx.Done():
	}
}

// current is the current connection, or why none was made.
func (pt *proxyTarget) current() (*manager.Conn, error) {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.conn, pt.err
}

// pinGate is the gate of the pinned surface, nil when none.
func (pt *proxyTarget) pinGate() *proxyGate {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return pt.gate
}

// close closes the current connection and those replaced, and waits
// for the ones retired before.
func (pt *proxyTarget) close() {
	pt.mu.Lock()
	conns := make([]*manager.Conn, 0, len(pt.olds)+1)
	for _, c := range pt.olds {
		conns = append(conns, c)
	}
	pt.olds = nil
	if pt.conn != nil {
		conns = append(conns, pt.conn)
	}
	pt.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	pt.ended.Wait()
}

// targetEnded says why the proxy ended when its target did.
func (inv *invocation) targetEnded(t *target, err error, ctx context.Context) error {
	if err == nil || ctx.Err() == nil {
		return nil
	}
	return fail(ExitServer, "proxy", fmt.Errorf("%s: the server's session ended: %v", safe.Sanitize(t.spec.Name), err))
}

// listenPolicy checks --listen: loopback by default; another address
// only with --listen-public and a bearer token (or --no-auth, said
// loudly).
func (inv *invocation) listenPolicy(pf *proxyFlags, sopts *mcpserver.Options, what string) error {
	host, _, err := net.SplitHostPort(pf.listen)
	if err != nil {
		return usageErr("--listen %s: want HOST:PORT (e.g. 127.0.0.1:8080): %v", pf.listen, err)
	}
	ip := net.ParseIP(host)
	loopback := host == "localhost" || (ip != nil && ip.IsLoopback())
	if pf.bearerVar != "" {
		tok := inv.env.Getenv(pf.bearerVar)
		if tok == "" {
			return usageErr("--bearer-token-env-var %s: the variable is not set", pf.bearerVar)
		}
		sopts.BearerToken = tok
	}
	if loopback {
		sopts.AllowHost = mcpserver.LoopbackHost // against DNS rebinding
	} else {
		if !pf.public {
			return usageErr("--listen %s is not a loopback address: add --listen-public (and --bearer-token-env-var NAME or --no-auth)", pf.listen)
		}
		if sopts.BearerToken == "" && !pf.noAuth {
			return usageErr("--listen-public needs --bearer-token-env-var NAME, or --no-auth to serve without a token")
		}
		if sopts.BearerToken == "" {
			inv.say("WARNING: serving %s on %s WITHOUT AUTHENTICATION (--no-auth): anyone who reaches the address may use it\n", what, pf.listen)
		}
		// Hosts of other machines send their own Host; browsers from other
		// sites are still refused by Origin.
		sopts.AllowOrigin = func(origin string) bool {
			return mcpserver.LoopbackOrigin(origin) || strings.HasSuffix(origin, "//"+pf.listen)
		}
	}
	sopts.ResourceName = sopts.LogPrefix
	return nil
}

// serveListen serves srv over streamable HTTP at addr until ctx ends;
// cmd (proxy, serve) and what (what is served, sanitized) name it.
func (inv *invocation) serveListen(ctx context.Context, srv *mcpserver.Server, addr, cmd, what string) error {
	return inv.serveFront(ctx, srv, nil, addr, cmd, what)
}

// serveFront is serveListen with front (nil: none) in front of srv's
// handler.
func (inv *invocation) serveFront(ctx context.Context, srv *mcpserver.Server, front func(http.Handler) http.Handler, addr, cmd, what string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fail(ExitUsage, phaseUsage, fmt.Errorf("--listen %s: %v", addr, err))
	}
	h := srv.HTTPHandler()
	var handler http.Handler = h
	if front != nil {
		handler = front(h)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	inv.say("mcpwire %s: serving %s on http://%s/mcp\n", cmd, what, ln.Addr())
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	h.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fail(ExitServer, cmd, fmt.Errorf("serving on %s: %v", addr, err))
	}
	return nil
}
