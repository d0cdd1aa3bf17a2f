package server

// The streamable HTTP side of a server (spec basic/transports.mdx).
//
// POST /mcp carries one JSON-RPC message. Notifications and responses get
// 202. A request is answered as application/json, or with --sse as an SSE
// stream whose events (ids "<stream>-<seq>") carry the server's requests
// and notifications about that call before the response. Each session has
// one standalone stream, opened by GET, for messages not tied to a call
// (list_changed, resources/updated, and server requests in JSON mode);
// what is sent while no GET is open waits for the next one. A GET with
// Last-Event-ID resumes any stream of the session after that event.
//
// Sessions: initialize creates one (Mcp-Session-Id on its answer); later
// requests without the header get 400, with an unknown one 404; DELETE
// ends it; --expire-after N forgets it after N requests. --stateless has
// no sessions at all (GET and DELETE answer 405).

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/jsonrpc"
)

const (
	// maxBody bounds a POSTed message.
	maxBody = 64 << 20
	// maxStandalone bounds the events kept on a standalone stream.
	maxStandalone = 1000
	// serverCallTimeout bounds how long a server request waits for the
	// client's answer.
	serverCallTimeout = 60 * time.Second
	// retryMillis is the retry sent with a priming event before a drop.
	retryMillis = 100
)

// An HTTPHandler serves a Server over streamable HTTP at /mcp. Close it
// to end its sessions and wait for their work.
type HTTPHandler struct {
	srv    *Server
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closed   bool
	sessions map[string]*httpSession
	uses     uint64       // counts the lookups of sessions, for their last use
	shared   *httpSession // stateless mode
	modern   *Session     // serves the modern era's requests (no sessions)
	drops    atomic.Int64 // modern SSE answers, for --drop-after-priming
}

var _ http.Handler = (*HTTPHandler)(nil)

// HTTPHandler returns a handler serving s over streamable HTTP at /mcp
// (and, with a BearerToken, the protected resource metadata under
// /.well-known/).
func (s *Server) HTTPHandler() *HTTPHandler {
	h := &HTTPHandler{srv: s, sessions: map[string]*httpSession{}}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.modern = s.NewSession()
	if s.opts.Stateless {
		h.shared = h.newSession("")
		h.shared.srv.SetLenient()
	}
	return h
}

// Close ends every session and waits for the requests still being worked on.
func (h *HTTPHandler) Close() error {
	h.mu.Lock()
	h.closed = true
	left := []*Session{h.modern}
	if h.shared != nil {
		left = append(left, h.shared.srv)
	}
	for _, s := range h.sessions {
		left = append(left, s.srv)
	}
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
	for _, s := range left {
		s.end()
	}
	return nil
}

// start runs f in a goroutine that Close waits for; false once closed.
func (h *HTTPHandler) start(f func()) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		f()
	}()
	return true
}

type httpSession struct {
	h      *HTTPHandler
	id     string
	srv    *Session
	ctx    context.Context
	cancel context.CancelFunc

	used uint64 // h.uses at the session's last request; h.mu guards it

	mu         sync.Mutex
	requests   int
	streamSeq  int
	callSeq    int64
	streams    map[string]*sseStream
	standalone *sseStream // nil in stateless mode
	pending    map[jsonrpc.ID]chan *jsonrpc.Response
}

func (h *HTTPHandler) newSession(id string) *httpSession {
	s := &httpSession{h: h, id: id, srv: h.srv.NewSession(), streams: map[string]*sseStream{},
		pending: map[jsonrpc.ID]chan *jsonrpc.Response{}}
	s.ctx, s.cancel = context.WithCancel(h.ctx)
	if id != "" {
		s.standalone = newSSEStream("g")
		s.streams["g"] = s.standalone
	}
	return s
}

func (s *httpSession) newStream() *sseStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.streamSeq++
	st := newSSEStream("p" + strconv.Itoa(s.streamSeq))
	s.streams[st.id] = st
	return st
}

func (s *httpSession) dropStream(st *sseStream) {
	s.mu.Lock()
	if s.streams[st.id] == st && st != s.standalone {
		delete(s.streams, st.id)
	}
	s.mu.Unlock()
}

// findEvent returns the stream of event id and the event's sequence number.
func (s *httpSession) findEvent(id string) (*sseStream, int, bool) {
	i := strings.LastIndexByte(id, '-')
	if i < 0 {
		return nil, 0, false
	}
	seq, err := strconv.Atoi(id[i+1:])
	if err != nil || seq < 0 {
		return nil, 0, false
	}
	s.mu.Lock()
	st := s.streams[id[:i]]
	s.mu.Unlock()
	return st, seq, st != nil
}

// deliver hands the client's response to the server request waiting for it.
func (s *httpSession) deliver(resp *jsonrpc.Response) {
	s.mu.Lock()
	ch := s.pending[resp.ID]
	delete(s.pending, resp.ID)
	s.mu.Unlock()
	if ch != nil {
		ch <- resp
	} else {
		s.h.srv.Logf("a response to no request: %s", resp.ID)
	}
}

// An sseStream holds the events of one SSE stream, so that a consumer
// (the POST that opened it, or a GET resuming it) can write them, again if
// need be. Event seq n (from 1) is events[n-1-base].
type sseStream struct {
	id string

	mu        sync.Mutex
	events    [][]byte
	base      int
	delivered int  // the last seq written to a consumer
	done      bool // no more events will come
	abort     bool // drop the connection instead of ending cleanly
	attached  bool // a GET is consuming the (standalone) stream
	cut       bool // the consumer is to end its response (CloseStream)
	wake      chan struct{}
}

func newSSEStream(id string) *sseStream { return &sseStream{id: id, wake: make(chan struct{})} }

func (st *sseStream) signal() {
	close(st.wake)
	st.wake = make(chan struct{})
}

// push adds an event; false when the stream is done.
func (st *sseStream) push(data []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.done {
		return false
	}
	st.events = append(st.events, data)
	if over := len(st.events) - maxStandalone; over > 0 && st.id == "g" {
		st.events = append([][]byte(nil), st.events[over:]...) // consumers may hold the old slice
		st.base += over
	}
	st.signal()
	return true
}

func (st *sseStream) finish(abort bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.done, st.abort = true, abort
	st.signal()
}

// since returns the events from seq next on, the seq of the first, and
// the stream's state.
func (st *sseStream) since(next int) (evs [][]byte, first int, done, abort bool, wake <-chan struct{}) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if next <= st.base {
		next = st.base + 1
	}
	i := next - 1 - st.base
	if i < len(st.events) {
		evs = st.events[i:]
	}
	return evs, next, st.done, st.abort, st.wake
}

// takeCut reports (once) whether CloseStream asked the consumer to end.
func (st *sseStream) takeCut() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.cut
	st.cut = false
	return c
}

func (st *sseStream) setDelivered(seq int) {
	st.mu.Lock()
	if seq > st.delivered {
		st.delivered = seq
	}
	st.mu.Unlock()
}

// An httpPeer sends the server's messages for one request: on the
// request's SSE stream, else on the session's standalone stream.
type httpPeer struct {
	sess   *httpSession
	stream *sseStream // nil in JSON mode
}

func (p *httpPeer) targets(method string) []*sseStream {
	var out []*sseStream
	if unrelated(method) && p.sess.standalone != nil {
		return append(out, p.sess.standalone)
	}
	if p.stream != nil {
		out = append(out, p.stream)
	}
	if p.sess.standalone != nil {
		out = append(out, p.sess.standalone)
	}
	return out
}

// closeStream ends the response that carries the request's SSE stream;
// the client resumes it with a GET and Last-Event-ID.
func (p *httpPeer) closeStream() bool {
	if p.stream == nil {
		return false
	}
	p.stream.mu.Lock()
	p.stream.cut = true
	p.stream.signal()
	p.stream.mu.Unlock()
	return true
}

// encodeNotification is the line of a notification.
func encodeNotification(method string, params any) ([]byte, error) {
	req, err := jsonrpc.NewRequest(jsonrpc.ID{}, method, params)
	if err != nil {
		return nil, err
	}
	return encodeInert(req)
}

func (p *httpPeer) Notify(ctx context.Context, method string, params any) error {
	b, err := encodeNotification(method, params)
	if err != nil {
		return err
	}
	for _, st := range p.targets(method) {
		if st.push(b) {
			return nil
		}
	}
	return errors.New("server: no stream for " + method)
}

func (p *httpPeer) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	s := p.sess
	s.mu.Lock()
	s.callSeq++
	id := jsonrpc.Int64ID(s.callSeq)
	ch := make(chan *jsonrpc.Response, 1)
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	req, err := jsonrpc.NewRequest(id, method, params)
	if err != nil {
		return nil, err
	}
	b, err := encodeInert(req)
	if err != nil {
		return nil, err
	}
	sent := false
	for _, st := range p.targets(method) {
		if sent = st.push(b); sent {
			break
		}
	}
	if !sent {
		return nil, errors.New("no stream to send the request on (stateless mode answers as JSON)")
	}
	t := time.NewTimer(serverCallTimeout)
	defer t.Stop()
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		_ = p.Notify(context.WithoutCancel(ctx), "notifications/cancelled", map[string]any{"requestId": id, "reason": "the tool call was cancelled"})
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("no answer in %v", serverCallTimeout)
	}
}

// ServeHTTP serves /mcp.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	o := &h.srv.opts
	if o.Verbose {
		h.srv.Logf("%s %s", r.Method, r.URL.Path)
	}
	if o.AllowHost != nil && !o.AllowHost(r.Host) {
		httpError(w, http.StatusForbidden, "host not allowed (against DNS rebinding): reach this server by the loopback address it listens on")
		return
	}
	if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") && o.BearerToken != "" {
		h.resourceMetadata(w, r)
		return
	}
	if r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originOK(origin) {
		httpError(w, http.StatusForbidden, "origin not allowed")
		return
	}
	if !h.authorized(w, r) {
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		httpError(w, http.StatusMethodNotAllowed, "method not allowed")
	}
}

// httpError answers with status and a JSON-RPC error without an id.
func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{Error: &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}})
	w.Write(append(b, '\n'))
}

// originOK refuses browsers' requests from other sites (DNS rebinding).
func (h *HTTPHandler) originOK(origin string) bool {
	if h.srv.opts.AllowOrigin != nil {
		return h.srv.opts.AllowOrigin(origin)
	}
	return LoopbackOrigin(origin)
}

// LoopbackHost reports whether a Host header (host, or host:port) names
// a loopback host, as safe.IsLoopbackHost spells one.
func LoopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return safe.IsLoopbackHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// LoopbackOrigin reports whether an Origin header names a loopback host,
// as safe.IsLoopbackHost spells one.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	return safe.IsLoopbackHost(u.Hostname())
}

func (h *HTTPHandler) metadataURL(r *http.Request) (resource, metadata string) {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	return base + "/mcp", base + "/.well-known/oauth-protected-resource/mcp"
}

func (h *HTTPHandler) authorized(w http.ResponseWriter, r *http.Request) bool {
	if h.srv.opts.BearerToken == "" {
		return true
	}
	want := "Bearer " + h.srv.opts.BearerToken
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) == 1 {
		return true
	}
	_, meta := h.metadataURL(r)
	w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`"`)
	httpError(w, http.StatusUnauthorized, "a bearer token is required")
	return false
}

func (h *HTTPHandler) resourceMetadata(w http.ResponseWriter, r *http.Request) {
	resource, _ := h.metadataURL(r)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"resource":                 resource,
		"authorization_servers":    []string{},
		"bearer_methods_supported": []string{"header"},
		"resource_name":            h.srv.opts.ResourceName,
	})
}

// DefaultMaxSessions is how many legacy HTTP sessions a handler keeps
// when Options.MaxSessions does not say.
const DefaultMaxSessions = 1000

// add keeps sess; at the bound (Options.MaxSessions) the session used
// least recently ends first, as an expired one does (a client that comes
// back with it is answered 404 and initializes again).
func (h *HTTPHandler) add(sess *httpSession) {
	max := h.srv.opts.MaxSessions
	if max <= 0 {
		max = DefaultMaxSessions
	}
	var old *httpSession
	h.mu.Lock()
	if len(h.sessions) >= max {
		for _, s := range h.sessions {
			if old == nil || s.used < old.used {
				old = s
			}
		}
		delete(h.sessions, old.id)
	}
	h.uses++
	sess.used = h.uses
	h.sessions[sess.id] = sess
	h.mu.Unlock()
	if old != nil {
		old.cancel()
		h.srv.ended(old.srv)
		h.srv.Logf("a session ended: %d sessions at most (the one used least recently ends first)", max)
	}
}

// session finds the session a request names; status and why say what
// to answer when there is none.
func (h *HTTPHandler) session(r *http.Request, isRequest bool) (*httpSession, int, string) {
	if h.srv.opts.Stateless {
		return h.shared, 0, ""
	}
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		return nil, http.StatusBadRequest, "missing Mcp-Session-Id header"
	}
	h.mu.Lock()
	s := h.sessions[id]
	if s == nil {
		h.mu.Unlock()
		return nil, http.StatusNotFound, "unknown or expired session"
	}
	h.uses++
	s.used = h.uses
	if isRequest && h.srv.opts.ExpireAfter > 0 {
		s.requests++
		if s.requests > h.srv.opts.ExpireAfter {
			delete(h.sessions, id)
			h.mu.Unlock()
			s.cancel()
			h.srv.ended(s.srv)
			h.srv.Logf("session expired after %d requests (--expire-after)", h.srv.opts.ExpireAfter)
			return nil, http.StatusNotFound, "session expired"
		}
	}
	h.mu.Unlock()
	return s, 0, ""
}

func (h *HTTPHandler) versionOK(r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	return v == "" || slices.Contains(h.srv.opts.Versions, v) || (v == h.srv.opts.VersionAnswer)
}

func (h *HTTPHandler) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		httpError(w, http.StatusBadRequest, "reading the body: "+err.Error())
		return
	}
	if len(body) > maxBody {
		httpError(w, http.StatusRequestEntityTooLarge, "message too large")
		return
	}
	msgs, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if len(msgs) != 1 {
		httpError(w, http.StatusBadRequest, "batches are not accepted")
		return
	}
	req, isReq := msgs[0].(*jsonrpc.Request)
	isCall := isReq && !req.IsNotification()
	if isCall && h.srv.opts.Era != EraLegacy && (hasModernMeta(req.Params) || h.modernHeaders(r)) {
		h.postModern(w, r, req)
		return
	}
	if isReq && !isCall && h.srv.opts.Era != EraLegacy && h.modernHeaders(r) {
		h.modernNotification(w)
		return
	}
	if h.srv.opts.Era == EraModern {
		h.refuseLegacyHTTP(w, msgs[0])
		return
	}
	var sess *httpSession
	if isCall && req.Method == "initialize" {
		if h.srv.opts.Stateless {
			sess = h.shared
		} else {
			sess = h.newSession(newSessionID())
			h.add(sess)
		}
	} else {
		var status int
		var why string
		if sess, status, why = h.session(r, isCall); sess == nil {
			httpError(w, status, why)
			return
		}
		if !h.versionOK(r) {
			httpError(w, http.StatusBadRequest, "unsupported MCP-Protocol-Version")
			return
		}
	}
	if !isReq {
		sess.deliver(msgs[0].(*jsonrpc.Response))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !isCall {
		sess.srv.Notification(req)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if sess.id != "" {
		w.Header().Set("Mcp-Session-Id", sess.id)
	}
	if h.srv.opts.SSE {
		h.answerSSE(w, r, sess, req)
	} else {
		h.answerJSON(w, r, sess, req)
	}
}

// modernHeaders reports whether a request without a session says it is of
// the modern era in its headers (its _meta is then wrong, and that is the
// answer it gets).
// modernNotification accepts a client's notification of the modern era
// and does nothing with it. That era defines none over HTTP: closing the
// answer stream is the cancellation. But clients send one anyway (the Go
// SDK v1.8.0 sends notifications/cancelled after a timeout, and closes
// its whole session on a 400), and the transport lets a server accept a
// notification: 202, no body.
func (h *HTTPHandler) modernNotification(w http.ResponseWriter) {
	w.WriteHeader(http.StatusAccepted)
}

func (h *HTTPHandler) modernHeaders(r *http.Request) bool {
	return r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("MCP-Protocol-Version") == ModernVersion
}

func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// run handles req and sends its response to the stream, or to out in JSON
// mode (nil there means drop the connection).
func (h *HTTPHandler) run(sess *httpSession, req *jsonrpc.Request, st *sseStream, out chan<- []byte) {
	p := &httpPeer{sess: sess, stream: st}
	res, err := sess.srv.Handle(sess.ctx, p, req)
	if errors.Is(err, ErrDrop) {
		h.srv.Logf("crashing as asked (dropping the connection)")
		if st != nil {
			st.finish(true)
		} else {
			out <- nil
		}
		return
	}
	var then func()
	if a, ok := res.(*AfterReply); ok {
		res, then = a.Result, a.Then
	}
	if errors.Is(err, ErrCancelled) {
		err = jsonrpc.NewError(jsonrpc.CodeInternalError, "request cancelled")
	}
	resp, merr := jsonrpc.NewResponse(req.ID, res, err)
	if merr != nil {
		resp, _ = jsonrpc.NewResponse(req.ID, nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "marshaling result: %v", merr))
	}
	b, _ := encodeInert(resp)
	if st != nil {
		st.push(b)
		st.finish(false)
	} else {
		out <- b
	}
	if then != nil {
		then()
	}
}

func (h *HTTPHandler) answerJSON(w http.ResponseWriter, r *http.Request, sess *httpSession, req *jsonrpc.Request) {
	out := make(chan []byte, 1)
	if !h.start(func() { h.run(sess, req, nil, out) }) {
		httpError(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	select {
	case b := <-out:
		if b == nil {
			panic(http.ErrAbortHandler)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b)
	case <-r.Context().Done():
	}
}

func sseHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func (h *HTTPHandler) answerSSE(w http.ResponseWriter, r *http.Request, sess *httpSession, req *jsonrpc.Request) {
	st := sess.newStream()
	if !h.start(func() { h.run(sess, req, st, nil) }) {
		sess.dropStream(st)
		httpError(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	sseHeaders(w)
	drop := h.srv.opts.DropAfterPriming && req.Method != "initialize"
	prime := sess.srv.Version() == LatestLegacy && req.Method != "initialize"
	if drop {
		fmt.Fprintf(w, "id: %s-0\nretry: %d\ndata: \n\n", st.id, retryMillis)
		http.NewResponseController(w).Flush()
		return
	}
	if prime {
		retry := ""
		if ms := h.srv.opts.RetryMillis; ms > 0 {
			retry = "retry: " + strconv.Itoa(ms) + "\n"
		}
		fmt.Fprintf(w, "id: %s-0\n%sdata: \n\n", st.id, retry)
	}
	h.pump(w, r, sess, st, 1)
}

// existing returns the session a GET or DELETE names, or answers the
// request with the error (405 in stateless mode, where there is nothing
// to GET or DELETE) and returns nil.
func (h *HTTPHandler) existing(w http.ResponseWriter, r *http.Request, stateless string) *httpSession {
	if h.srv.opts.Stateless {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, stateless)
		return nil
	}
	sess, status, why := h.session(r, false)
	if sess == nil {
		httpError(w, status, why)
	}
	return sess
}

func (h *HTTPHandler) get(w http.ResponseWriter, r *http.Request) {
	if h.srv.opts.Era == EraModern {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, "no GET stream in "+ModernVersion)
		return
	}
	sess := h.existing(w, r, "no GET stream in stateless mode")
	if sess == nil {
		return
	}
	if !h.versionOK(r) {
		httpError(w, http.StatusBadRequest, "unsupported MCP-Protocol-Version")
		return
	}
	st, next := sess.standalone, -1
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		var seq int
		var ok bool
		if st, seq, ok = sess.findEvent(last); !ok {
			httpError(w, http.StatusBadRequest, "unknown Last-Event-ID")
			return
		}
		next = seq + 1
	}
	if st == sess.standalone {
		st.mu.Lock()
		busy := st.attached
		st.attached = true
		if next < 0 {
			next = st.delivered + 1
		}
		st.mu.Unlock()
		if busy {
			httpError(w, http.StatusConflict, "a GET stream is already open for this session")
			return
		}
		defer func() {
			st.mu.Lock()
			st.attached = false
			st.mu.Unlock()
		}()
	}
	sseHeaders(w)
	http.NewResponseController(w).Flush()
	h.pump(w, r, sess, st, next)
}

// pump writes st's events from seq next on until the stream is done, the
// client goes away or the session ends.
func (h *HTTPHandler) pump(w http.ResponseWriter, r *http.Request, sess *httpSession, st *sseStream, next int) {
	rc := http.NewResponseController(w)
	for {
		evs, first, done, abort, wake := st.since(next)
		for i, ev := range evs {
			if writeEvent(w, st.id, first+i, ev) != nil {
				return
			}
		}
		next = first + len(evs)
		if len(evs) > 0 {
			st.setDelivered(next - 1)
		}
		if abort {
			panic(http.ErrAbortHandler)
		}
		if err := rc.Flush(); err != nil {
			return
		}
		if done {
			sess.dropStream(st)
			return
		}
		if st.takeCut() {
			return
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		case <-sess.ctx.Done():
			return
		}
	}
}

func writeEvent(w io.Writer, stream string, seq int, data []byte) error {
	if bytes.ContainsAny(data, "\r\n") {
		var buf bytes.Buffer
		if json.Compact(&buf, data) == nil {
			data = buf.Bytes()
		}
	}
	head := "id: " + stream + "-" + strconv.Itoa(seq) + "\nevent: message\ndata: "
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n\n")
	return err
}

func (h *HTTPHandler) delete(w http.ResponseWriter, r *http.Request) {
	if h.srv.opts.Era == EraModern {
		w.Header().Set("Allow", "POST")
		httpError(w, http.StatusMethodNotAllowed, "no sessions in "+ModernVersion)
		return
	}
	sess := h.existing(w, r, "no sessions in stateless mode")
	if sess == nil {
		return
	}
	h.mu.Lock()
	delete(h.sessions, sess.id)
	h.mu.Unlock()
	sess.cancel()
	h.srv.ended(sess.srv)
	w.WriteHeader(http.StatusOK)
}
