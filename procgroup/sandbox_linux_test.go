package procgroup

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// python is the system's interpreter (PEERS.md: not a shim of the
// user's home, which the sandbox would not let it read).
const python = "/usr/bin/python3"

// probe is a Python program that tries what its arguments say and
// prints "ok" or the error: "write PATH", "read PATH", "connect
// HOST:PORT", "udp HOST:PORT", "unix PATH" (a unix socket's, such as an
// SSH agent's or the session bus'), "child OP ARG" (the same from a
// child process).
const probe = `
import socket, subprocess, sys
op, arg = sys.argv[1], sys.argv[2]
try:
    if op == "write":
        open(arg, "w").write("x")
    elif op == "read":
        open(arg).read()
    elif op == "udp":
        h, p = arg.rsplit(":", 1)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"x", (h, int(p))); s.close()
    elif op == "unix":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(10); s.connect(arg); s.close()
    elif op == "connect":
        h, p = arg.rsplit(":", 1)
        socket.create_connection((h, int(p)), timeout=10).close()
    elif op == "child":
        out = subprocess.run([sys.executable, "-c", SRC, sys.argv[2], sys.argv[3]], capture_output=True, text=True)
        print("child: " + out.stdout.strip()); sys.exit(0)
    print("ok")
except Exception as e:
    print(type(e).__name__ + ": " + str(e))
`

// runProbe runs the probe contained by box (nil: not contained) and
// returns what it printed.
func runProbe(t *testing.T, box *Sandbox, args ...string) string {
	t.Helper()
	// SRC is the program itself, for the child to run.
	src := "SRC = " + quotePy("SRC = ''\n"+probe) + "\n" + probe
	cmd := exec.Command(python, append([]string{"-c", src}, args...)...)
	if box != nil {
		self, _ := os.Executable()
		if err := Contain(cmd, self, box); err != nil {
			t.Fatal(err)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("probe %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func quotePy(s string) string {
	return "'''" + strings.ReplaceAll(s, "'''", `\'\'\'`) + "'''"
}

// TestSandboxDenies: contained, a server cannot write outside its write
// list, read outside its read list (a fake ~/.ssh/id_ed25519), nor open
// a TCP connection with network none, nor send UDP, nor connect to a
// unix socket outside (an SSH agent's, D-Bus, whose session bus can start
// an unconfined process); a process it starts is held the
// same; uncontained, the same succeeds. Each denial says so (the
// kernel's "Permission denied").
func TestSandboxDenies(t *testing.T) {
	if abi, err := LandlockABI(); abi < 4 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Landlock ABI %d (%v): CI runs the sandbox tests on a kernel with ABI 4+", abi, err)
		}
		t.Skipf("Landlock ABI %d (%v): this test needs 4", abi, err)
	}
	home := t.TempDir()
	key := filepath.Join(home, ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(key), 0o700)
	os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n"), 0o600)
	allowed := t.TempDir()
	outside := filepath.Join(t.TempDir(), "out.txt")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	agent := filepath.Join(t.TempDir(), "agent.sock")
	unixLn, err := net.Listen("unix", agent)
	if err != nil {
		t.Fatal(err)
	}
	defer unixLn.Close()
	go func() {
		for {
			c, err := unixLn.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	box := &Sandbox{Network: NetworkNone, Read: SystemRead, Write: append([]string{allowed}, SystemDevices...)}
	cases := []struct{ op, arg string }{
		{"write", outside},
		{"read", key},
		{"connect", ln.Addr().String()},
		{"udp", udp.LocalAddr().String()},
		{"unix", agent},
	}
	for _, c := range cases {
		if got := runProbe(t, box, c.op, c.arg); !strings.Contains(got, "Permission denied") {
			t.Errorf("contained %s %s: %q, want Permission denied", c.op, c.arg, got)
		}
		if got := runProbe(t, box, "child", c.op, c.arg); !strings.Contains(got, "child: ") || !strings.Contains(got, "Permission denied") {
			t.Errorf("a child of a contained server, %s %s: %q, want Permission denied", c.op, c.arg, got)
		}
		if got := runProbe(t, nil, c.op, c.arg); got != "ok" {
			t.Errorf("uncontained %s %s: %q", c.op, c.arg, got)
		}
	}
	if got := runProbe(t, box, "write", filepath.Join(allowed, "in.txt")); got != "ok" {
		t.Errorf("contained write inside the write list: %q", got)
	}
}

// TestSandboxHoldsOnEveryStart: every one of many contained starts runs
// confined (no_new_privs set, a write outside the list denied), while
// this process keeps the cores busy. The launcher's restrictions belong
// to one thread, and a launcher that let its goroutine move to another
// thread before the exec started the command unconfined now and then
// (TestProjectCannotMoveTheDefaultsFolder failed so in CI); the busier
// the machine, the likelier the move.
func TestSandboxHoldsOnEveryStart(t *testing.T) {
	if abi, err := LandlockABI(); abi < 1 {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Landlock ABI %d (%v): CI runs the sandbox tests", abi, err)
		}
		t.Skipf("Landlock ABI %d (%v)", abi, err)
	}
	stop := make(chan struct{})
	var busy sync.WaitGroup
	for range 2 * runtime.NumCPU() {
		busy.Add(1)
		go func() {
			defer busy.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	defer func() { close(stop); busy.Wait() }()
	self, _ := os.Executable()
	outside := t.TempDir()
	box := &Sandbox{Network: NetworkAny, Read: SystemRead, Write: SystemDevices}
	// The shell reads its own status (a builtin: /proc/self is the
	// launcher's pid, which the exec keeps).
	const script = `while read -r l; do case $l in NoNewPrivs*) echo $l;; esac; done < /proc/self/status
(echo x > "$1/f") 2>/dev/null && echo written; exit 0`
	for i := range 150 {
		cmd := exec.Command("/bin/sh", "-c", script, "sh", outside)
		if err := Contain(cmd, self, box); err != nil {
			t.Fatal(err)
		}
		out, err := cmd.CombinedOutput()
		got := strings.Join(strings.Fields(string(out)), " ")
		if err != nil || got != "NoNewPrivs: 1" {
			t.Fatalf("start %d ran unconfined: %q %v", i, got, err)
		}
	}
}
