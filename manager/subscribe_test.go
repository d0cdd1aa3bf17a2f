package manager

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// TestSubscribeSurvivesRestart: a subscription made through the Manager
// reaches OnResourceUpdated, in both eras, and is made again on the new
// session after Restart; Unsubscribe forgets it.
func TestSubscribeSurvivesRestart(t *testing.T) {
	proctest.Check(t)
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			type update struct{ server, uri string }
			updates := make(chan update, 16)
			m, _ := newManager(t, Options{OnResourceUpdated: func(server, uri string) {
				updates <- update{server, uri}
			}}, demoServer{name: "r", args: []string{"--era", era}})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			next := func(what string) update {
				t.Helper()
				select {
				case u := <-updates:
					return u
				case <-ctx.Done():
					t.Fatalf("%s: no resources/updated before the test's deadline", what)
					return update{}
				}
			}
			const uri = "demo://item/1"
			if err := m.Subscribe(ctx, "r", uri); err != nil {
				t.Fatal(err)
			}
			if u := next("after Subscribe"); u != (update{"r", uri}) {
				t.Fatalf("update %+v, want r %s", u, uri)
			}
			if got := m.Subscriptions("r"); !slices.Equal(got, []string{uri}) {
				t.Fatalf("Subscriptions: %v", got)
			}
			pid := state(t, m, "r").Pid
			if err := m.Restart(ctx, "r"); err != nil {
				t.Fatal(err)
			}
			if st := state(t, m, "r"); st.Pid == pid {
				t.Fatalf("Restart kept the process %d", pid)
			}
			// The demo server tells the state of a resource when a
			// subscription starts: the new session subscribed again.
			if u := next("after Restart"); u != (update{"r", uri}) {
				t.Fatalf("update %+v, want r %s", u, uri)
			}
			if err := m.Unsubscribe(ctx, "r", uri); err != nil {
				t.Fatal(err)
			}
			if got := m.Subscriptions("r"); len(got) != 0 {
				t.Fatalf("Subscriptions after Unsubscribe: %v", got)
			}
			if err := m.Subscribe(ctx, "r", "demo://nosuch"); err == nil {
				t.Fatal("Subscribe to an unknown resource succeeded")
			}
			if got := m.Subscriptions("r"); len(got) != 0 {
				t.Fatalf("a refused subscription was kept: %v", got)
			}
			if err := m.Subscribe(ctx, "nosuch", uri); err == nil {
				t.Fatal("Subscribe on an unknown server succeeded")
			}
		})
	}
}
