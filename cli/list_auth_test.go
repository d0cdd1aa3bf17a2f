package cli

import (
	"encoding/json"
	"testing"

	"github.com/mcpwire/mcpwire/internal/fakeauth"
)

// TestListTellsLoginNeeded: a server that answers 401 is "needs login" in
// list, its AUTH is "needed" (not "not needed"), its error is in the auth
// phase; after a login it is connected.
func TestListTellsLoginNeeded(t *testing.T) {
	f := fakeauth.New(t)
	r := newRunner(t)
	r.run(0, "add", "srv", "--url", f.URL+"/mcp")
	entry := func() listEntry {
		t.Helper()
		stdout, _ := r.run(0, "list", "--json")
		var doc struct{ Servers []listEntry }
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Servers) != 1 {
			t.Fatalf("list --json: %v\n%s", err, stdout)
		}
		return doc.Servers[0]
	}
	e := entry()
	if e.State != "needs login" || e.Auth != "needed" || e.Error == nil || e.Error.Phase != "auth" {
		t.Fatalf("before login: %+v (error %+v)", e, e.Error)
	}
	r.run(0, "login", "srv")
	if e := entry(); e.State != "connected" || e.Auth != "authenticated" {
		t.Fatalf("after login: %+v", e)
	}
	f.RevokeAll() // the server forgets the grant: the token is rejected
	if e := entry(); e.State != "needs login" || e.Auth != "rejected" {
		t.Fatalf("after the server forgot the token: %+v", e)
	}
}
