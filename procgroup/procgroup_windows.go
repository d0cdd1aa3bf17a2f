//go:build windows

package procgroup

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// sysGroup is a Job Object that holds the leader and, since child
// processes inherit it, everything the leader starts.
type sysGroup struct {
	mu  *sync.Mutex
	job *windows.Handle
}

func prepare(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Its own console process group, so that CTRL_BREAK reaches only it.
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP
}

func attach(p *os.Process) (sysGroup, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return sysGroup{}, err
	}
	// Closing the last handle of the job kills what is left in it, even if
	// we die first.
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return sysGroup{}, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(p.Pid))
	if err != nil {
		windows.CloseHandle(job)
		return sysGroup{}, err
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(job, h); err != nil {
		windows.CloseHandle(job)
		return sysGroup{}, err
	}
	return sysGroup{mu: new(sync.Mutex), job: &job}, nil
}

func (s sysGroup) signal(g *Group, sig os.Signal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *s.job == 0 {
		return nil // released: nothing left
	}
	if sig == os.Kill {
		err := windows.TerminateJobObject(*s.job, 1)
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
			return nil // the job is already ending
		}
		return err
	}
	// Windows has no SIGTERM: CTRL_BREAK to the console process group is
	// the nearest polite request. A process without a console ignores it;
	// the SIGKILL step follows.
	if g.exited() {
		return nil
	}
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(g.Pid()))
}

func (s sysGroup) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *s.job != 0 {
		windows.CloseHandle(*s.job)
		*s.job = 0
	}
}
