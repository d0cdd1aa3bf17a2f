package manager

import (
	"runtime"
	"strings"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
)

// A NoticeKind is the kind of a server's transition that an agent may
// tell its user (or its model) about.
type NoticeKind string

// The notices, each given once per transition: a server that keeps
// failing is reported failed once, then paused once when its breaker
// opens, then recovered once it works again.
const (
	// NoticeFailed: the server failed (to start, or a call broke its
	// connection, or its process died). State.Err says why.
	NoticeFailed NoticeKind = "failed"
	// NoticePaused: the server failed again and again; its circuit
	// breaker is open, its tools are withdrawn until State.RetryAt.
	NoticePaused NoticeKind = "paused"
	// NoticeRecovered: a server that had failed, was paused or needed a
	// login works again.
	NoticeRecovered NoticeKind = "recovered"
	// NoticeNeedsLogin: the server needs a login (no usable token, or it
	// answered 401). Login, then Restart, brings it back.
	NoticeNeedsLogin NoticeKind = "needs login"
)

// A Notice is one transition of one server.
type Notice struct {
	Server string
	Kind   NoticeKind
	// State is the server's state just after the transition.
	State ServerState
	// Task is the task's state, for NoticeTask.
	Task *TaskNotice
}

// A dispatcher runs the callbacks of Options, one at a time, on a
// goroutine of its own: never under a lock of the Manager, so a callback
// may call any method of the Manager. A server feeds it, so it is
// bounded: each server has a queue of its own, of at most
// maxQueuedEvents; the queues take turns (one server's flood never
// delays another's callbacks); within a queue callbacks run in the order
// of their events, and an event whose key is already waiting (the same
// resource updated again, another change of what the server offers)
// replaces the one waiting instead of queuing behind it. An event that
// finds its queue full is dropped; Drops counts both.
type dispatcher struct {
	mu      sync.Mutex
	queues  map[string]*eventQueue // by server, with what was dropped
	ring    []*eventQueue          // the queues with events waiting, in turn
	turn    int                    // the next of ring to run
	wake    chan struct{}          // has room for one wake-up
	closed  bool
	running bool          // a callback runs now
	done    chan struct{} // closed when the loop has ended
}

// maxQueuedEvents bounds the callbacks waiting for one server.
const maxQueuedEvents = 256

// An eventQueue holds one server's callbacks waiting to run.
type eventQueue struct {
	events  []*event
	waiting map[string]*event // by key, the events queued that have one
	drops   Drops
}

// An event is one callback waiting; key, when set, names what it tells
// of, so that a later event of the same key replaces it.
type event struct {
	key string
	f   func()
}

// Drops counts what a server sent too much of: what the Manager or its
// session left out, or merged, rather than letting the server grow
// memory or delay other servers without bound.
type Drops struct {
	// Callbacks dropped because the server's queue of callbacks
	// (OnChange, OnNotice, OnLoginNeeded, OnResourceUpdated) was full.
	Callbacks int64
	// Coalesced counts callbacks merged into one already waiting: the
	// same resource updated again, or what the server offers changed
	// again, before the callback ran.
	Coalesced int64
	// Requests counts server requests answered with an error at once,
	// since 256 of its requests were being handled already; Unanswered
	// those that got no answer at all, as 256 such errors were waiting
	// to be sent too.
	Requests   int64
	Unanswered int64
	// Inputs counts input requests of multi round-trip requests (the
	// 2026-07-28 era) left unanswered: too many in one answer or in one
	// request, or a requestState too long (see protocol.InputLimitError).
	Inputs int64
}

func newDispatcher() *dispatcher {
	d := &dispatcher{queues: map[string]*eventQueue{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go d.loop()
	return d
}

// queueLocked returns the queue of server; d.mu is held.
func (d *dispatcher) queueLocked(server string) *eventQueue {
	q := d.queues[server]
	if q == nil {
		q = &eventQueue{waiting: map[string]*event{}}
		d.queues[server] = q
	}
	return q
}

// post queues f for server, under key ("" for none); it never blocks and
// never runs f itself. Nothing is queued once the dispatcher is closed.
func (d *dispatcher) post(server, key string, f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	q := d.queueLocked(server)
	if e := q.waiting[key]; key != "" && e != nil {
		e.f = f
		q.drops.Coalesced++
		return
	}
	if len(q.events) >= maxQueuedEvents {
		q.drops.Callbacks++
		return
	}
	e := &event{key: key, f: f}
	q.events = append(q.events, e)
	if key != "" {
		q.waiting[key] = e
	}
	if len(q.events) == 1 {
		d.ring = append(d.ring, q)
	}
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// nextLocked takes the next callback to run, the queues taking turns;
// nil when none waits. d.mu is held.
func (d *dispatcher) nextLocked() func() {
	if len(d.ring) == 0 {
		return nil
	}
	if d.turn >= len(d.ring) {
		d.turn = 0
	}
	q := d.ring[d.turn]
	e := q.events[0]
	q.events[0] = nil
	q.events = q.events[1:]
	if e.key != "" {
		delete(q.waiting, e.key)
	}
	if len(q.events) == 0 {
		q.events = nil
		d.ring = append(d.ring[:d.turn], d.ring[d.turn+1:]...)
	} else {
		d.turn++
	}
	return e.f
}

// refused counts n requests of server refused for why.
func (d *dispatcher) refused(server string, why protocol.Refusal, n int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	q := d.queueLocked(server)
	switch why {
	case protocol.RefusedInFlight:
		q.drops.Requests += int64(n)
	case protocol.RefusedUnanswered:
		q.drops.Unanswered += int64(n)
	default:
		q.drops.Inputs += int64(n)
	}
}

// drops returns what was dropped of server so far.
func (d *dispatcher) drops(server string) Drops {
	d.mu.Lock()
	defer d.mu.Unlock()
	if q := d.queues[server]; q != nil {
		return q.drops
	}
	return Drops{}
}

func (d *dispatcher) loop() {
	defer close(d.done)
	for {
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			return
		}
		f := d.nextLocked()
		if f == nil {
			d.mu.Unlock()
			<-d.wake
			continue
		}
		d.running = true
		d.mu.Unlock()
		f()
		d.mu.Lock()
		d.running = false
		d.mu.Unlock()
	}
}

// close drops what is queued and ends the loop, and waits for the
// callback running, if any, to return: no callback runs once close has
// returned. A callback that closes the Manager runs on the loop itself;
// then close cannot wait for it and returns at once, and that callback is
// the last one.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	for _, q := range d.ring {
		q.events, q.waiting = nil, map[string]*event{}
	}
	d.ring = nil
	busy := d.running
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
	if busy && onDispatcher() {
		return
	}
	<-d.done
}

// onDispatcher reports whether the calling goroutine is a dispatcher's
// loop, running a callback: Go names no goroutine, but its stack does.
func onDispatcher() bool {
	pc := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pc)
		if n < len(pc) {
			pc = pc[:n]
			break
		}
		pc = make([]uintptr, 2*len(pc))
	}
	frames := runtime.CallersFrames(pc)
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, ".(*dispatcher).loop") {
			return true
		}
		if !more {
			return false
		}
	}
}

// changed tells OnChange that what s offers changed; s.mu is held.
func (s *server) changedLocked() {
	if f := s.m.opts.OnChange; f != nil {
		name := s.def.Name
		s.m.events.post(name, "change", func() { f(name) })
	}
}

// noticeLocked gives the notice kind for s, unless it was the last one
// given (once per transition); s.mu is held. A needed login also goes to
// OnLoginNeeded.
func (s *server) noticeLocked(kind NoticeKind) {
	if s.lastNotice == kind {
		return
	}
	s.lastNotice = kind
	if kind == NoticeRecovered {
		s.lastNotice = ""
	}
	opts := &s.m.opts // not a copy: Update writes its Config
	name := s.def.Name
	if f := opts.OnNotice; f != nil {
		n := Notice{Server: name, Kind: kind, State: s.snapshotLocked()}
		s.m.events.post(name, "", func() { f(n) })
	}
	if f := opts.OnLoginNeeded; f != nil && kind == NoticeNeedsLogin {
		s.m.events.post(name, "change", func() { f(name) })
	}
}

// failedLocked gives NoticeFailed when s was well; a server already
// paused or needing a login stays so. inCall says the failure was of a
// session that had started (a call, a crash), not of a start; s.mu is
// held.
func (s *server) failedLocked(inCall bool) {
	if s.lastNotice == "" {
		s.noticeLocked(NoticeFailed)
		s.failedInCall = inCall
	}
}

// failureLocked gives the notice of a failure the breaker counted:
// paused when it opened the breaker (what is offered changed), else
// failed; s.mu is held.
func (s *server) failureLocked(inCall bool) {
	if s.breakerOpen() {
		if s.lastNotice != NoticePaused {
			s.changedLocked()
		}
		s.noticeLocked(NoticePaused)
		return
	}
	s.failedLocked(inCall)
}

// recoveredLocked gives NoticeRecovered when the last notice said s was
// not well; s.mu is held. A start that worked is a recovery from a
// failed start or a needed login; from a failed call, only a call that
// works is (started says which).
func (s *server) recoveredLocked(started bool) {
	if s.lastNotice == "" || (started && s.lastNotice != NoticeNeedsLogin && s.failedInCall) {
		return
	}
	s.noticeLocked(NoticeRecovered)
}
