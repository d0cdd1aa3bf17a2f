// Package procgroup starts a command in a process group of its own (a Job
// Object on Windows) so that it can be signalled and stopped as a whole,
// grandchildren included.
//
// What is stopped, by system:
//
//   - Linux: the process group (everything the command starts that stays
//     in it). With a [Reaper], also what left the group: a child started
//     with setsid, a classic daemon (fork, setsid, fork), a child in a
//     process group of its own. They are re-parented to this process (a
//     child subreaper) when their parent exits, and Stop stops them after
//     the group.
//   - macOS and the other unix systems: the process group only. A
//     descendant that left it (setsid, a daemon, a new process group)
//     survives the stop: there is no subreaper to find it by.
//   - Windows: the Job Object, which holds every descendant (unless one
//     was started with CREATE_BREAKAWAY_FROM_JOB and the job allows it,
//     which ours does not).
package procgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Default waits of [StopOptions].
const (
	DefaultCloseWait = 2 * time.Second
	DefaultTermWait  = 2 * time.Second
)

// killWait bounds the wait for the leader after SIGKILL; only a process
// stuck in the kernel takes longer.
const killWait = 5 * time.Second

// StopOptions sets the waits between the steps of [Group.Stop]. A nil
// *StopOptions, or a zero field, means the defaults.
type StopOptions struct {
	CloseWait time.Duration // after closing stdin, before SIGTERM (0 = 2s)
	TermWait  time.Duration // after SIGTERM, before SIGKILL (0 = 2s)
	// Hurry, when closed, cuts the stop short: what is left is killed at
	// once, without waiting (a second Ctrl-C, say).
	Hurry <-chan struct{}
}

// A Group is a started command in a process group of its own. Its leader
// is reaped by the Group itself, as soon as it exits.
//
// The command's Stdin, Stdout and Stderr should be nil or *os.File (such
// as the ends of os.Pipe): with Cmd.StdoutPipe or StderrPipe the pipe
// would be closed when the leader is reaped, perhaps before it was read.
type Group struct {
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error // set before done is closed
	sys     sysGroup
	reaper  *Reaper // nil: the group alone is stopped

	stopMu sync.Mutex // one Stop at a time
}

// Start starts cmd in a new process group (Setpgid on unix; a Job Object
// on Windows) and reaps it in the background.
func Start(cmd *exec.Cmd) (*Group, error) { return start(cmd, nil) }

func start(cmd *exec.Cmd, r *Reaper) (*Group, error) {
	if cmd == nil {
		return nil, errors.New("procgroup: nil command")
	}
	g := &Group{cmd: cmd, done: make(chan struct{}), reaper: r}
	prepare(cmd)
	if cmd.WaitDelay == 0 {
		// Bounds Wait when a grandchild keeps a stdio pipe open that
		// exec copies itself (a non-*os.File Stdout, say).
		cmd.WaitDelay = time.Second
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	sys, err := attach(cmd.Process)
	if err != nil {
		// The process runs outside a group we can control: kill it.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("procgroup: %v", err)
	}
	g.sys = sys
	r.hold(cmd.Process.Pid)
	go func() {
		g.waitErr = cmd.Wait()
		r.release(cmd.Process.Pid)
		close(g.done)
	}()
	return g, nil
}

// Pid returns the process id of the group's leader (on unix also the id of
// the process group).
func (g *Group) Pid() int { return g.cmd.Process.Pid }

// Done returns a channel that is closed when the leader has exited and was
// reaped.
func (g *Group) Done() <-chan struct{} { return g.done }

// Wait waits for the leader to exit and returns what exec.Cmd.Wait said
// (an *exec.ExitError for a non-zero exit).
func (g *Group) Wait() error {
	<-g.done
	return g.waitErr
}

// ExitState returns how the leader ended, or nil while it runs.
func (g *Group) ExitState() *os.ProcessState {
	select {
	case <-g.done:
		return g.cmd.ProcessState
	default:
		return nil
	}
}

// Signal sends sig to every process of the group. A group with no process
// left is not an error.
func (g *Group) Signal(sig os.Signal) error { return g.sys.signal(g, sig) }

// Kill kills every process of the group (SIGKILL; TerminateJobObject on
// Windows). A group with no process left is not an error.
func (g *Group) Kill() error { return g.sys.signal(g, os.Kill) }

// Stop stops the group in the steps the MCP specification gives for
// shutdown over stdio (2025-11-25, basic/lifecycle), and makes sure that no
// process of the group survives. stdin, when not nil, is the parent's end
// of the leader's standard input. When the group was started by a
// [Reaper], the descendants that left the group are stopped next, the
// same way (SIGTERM, a wait, SIGKILL). Stop returns when the leader was
// reaped, with an error only if the group could not be killed.
func (g *Group) Stop(stdin io.Closer, opts *StopOptions) error {
	g.stopMu.Lock()
	defer g.stopMu.Unlock()
	closeWait, termWait := DefaultCloseWait, DefaultTermWait
	var hurry <-chan struct{}
	if opts != nil {
		if opts.CloseWait > 0 {
			closeWait = opts.CloseWait
		}
		if opts.TermWait > 0 {
			termWait = opts.TermWait
		}
		hurry = opts.Hurry
	}

	// "1. First, closing the input stream to the child process (the server)"
	if stdin != nil {
		_ = stdin.Close()
	}
	// "2. Waiting for the server to exit, or sending SIGTERM if the server
	// does not exit within a reasonable time"
	if !g.waitFor(closeWait, hurry) {
		if err := g.Signal(syscall.SIGTERM); err != nil && !g.exited() {
			return fmt.Errorf("procgroup: stopping %d: %v", g.Pid(), err)
		}
		// "3. Sending SIGKILL if the server does not exit within a
		// reasonable time after SIGTERM"
		if !g.waitFor(termWait, hurry) {
			if err := g.Kill(); err != nil && !g.exited() {
				return fmt.Errorf("procgroup: stopping %d: %v", g.Pid(), err)
			}
			if !g.waitFor(killWait, nil) {
				return fmt.Errorf("procgroup: stopping %d: still running %v after SIGKILL", g.Pid(), killWait)
			}
		}
	}
	// The server is gone. Whatever it started and left behind in its group
	// (a grandchild, one that ignores SIGTERM) is part of the server too:
	// kill it now, even when the leader exited by itself.
	if err := g.Kill(); err != nil {
		return fmt.Errorf("procgroup: killing the rest of group %d: %v", g.Pid(), err)
	}
	g.sys.release()
	if g.reaper != nil {
		// What left the group (setsid, daemons) and was re-parented to us.
		g.reaper.sweep(g, termWait, hurry)
	}
	return nil
}

func (g *Group) exited() bool {
	select {
	case <-g.done:
		return true
	default:
		return false
	}
}

// waitFor waits up to d, or until hurry is closed, for the leader to exit
// and says whether it did.
func (g *Group) waitFor(d time.Duration, hurry <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-g.done:
		return true
	case <-t.C:
		return false
	case <-hurry:
		return g.exited()
	}
}
