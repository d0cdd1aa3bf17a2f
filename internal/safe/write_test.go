package safe

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestWritePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "home")
	p := filepath.Join(dir, "tokens.json")
	if err := WritePrivate(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("loose"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WritePrivate(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("folder mode %v, want 0700", fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestWriteNeverFollowsSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on windows")
	}
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(victim, link)
	if err := NotSymlink(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("NotSymlink = %v", err)
	}
	if err := NotSymlink(victim); err != nil {
		t.Errorf("NotSymlink(file) = %v", err)
	}
	if err := NotSymlink(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("NotSymlink(missing) = %v", err)
	}
	if err := WriteNew(link, []byte("x"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteNew over a link = %v", err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "created-through-link"), dangling)
	if err := WriteNew(dangling, []byte("x"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("WriteNew over a dangling link = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "created-through-link")); err == nil {
		t.Error("WriteNew wrote through a dangling link")
	}
	if err := WritePrivate(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink != 0 {
		t.Error("the link is still there")
	}
	if fi, _ := os.Stat(victim); fi.Mode().Perm() != 0o644 {
		t.Errorf("the target's mode changed: %v", fi.Mode().Perm())
	}
}

func TestWriteNew(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	if err := WriteNew(p, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(p, []byte("second"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second WriteNew = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Errorf("content %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

// TestLock: goroutines, each with a lock file of its own opening, add one
// to a counter file in a read-modify-write; none is lost.
func TestLock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "counter")
	os.WriteFile(p, []byte(""), 0o600)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			l, err := Lock(p)
			if err != nil {
				errs <- err
				return
			}
			defer l.Unlock()
			b, _ := os.ReadFile(p)
			runtime.Gosched()
			if err := WritePrivate(p, append(b, 'x')); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); len(b) != n {
		t.Errorf("%d of %d increments kept", len(b), n)
	}
	if runtime.GOOS != "windows" {
		if _, err := os.Lstat(p + ".lock"); err == nil {
			t.Error("the lock file was left behind")
		}
	}
}

func TestLockRefusesSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on windows")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, ".mcp.json")
	os.Symlink(filepath.Join(dir, "elsewhere"), p+".lock")
	if _, err := Lock(p); err == nil {
		t.Fatal("locked through a symbolic link")
	}
	if _, err := os.Stat(filepath.Join(dir, "elsewhere")); err == nil {
		t.Error("a file was created through the link")
	}
}

// TestLockContext: a wait for a lock another holds ends when ctx ends,
// with ctx's error and nothing locked; the hook of WithLockWait is told
// once; the lock is taken as soon as it is free.
func TestLockContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".mcp.json")
	held, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	told := 0
	ctx = WithLockWait(ctx, func(path string) {
		told++
		if path != p {
			t.Errorf("hook told %s, want %s", path, p)
		}
		cancel()
	})
	l, err := LockContext(ctx, p)
	if !errors.Is(err, context.Canceled) || l != nil {
		t.Fatalf("LockContext = %v, %v; want context.Canceled", l, err)
	}
	if told != 1 {
		t.Errorf("hook told %d times, want 1", told)
	}
	// Freed while another waits: the waiter gets it.
	got := make(chan error, 1)
	waiting := make(chan struct{})
	go func() {
		l, err := LockContext(WithLockWait(context.Background(), func(string) { close(waiting) }), p)
		if err == nil {
			err = l.Unlock()
		}
		got <- err
	}()
	<-waiting
	held.Unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}
