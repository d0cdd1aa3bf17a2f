package manager

import "sync"

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
}

// A dispatcher runs the callbacks of Options, one at a time and in the
// order of the events, on a goroutine of its own: never under a lock of
// the Manager, so a callback may call any method of the Manager.
type dispatcher struct {
	mu      sync.Mutex
	queue   []func()
	wake    chan struct{} // has room for one wake-up
	closed  bool
	running bool          // a callback runs now
	done    chan struct{} // closed when the loop has ended
}

func newDispatcher() *dispatcher {
	d := &dispatcher{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go d.loop()
	return d
}

// post queues f; it never blocks and never runs f itself. Nothing is
// queued once the dispatcher is closed.
func (d *dispatcher) post(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.queue = append(d.queue, f)
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *dispatcher) loop() {
	defer close(d.done)
	for {
		d.mu.Lock()
		if d.closed {
			d.mu.Unlock()
			return
		}
		if len(d.queue) == 0 {
			d.mu.Unlock()
			<-d.wake
			continue
		}
		f := d.queue[0]
		d.queue[0] = nil
		d.queue = d.queue[1:]
		d.running = true
		d.mu.Unlock()
		f()
		d.mu.Lock()
		d.running = false
		d.mu.Unlock()
	}
}

// close drops what is queued and ends the loop. It waits for the loop to
// end unless a callback is running: that callback may be the caller (a
// callback that closes the Manager); it is the last one.
func (d *dispatcher) close() {
	d.mu.Lock()
	d.closed = true
	d.queue = nil
	busy := d.running
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
	if !busy {
		<-d.done
	}
}

// changed tells OnChange that what s offers changed; s.mu is held.
func (s *server) changedLocked() {
	if f := s.m.opts.OnChange; f != nil {
		name := s.def.Name
		s.m.events.post(func() { f(name) })
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
	opts := s.m.opts
	name := s.def.Name
	if f := opts.OnNotice; f != nil {
		n := Notice{Server: name, Kind: kind, State: s.snapshotLocked()}
		s.m.events.post(func() { f(n) })
	}
	if f := opts.OnLoginNeeded; f != nil && kind == NoticeNeedsLogin {
		s.m.events.post(func() { f(name) })
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
