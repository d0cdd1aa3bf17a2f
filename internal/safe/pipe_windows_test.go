package safe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// pipeHang bounds the waits of the pipe tests, so that a bug fails
// instead of hanging; it is not a timing assertion.
const pipeHang = 30 * time.Second

// testPipeName is a pipe name of t's own.
func testPipeName(t *testing.T) string {
	return fmt.Sprintf(`\\.\pipe\mcpwire-test-%d-%s`, os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
}

// acceptOne runs one Accept of l and hands over what it returned.
func acceptOne(l net.Listener) <-chan net.Conn {
	ch := make(chan net.Conn, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			c = nil
		}
		ch <- c
	}()
	return ch
}

// TestPipeLinesBothWays listens, dials, checks each end's owner and
// exchanges lines both ways, twice (the second on the instance made
// after the first was accepted).
func TestPipeLinesBothWays(t *testing.T) {
	name := testPipeName(t)
	l, err := ListenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range 2 {
		ch := acceptOne(l)
		c, err := DialPipe(context.Background(), name, pipeHang)
		if err != nil {
			t.Fatal(err)
		}
		if err := CheckPipePeer(c); err != nil {
			t.Fatalf("client's check of the server: %v", err)
		}
		var s net.Conn
		select {
		case s = <-ch:
		case <-time.After(pipeHang):
			t.Fatal("Accept did not return")
		}
		if s == nil {
			t.Fatal("Accept failed")
		}
		if err := CheckPipePeer(s); err != nil {
			t.Fatalf("server's check of the client: %v", err)
		}
		exchange(t, c, s, fmt.Sprintf("hello %d\n", i))
		exchange(t, s, c, fmt.Sprintf("answer %d\n", i))
		s.Close()
		c.SetReadDeadline(time.Now().Add(pipeHang))
		if n, err := c.Read(make([]byte, 1)); err == nil {
			t.Fatalf("read %d bytes after the server closed", n)
		}
		c.Close()
	}
}

// exchange writes line on from and reads it on to.
func exchange(t *testing.T, from, to net.Conn, line string) {
	t.Helper()
	from.SetWriteDeadline(time.Now().Add(pipeHang))
	if _, err := from.Write([]byte(line)); err != nil {
		t.Fatal(err)
	}
	to.SetReadDeadline(time.Now().Add(pipeHang))
	got, err := bufio.NewReader(to).ReadString('\n')
	if err != nil || got != line {
		t.Fatalf("read %q, %v; want %q", got, err, line)
	}
}

// TestPipeDeadline checks that a read deadline ends a read that gets
// nothing (the handle is on the runtime's poller).
func TestPipeDeadline(t *testing.T) {
	name := testPipeName(t)
	l, err := ListenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ch := acceptOne(l)
	c, err := DialPipe(context.Background(), name, pipeHang)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s := <-ch; s != nil {
		defer s.Close()
	}
	if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
		t.Fatalf("SetReadDeadline: %v", err)
	}
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v, want the deadline exceeded", err)
	}
}

// TestPipeCloseEndsAccept checks that Close ends a pending Accept, and
// that the name is gone after.
func TestPipeCloseEndsAccept(t *testing.T) {
	name := testPipeName(t)
	l, err := ListenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := l.Accept()
		done <- err
	}()
	l.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("Accept: %v, want net.ErrClosed", err)
		}
	case <-time.After(pipeHang):
		t.Fatal("Close did not end Accept")
	}
	if _, err := DialPipe(context.Background(), name, pipeHang); !errors.Is(err, ErrNoPipe) {
		t.Fatalf("dial after Close: %v, want ErrNoPipe", err)
	}
}

// TestPipeSquatted checks that a name another listener holds is
// refused: a second daemon's, and a pipe made by another program with
// the default access (the first-instance flag refuses both).
func TestPipeSquatted(t *testing.T) {
	name := testPipeName(t)
	l, err := ListenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ListenPipe(name)
	l.Close()
	if !errors.Is(err, ErrPipeTaken) {
		t.Fatalf("second listen: %v", err)
	}

	name += "-squatted"
	u16, _ := windows.UTF16PtrFromString(name)
	h, err := windows.CreateNamedPipe(u16, windows.PIPE_ACCESS_DUPLEX, windows.PIPE_TYPE_BYTE, windows.PIPE_UNLIMITED_INSTANCES, 512, 512, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if _, err := ListenPipe(name); !errors.Is(err, ErrPipeTaken) {
		t.Fatalf("listen on a squatted name: %v, want ErrPipeTaken", err)
	}
}

// TestPipeBusy checks that a client waits for a free instance while
// every one is taken, and gets one once the daemon makes it.
func TestPipeBusy(t *testing.T) {
	name := testPipeName(t)
	l, err := ListenPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	first, err := DialPipe(context.Background(), name, pipeHang) // takes the one instance, not yet accepted
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second := make(chan error, 1)
	go func() {
		c, err := DialPipe(context.Background(), name, pipeHang)
		if err == nil {
			c.Close()
		}
		second <- err
	}()
	ch := acceptOne(l) // connects the first, then makes the next instance
	if s := <-ch; s != nil {
		defer s.Close()
	}
	select {
	case err := <-second:
		if err != nil {
			t.Fatalf("second dial: %v", err)
		}
	case <-time.After(pipeHang):
		t.Fatal("the second dial did not end")
	}
}
