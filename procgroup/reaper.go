package procgroup

import (
	"os/exec"
	"sync"
)

// A Reaper starts groups whose Stop also stops the descendants that left
// the group: a child started with setsid, a classic daemon (fork, setsid,
// fork), a child in a process group of its own.
//
// On Linux, NewReaper makes this process a child subreaper
// (prctl(PR_SET_CHILD_SUBREAPER)): a descendant whose parent exits is
// re-parented to this process instead of init. After killing a group,
// Stop finds this process's children that nobody else holds (neither the
// leader of a live group of this Reaper, nor a process that os/exec
// started and waits for, which it knows by the pidfd os/exec keeps) and
// stops each the same way: SIGTERM (to its process group when it leads
// one), a wait, SIGKILL; then again for what those left behind, and it
// reaps them.
//
// The subreaper is process-wide and cannot be undone: every orphan below
// this process comes to it, whoever started its ancestors, and each Stop
// stops every such orphan it finds. That is right for a command-line
// program whose only children are its servers; a program that starts
// children of its own in other ways (fork without os/exec, or an old
// kernel without pidfd) should not use a Reaper.
//
// On other systems a Reaper adds nothing to a Group: macOS has no
// subreaper, so a descendant that left the group survives; on Windows the
// Job Object holds every descendant already.
type Reaper struct {
	on bool // the subreaper is set: Stop sweeps

	mu      sync.Mutex
	leaders map[int]bool // live leaders of groups started here: never swept
}

// NewReaper returns a Reaper. On Linux it makes this process a child
// subreaper first, and fails if it cannot.
func NewReaper() (*Reaper, error) {
	r := &Reaper{leaders: map[int]bool{}}
	on, err := becomeSubreaper()
	if err != nil {
		return nil, err
	}
	r.on = on
	return r, nil
}

// Start starts cmd as Start does; the group's Stop also stops the
// descendants that left it.
func (r *Reaper) Start(cmd *exec.Cmd) (*Group, error) { return start(cmd, r) }

// hold records a live leader; release forgets it once reaped.
func (r *Reaper) hold(pid int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.leaders[pid] = true
	r.mu.Unlock()
}

func (r *Reaper) release(pid int) {
	if r == nil {
		return
	}
	r.mu.Lock()
	delete(r.leaders, pid)
	r.mu.Unlock()
}

func (r *Reaper) isLeader(pid int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leaders[pid]
}
