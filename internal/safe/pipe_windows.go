package safe

// Private named pipes on Windows (the session daemon's): a net.Listener
// and a net.Conn over them. The pipe is this user's alone (its security
// descriptor grants access only to the user's SID, remote clients are
// rejected, and the first instance is created with
// FILE_FLAG_FIRST_PIPE_INSTANCE and found alone, so a name another
// process holds is refused); each end checks that the process at the other end runs as
// the same user, as SO_PEERCRED does on Linux.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Bounds of the pipe.
const (
	pipeBuffer = 64 << 10
	// pipeBusyWait bounds one wait for a free instance when all are busy.
	pipeBusyWait = 2 * time.Second
)

// Errors of the pipes.
var (
	// ErrNoPipe says no pipe of the name exists (no listener).
	ErrNoPipe = errors.New("no such pipe")
	// ErrPipeTaken says another process holds the name a listener wanted.
	ErrPipeTaken = errors.New("another process holds the pipe")
	// ErrPipeBusy says every instance of a pipe stayed busy past a bound.
	ErrPipeBusy = errors.New("every instance of the pipe stayed busy")
)

// A PipePeerError says the process at a pipe's other end is not ours.
type PipePeerError struct {
	Pid       uint32
	SID, Want string // the process's user, and ours ("" when unknown)
	Err       error  // why its user is unknown
}

func (e *PipePeerError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("the process at the other end (pid %d): %v", e.Pid, e.Err)
	}
	return fmt.Sprintf("the process at the other end (pid %d) is %s, not %s", e.Pid, e.SID, e.Want)
}

// UserSID is the SID of the user this process runs as, as a string.
func UserSID() (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	return sid.String(), nil
}

// userSID is the SID of the user this process runs as.
func userSID() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("the process's user: %w", err)
	}
	return u.User.Sid.Copy()
}

// A pipeAddr is a pipe's name as a net.Addr.
type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

// A pipeConn is one end of a connected pipe instance, read and written
// through the runtime's poller (the handle is overlapped), so deadlines
// hold and Close ends a pending read.
type pipeConn struct {
	*os.File
	h      windows.Handle
	name   string
	server bool // the listener's end
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr(c.name) }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr(c.name) }

func newPipeConn(h windows.Handle, name string, server bool) *pipeConn {
	return &pipeConn{File: os.NewFile(uintptr(h), name), h: h, name: name, server: server}
}

// peerPid is the pid of the process at the other end.
func (c *pipeConn) peerPid() (uint32, error) {
	var pid uint32
	var err error
	if c.server {
		err = windows.GetNamedPipeClientProcessId(c.h, &pid)
	} else {
		err = windows.GetNamedPipeServerProcessId(c.h, &pid)
	}
	return pid, err
}

// CheckPipePeer refuses c, one end of a pipe of [ListenPipe] or
// [DialPipe], unless the process at its other end runs as this user (a
// [*PipePeerError]); any other connection passes.
func CheckPipePeer(c net.Conn) error {
	pc, ok := c.(*pipeConn)
	if !ok {
		return nil
	}
	return pc.checkOwner()
}

// checkOwner refuses the other end of c unless its process runs as us.
func (c *pipeConn) checkOwner() error {
	pid, err := c.peerPid()
	if err != nil {
		return fmt.Errorf("the pipe's other end: %w", err)
	}
	theirs, err := processSID(pid)
	if err != nil {
		return &PipePeerError{Pid: pid, Err: err}
	}
	ours, err := userSID()
	if err != nil {
		return err
	}
	if !theirs.Equals(ours) {
		return &PipePeerError{Pid: pid, SID: theirs.String(), Want: ours.String()}
	}
	return nil
}

// processSID is the user SID of process pid.
func processSID(pid uint32) (*windows.SID, error) {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return nil, err
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return nil, err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return nil, err
	}
	return u.User.Sid.Copy()
}

// A pipeListener accepts connections on a pipe name: one instance waits
// for a client at a time, and the next is created before a connected
// one is handed over, so a client never finds the name gone.
type pipeListener struct {
	name   string
	sa     *windows.SecurityAttributes
	closed windows.Handle // manual-reset event, set by Close
	once   sync.Once

	mu   sync.Mutex // never held across I/O
	next windows.Handle
	shut bool
}

// ListenPipe listens on the pipe name, this user's alone: its security
// descriptor grants access to the user's SID only, remote clients are
// rejected, and a name another process holds is refused
// ([ErrPipeTaken]). Close ends a pending Accept. Each connection is read
// and written through the runtime's poller: deadlines hold.
func ListenPipe(name string) (net.Listener, error) {
	sid, err := userSID()
	if err != nil {
		return nil, err
	}
	sd, err := windows.SecurityDescriptorFromString("D:P(A;;GA;;;" + sid.String() + ")")
	if err != nil {
		return nil, fmt.Errorf("the pipe's security descriptor: %w", err)
	}
	sa := &windows.SecurityAttributes{SecurityDescriptor: sd}
	sa.Length = uint32(unsafe.Sizeof(*sa))
	l := &pipeListener{name: name, sa: sa}
	if l.next, err = l.instance(true); err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) {
			return nil, fmt.Errorf("%s: %w", name, ErrPipeTaken)
		}
		return nil, fmt.Errorf("creating the pipe %s: %w", name, err)
	}
	if err := l.alone(); err != nil {
		windows.CloseHandle(l.next)
		return nil, err
	}
	if l.closed, err = windows.CreateEvent(nil, 1, 0, nil); err != nil {
		windows.CloseHandle(l.next)
		return nil, err
	}
	return l, nil
}

// alone refuses a name with instances besides the first one's: the
// check FILE_FLAG_FIRST_PIPE_INSTANCE makes, made again (wine 8 ignores
// the flag).
func (l *pipeListener) alone() error {
	var n uint32
	if err := windows.GetNamedPipeHandleState(l.next, nil, &n, nil, nil, nil, 0); err != nil {
		return fmt.Errorf("the pipe %s: %w", l.name, err)
	}
	if n != 1 {
		return fmt.Errorf("%s: %w", l.name, ErrPipeTaken)
	}
	return nil
}

// instance creates an instance of the pipe: first with
// FILE_FLAG_FIRST_PIPE_INSTANCE.
func (l *pipeListener) instance(first bool) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(l.name)
	if err != nil {
		return windows.InvalidHandle, err
	}
	flags := uint32(windows.PIPE_ACCESS_DUPLEX | windows.FILE_FLAG_OVERLAPPED)
	if first {
		flags |= windows.FILE_FLAG_FIRST_PIPE_INSTANCE
	}
	mode := uint32(windows.PIPE_TYPE_BYTE | windows.PIPE_READMODE_BYTE | windows.PIPE_WAIT | windows.PIPE_REJECT_REMOTE_CLIENTS)
	return windows.CreateNamedPipe(name, flags, mode, windows.PIPE_UNLIMITED_INSTANCES, pipeBuffer, pipeBuffer, 0, l.sa)
}

// Accept waits for a client on the waiting instance; Close ends the wait.
func (l *pipeListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	h := l.next
	l.next = 0
	l.mu.Unlock()
	if h == 0 {
		return nil, net.ErrClosed
	}
	if err := l.connect(h); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	next, err := l.instance(false)
	l.mu.Lock()
	if l.shut && err == nil {
		windows.CloseHandle(next)
		err = net.ErrClosed
	} else if err == nil {
		l.next = next
	}
	l.mu.Unlock()
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return newPipeConn(h, l.name, true), nil
}

// connect waits (ConnectNamedPipe, overlapped) until a client opens h,
// or Close is called.
func (l *pipeListener) connect(h windows.Handle) error {
	ev, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(ev)
	ov := &windows.Overlapped{HEvent: ev}
	err = windows.ConnectNamedPipe(h, ov)
	switch {
	case err == nil, errors.Is(err, windows.ERROR_PIPE_CONNECTED):
		return nil
	case !errors.Is(err, windows.ERROR_IO_PENDING):
		return fmt.Errorf("ConnectNamedPipe: %w", err)
	}
	which, err := windows.WaitForMultipleObjects([]windows.Handle{ev, l.closed}, false, windows.INFINITE)
	if err == nil && which == windows.WAIT_OBJECT_0 {
		var n uint32
		return windows.GetOverlappedResult(h, ov, &n, false)
	}
	windows.CancelIoEx(h, ov)
	var n uint32
	windows.GetOverlappedResult(h, ov, &n, true) // the cancelled wait ends
	if err != nil {
		return err
	}
	return net.ErrClosed
}

// Close ends a pending Accept and removes the waiting instance.
func (l *pipeListener) Close() error {
	l.once.Do(func() {
		l.mu.Lock()
		l.shut = true
		h := l.next
		l.next = 0
		l.mu.Unlock()
		windows.SetEvent(l.closed)
		if h != 0 {
			windows.CloseHandle(h)
		}
	})
	return nil
}

// Addr is the pipe's name.
func (l *pipeListener) Addr() net.Addr { return pipeAddr(l.name) }

// DialPipe opens the pipe name as a client: its instances all busy, it
// waits for one, at most bound ([ErrPipeBusy]) and ctx; no pipe of the
// name is [ErrNoPipe]. The caller checks the listener's owner with
// [CheckPipePeer].
func DialPipe(ctx context.Context, name string, bound time.Duration) (net.Conn, error) {
	u16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(bound)
	for {
		h, err := windows.CreateFile(u16, windows.GENERIC_READ|windows.GENERIC_WRITE, 0, nil, windows.OPEN_EXISTING,
			windows.FILE_FLAG_OVERLAPPED|windows.SECURITY_SQOS_PRESENT|windows.SECURITY_IDENTIFICATION, 0)
		switch {
		case err == nil:
			return newPipeConn(h, name, false), nil
		case errors.Is(err, windows.ERROR_FILE_NOT_FOUND):
			return nil, fmt.Errorf("%s: %w", name, ErrNoPipe)
		case !errors.Is(err, windows.ERROR_PIPE_BUSY):
			return nil, fmt.Errorf("opening the pipe %s: %w", name, err)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s: %w", name, ErrPipeBusy)
		}
		if err := waitNamedPipe(u16, pipeBusyWait); err != nil && !errors.Is(err, windows.ERROR_SEM_TIMEOUT) {
			if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
				return nil, fmt.Errorf("%s: %w", name, ErrNoPipe)
			}
			return nil, fmt.Errorf("waiting for the pipe %s: %w", name, err)
		}
	}
}

// PipeExists says whether a pipe of the name exists (some process
// listens on it), without opening it.
func PipeExists(name string) bool {
	u16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return false
	}
	err = waitNamedPipe(u16, time.Millisecond)
	return !errors.Is(err, windows.ERROR_FILE_NOT_FOUND) && !errors.Is(err, windows.ERROR_BAD_PATHNAME)
}

// waitNamedPipe waits at most d for a free instance of name
// (WaitNamedPipeW, which x/sys/windows does not wrap; loaded on this
// rare path only).
func waitNamedPipe(name *uint16, d time.Duration) error {
	proc := windows.NewLazySystemDLL("kernel32.dll").NewProc("WaitNamedPipeW")
	if err := proc.Find(); err != nil {
		return err
	}
	ok, _, err := proc.Call(uintptr(unsafe.Pointer(name)), uintptr(d/time.Millisecond))
	if ok != 0 {
		return nil
	}
	return err
}
