package safe

import (
	"context"
	"fmt"
	"os"
	"time"
)

// A FileLock is an exclusive lock held across a read-modify-write of one
// file, between processes and between goroutines of one process. It is
// taken on a lock file next to the file (path + ".lock"), since the file
// itself is replaced by every write.
type FileLock struct {
	f    *os.File
	path string
}

// Lock waits until it holds the lock of path and returns it: [LockContext]
// that waits as long as it takes.
func Lock(path string) (*FileLock, error) { return LockContext(context.Background(), path) }

// LockContext waits until it holds the lock of path, or ctx ends (an
// error wrapping ctx's, with nothing locked), and returns it. The lock
// file is created when missing (0600, never through a symbolic link) and
// removed again by Unlock where the system allows it. While another
// holds the lock, the hook of [WithLockWait] in ctx is told once.
func LockContext(ctx context.Context, path string) (*FileLock, error) {
	lp := path + ".lock"
	told := false
	for range 100 {
		f, err := openLockFile(lp)
		if err != nil {
			return nil, fmt.Errorf("locking %s: %v", path, unwrapPath(err))
		}
		if err := waitLock(ctx, f, path, &told); err != nil {
			f.Close()
			return nil, err
		}
		// The holder before may have removed the lock file after we
		// opened it: then this lock is on a file nobody else sees.
		held, err1 := f.Stat()
		now, err2 := os.Lstat(lp)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &FileLock{f: f, path: lp}, nil
		}
		unlockFile(f)
		f.Close()
	}
	return nil, fmt.Errorf("locking %s: the lock file %s keeps changing", path, lp)
}

// waitLock takes the lock of f, trying again after a pause that grows to
// lockPoll while another holds it, until ctx ends. (A blocking lock call
// could not be given up when ctx ends.)
func waitLock(ctx context.Context, f *os.File, path string, told *bool) error {
	pause := time.Millisecond
	var timer *time.Timer
	for {
		ok, err := tryLockFile(f)
		if err != nil {
			return fmt.Errorf("locking %s: %v", path, err)
		}
		if ok {
			return nil
		}
		if !*told {
			*told = true
			if hook, _ := ctx.Value(lockWaitKey{}).(func(string)); hook != nil {
				hook(path)
			}
		}
		if timer == nil {
			timer = time.NewTimer(pause)
			defer timer.Stop()
		} else {
			timer.Reset(pause)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the lock of %s: %w", path, ctx.Err())
		case <-timer.C:
		}
		pause = min(2*pause, lockPoll)
	}
}

// lockPoll is the longest pause between two tries of a lock held by
// another: the longest an unlock goes unseen.
const lockPoll = 50 * time.Millisecond

type lockWaitKey struct{}

// WithLockWait returns ctx with a hook that [LockContext] calls (once per
// lock, with the path of the file locked) when another process holds the
// lock it waits for, so that a command can say why it waits.
func WithLockWait(ctx context.Context, hook func(path string)) context.Context {
	return context.WithValue(ctx, lockWaitKey{}, hook)
}

// Unlock releases the lock. It may be called more than once.
func (l *FileLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	if removeLockFiles {
		os.Remove(l.path)
	}
	err := unlockFile(l.f)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
