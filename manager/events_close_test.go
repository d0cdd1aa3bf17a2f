package manager

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestCloseWaitsForTheRunningCallback: a close from another goroutine
// returns only once the callback that was running has returned, so no
// callback outlives Close; a callback that closes returns at once.
func TestCloseWaitsForTheRunningCallback(t *testing.T) {
	d := newDispatcher()
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	d.post("s", "", func() {
		close(started)
		<-release
		finished.Store(true)
	})
	<-started
	closed := make(chan struct{})
	go func() { d.close(); close(closed) }()
	deadline := time.Now().Add(10 * time.Second)
	for !d.isClosed() {
		if time.Now().After(deadline) {
			t.Fatal("close did not mark the dispatcher closed")
		}
		runtime.Gosched()
	}
	close(release)
	<-closed
	if !finished.Load() {
		t.Fatal("close returned while a callback was still running")
	}
}

// TestCloseFromACallback: a callback that closes its own dispatcher is
// not waited for (it would wait for itself) and is the last to run.
func TestCloseFromACallback(t *testing.T) {
	d := newDispatcher()
	ran := make(chan struct{})
	var after atomic.Int32
	d.post("s", "", func() { d.close(); close(ran) })
	d.post("s", "", func() { after.Add(1) })
	<-ran
	<-d.done
	if n := after.Load(); n != 0 {
		t.Fatalf("%d callbacks ran after the one that closed", n)
	}
}

func (d *dispatcher) isClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closed
}
