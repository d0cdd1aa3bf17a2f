package procgroup

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"golang.org/x/sys/unix"
)

// sweepPoll is how often a sweep looks at the process table while it
// waits for processes to end.
const sweepPoll = 10 * time.Millisecond

// maxSweepRounds bounds the rounds of a sweep: each stops the orphans
// found, whose own children are re-parented for the next round.
const maxSweepRounds = 8

func becomeSubreaper() (bool, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return false, os.NewSyscallError("prctl(PR_SET_CHILD_SUBREAPER)", err)
	}
	return true, nil
}

// sweep runs after the group was killed: it waits until no process of
// the group is left (their orphans are re-parented to us as they die),
// then stops the orphans this process holds, round after round.
func (r *Reaper) sweep(g *Group, termWait time.Duration, hurry <-chan struct{}) {
	if r == nil || !r.on {
		return
	}
	pgid := g.Pid()
	deadline := time.Now().Add(killWait)
	for {
		r.orphans() // reaps the group's zombies re-parented to us
		if syscall.Kill(-pgid, 0) == syscall.ESRCH || time.Now().After(deadline) {
			break
		}
		time.Sleep(sweepPoll)
	}
	for range maxSweepRounds {
		left := r.orphans()
		if len(left) == 0 {
			return
		}
		signalAll(left, syscall.SIGTERM)
		if r.waitGone(left, termWait, hurry) {
			continue
		}
		signalAll(left, syscall.SIGKILL)
		r.waitGone(left, killWait, nil)
	}
}

// orphan is a process re-parented to us.
type orphan struct {
	pid, pgid int
}

// signalAll signals each orphan, and the process group of each that
// leads one (a setsid child, and what it started in its group).
func signalAll(ps []orphan, sig syscall.Signal) {
	for _, p := range ps {
		if p.pgid == p.pid {
			syscall.Kill(-p.pid, sig)
		}
		syscall.Kill(p.pid, sig)
	}
}

// waitGone waits up to d, or until hurry is closed, for every process of
// ps to end (reaping them), and says whether they did.
func (r *Reaper) waitGone(ps []orphan, d time.Duration, hurry <-chan struct{}) bool {
	deadline := time.Now().Add(d)
	for {
		live := map[int]bool{}
		for _, p := range r.orphans() {
			live[p.pid] = true
		}
		gone := true
		for _, p := range ps {
			if live[p.pid] {
				gone = false
				break
			}
		}
		if gone {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-hurry:
			return false
		case <-time.After(sweepPoll):
		}
	}
}

// orphans lists this process's children that nobody else holds, alive;
// those that have exited are reaped.
func (r *Reaper) orphans() []orphan {
	self := os.Getpid()
	var held map[int]bool // pids of our pidfds, read once when needed
	var out []orphan
	for _, pid := range childPids(self) {
		st, ok := readStat(pid)
		if !ok || st.ppid != self || r.isLeader(pid) {
			continue
		}
		if held == nil {
			held = pidfdPids()
		}
		if held[pid] {
			continue // os/exec started it and will wait for it
		}
		if st.state == 'Z' {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			continue
		}
		out = append(out, orphan{pid: pid, pgid: st.pgid})
	}
	return out
}

// childPids lists the processes that may be orphans re-parented to this
// process (pid self): the children of its main thread, which the kernel
// gives every orphan of a subreaper (the first live thread of the
// process), as /proc/self/task/SELF/children says, one read; on a kernel
// without that file (CONFIG_PROC_CHILDREN), every process of /proc, whose
// parents orphans then checks, hundreds of reads. (Children that os/exec
// started from other threads are not orphans.)
func childPids(self int) []int {
	var out []int
	if b, err := safe.ReadFile("/proc/self/task/"+strconv.Itoa(self)+"/children", safe.KindProc); err == nil {
		for _, f := range bytes.Fields(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil {
				out = append(out, pid)
			}
		}
		return out
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

type stat struct {
	state      byte
	ppid, pgid int
}

// readStat reads a process's state, parent and process group from
// /proc/PID/stat.
func readStat(pid int) (stat, bool) {
	b, err := safe.ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", safe.KindProc)
	if err != nil {
		return stat{}, false
	}
	// pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return stat{}, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgid, err2 := strconv.Atoi(string(f[2]))
	if err1 != nil || err2 != nil {
		return stat{}, false
	}
	return stat{state: f[0][0], ppid: ppid, pgid: pgid}, true
}

// pidfdPids returns the pids that pidfds of this process refer to: the
// children os/exec started and has not reaped yet.
func pidfdPids() map[int]bool {
	out := map[int]bool{}
	infos, _ := filepath.Glob("/proc/self/fdinfo/*")
	for _, f := range infos {
		b, err := safe.ReadFile(f, safe.KindProc)
		if err != nil {
			continue
		}
		i := bytes.Index(b, []byte("\nPid:\t"))
		if i < 0 {
			continue
		}
		rest := b[i+len("\nPid:\t"):]
		if j := bytes.IndexByte(rest, '\n'); j >= 0 {
			rest = rest[:j]
		}
		if pid, err := strconv.Atoi(string(rest)); err == nil && pid > 0 {
			out[pid] = true
		}
	}
	return out
}
