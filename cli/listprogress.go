package cli

import (
	"fmt"
	"slices"
	"sync"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// listProgress follows list's servers as each one settles (connected,
// failed, needs a login): the spinner says how many are done, and in a
// pipe (a CI log, stderr not a terminal) each server's line goes to
// stderr as it finishes, before the table at the end.
type listProgress struct {
	inv   *invocation
	total int
	pipe  bool
	mu    sync.Mutex
	done  map[string]bool
	said  []string // servers whose error line was written
	// m is the Manager, once New returned; pending are the servers that
	// changed before (New starts them).
	m       *manager.Manager
	pending []string
	// wmu is held across each write of a settling, and stopped set by
	// stop under it: a callback the Manager's dispatcher delivers after
	// list returned writes nothing (the caller's stderr may be gone).
	wmu     sync.Mutex
	stopped bool
}

// stop ends the writes of later settlings; list calls it before it
// returns.
func (p *listProgress) stop() {
	p.wmu.Lock()
	p.stopped = true
	p.wmu.Unlock()
}

func (inv *invocation) newListProgress(total int) *listProgress {
	return &listProgress{inv: inv, total: total, pipe: !inv.json && !inv.env.StderrIsTerminal, done: map[string]bool{}}
}

// settled records that server reached state; its first settling is
// counted and, in a pipe, said.
func (p *listProgress) settled(server string, st manager.ServerState) {
	p.mu.Lock()
	if p.done[server] {
		p.mu.Unlock()
		return
	}
	p.done[server] = true
	n := len(p.done)
	p.mu.Unlock()
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.stopped {
		return
	}
	p.inv.progress.Store(fmt.Sprintf("%d of %d done", n, p.total))
	if !p.pipe {
		return
	}
	switch {
	case st.State == manager.StateConnected:
		p.inv.say("%s: connected, %s, %s\n", safe.Sanitize(server), safe.Sanitize(st.ProtocolVersion), plural(st.Tools, "tool"))
	case st.Err != nil:
		// The error line list writes at the end anyway, now (once).
		p.mu.Lock()
		p.said = append(p.said, server)
		p.mu.Unlock()
		p.inv.say("error: %s: %s: %s\n", safe.Sanitize(server), st.Phase, cellText(st.Err.Error()))
	default:
		p.inv.say("%s: %s\n", safe.Sanitize(server), st.State)
	}
}

// saidError reports whether server's failure was written already.
func (p *listProgress) saidError(server string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.said, server)
}

// use gives the Manager to the callbacks, and settles the servers that
// changed before it was there.
func (p *listProgress) use(m *manager.Manager) {
	p.mu.Lock()
	p.m = m
	pending := p.pending
	p.pending = nil
	p.mu.Unlock()
	for _, s := range pending {
		p.changed(s)
	}
}

// changed settles server when it is connected.
func (p *listProgress) changed(server string) {
	p.mu.Lock()
	m := p.m
	if m == nil {
		p.pending = append(p.pending, server)
	}
	p.mu.Unlock()
	if m == nil {
		return
	}
	for _, st := range m.States() {
		if st.Name == server && st.State == manager.StateConnected {
			p.settled(server, st)
		}
	}
}

// finish settles, in configuration order, the servers of states that
// are done and were not said yet.
func (p *listProgress) finish(states []manager.ServerState) {
	for _, st := range states {
		switch st.State {
		case manager.StateConnected, manager.StateFailed, manager.StateNeedsLogin:
			p.settled(st.Name, st)
		}
	}
}

// options are the Manager's callbacks that feed it (see use).
func (p *listProgress) options() (onChange func(string), onNotice func(manager.Notice)) {
	onChange = p.changed
	onNotice = func(n manager.Notice) {
		switch n.State.State {
		case manager.StateFailed, manager.StateNeedsLogin, manager.StateConnected:
			p.settled(n.Server, n.State)
		}
	}
	return onChange, onNotice
}
