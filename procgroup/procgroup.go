// Package procgroup starts a command in a process group of its own (a Job
// Object on Windows) so that it can be signalled and stopped as a whole,
// grandchildren included.
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

	stopMu sync.Mutex // one Stop at a time
}

// Start starts cmd in a new process group (Setpgid on unix; a Job Object
// on Windows) and reaps it in the background.
func Start(cmd *exec.Cmd) (*Group, error) {
	if cmd == nil {
		return nil, errors.New("procgroup: nil command")
	}
	g := &Group{cmd: cmd, done: make(chan struct{})}
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
	go func() {
		g.waitErr = cmd.Wait()
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
// of the leader's standard input. Stop returns when the leader was reaped,
// with an error only if the group could not be killed.
func (g *Group) Stop(stdin io.Closer, opts *StopOptions) error {
	g.stopMu.Lock()
	defer g.stopMu.Unlock()
	closeWait, termWait := DefaultCloseWait, DefaultTermWait
	if opts != nil {
		if opts.CloseWait > 0 {
			closeWait = opts.CloseWait
		}
		if opts.TermWait > 0 {
			termWait = opts.TermWait
		}
	}

	// "1. First, closing the input stream to the child process (the server)"
	if stdin != nil {
		_ = stdin.Close()
	}
	// "2. Waiting for the server to exit, or sending SIGTERM if the server
	// does not exit within a reasonable time"
	if !g.waitFor(closeWait) {
		if err := g.Signal(syscall.SIGTERM); err != nil && !g.exited() {
			return fmt.Errorf("procgroup: stopping %d: %v", g.Pid(), err)
		}
		// "3. Sending SIGKILL if the server does not exit within a
		// reasonable time after SIGTERM"
		if !g.waitFor(termWait) {
			if err := g.Kill(); err != nil && !g.exited() {
				return fmt.Errorf("procgroup: stopping %d: %v", g.Pid(), err)
			}
			if !g.waitFor(killWait) {
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

// waitFor waits up to d for the leader to exit and says whether it did.
func (g *Group) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-g.done:
		return true
	case <-t.C:
		return false
	}
}
