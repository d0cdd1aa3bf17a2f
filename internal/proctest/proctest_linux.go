package proctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// Linux constants that package syscall lacks.
const (
	prSetChildSubreaper = 36
	sysPidfdOpen        = 434
)

const (
	deadline = 5 * time.Second
	poll     = 20 * time.Millisecond
)

type proc struct {
	pid, ppid int
	state     byte
	cmdline   string
}

func check(t testing.TB) {
	// Orphans of our children become ours, not init's: without this a
	// grandchild whose parent died would escape the check.
	if pidfdWorks() {
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	}
	before := map[int]bool{}
	for _, p := range descendants() {
		before[p.pid] = true
	}
	t.Cleanup(func() {
		t.Helper()
		end := time.Now().Add(deadline)
		for {
			var left []proc
			for _, p := range descendants() {
				if before[p.pid] {
					continue
				}
				if p.state == 'Z' && p.ppid == os.Getpid() && !ownedByUs(p.pid) {
					// An adopted orphan that died: nobody else will reap it.
					var ws syscall.WaitStatus
					syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
					continue
				}
				left = append(left, p)
			}
			if len(left) == 0 {
				return
			}
			if time.Now().After(end) {
				var b strings.Builder
				for _, p := range left {
					what := "running"
					if p.state == 'Z' {
						what = "zombie, never reaped"
					}
					fmt.Fprintf(&b, "\n\tpid %d (parent %d, %s): %s", p.pid, p.ppid, what, p.cmdline)
				}
				t.Errorf("proctest: %d process(es) left behind after %v:%s", len(left), deadline, b.String())
				return
			}
			time.Sleep(poll) // waiting for processes to end, bounded by the deadline
		}
	})
}

// pidfdWorks says whether os/exec tracks children by pidfd, which
// ownedByUs relies on to tell our children from adopted orphans.
func pidfdWorks() bool {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(os.Getpid()), 0, 0)
	if errno != 0 {
		return false
	}
	syscall.Close(int(fd))
	return true
}

// ownedByUs says whether a pidfd of this process refers to pid: then an
// os.Process holds it and will reap it.
func ownedByUs(pid int) bool {
	infos, _ := filepath.Glob("/proc/self/fdinfo/*")
	want := []byte("Pid:\t" + strconv.Itoa(pid) + "\n")
	for _, f := range infos {
		b, err := safe.ReadFile(f, safe.KindProc)
		if err == nil && bytes.Contains(b, want) {
			return true
		}
	}
	return false
}

// descendants lists the processes below the current one.
func descendants() []proc {
	entries, _ := os.ReadDir("/proc")
	all := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if ok {
			all[pid] = p
		}
	}
	self := os.Getpid()
	var out []proc
	for _, p := range all {
		for q, n := p, 0; n < 64; n++ {
			if q.ppid == self {
				out = append(out, p)
				break
			}
			next, ok := all[q.ppid]
			if !ok || q.ppid <= 1 {
				break
			}
			q = next
		}
	}
	slices.SortFunc(out, func(a, b proc) int { return a.pid - b.pid })
	return out
}

func readProc(pid int) (proc, bool) {
	b, err := safe.ReadFile("/proc/"+strconv.Itoa(pid)+"/stat", safe.KindProc)
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return proc{}, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return proc{}, false
	}
	p := proc{pid: pid, ppid: ppid, state: f[0][0]}
	cl, _ := safe.ReadFile("/proc/"+strconv.Itoa(pid)+"/cmdline", safe.KindProc)
	p.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cl), "\x00", " "))
	if p.cmdline == "" {
		if j := bytes.IndexByte(b, '('); j >= 0 {
			p.cmdline = "[" + string(b[j+1:i]) + "]"
		}
	}
	return p, true
}
