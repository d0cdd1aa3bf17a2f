package registry

import (
	"encoding/json"
	"testing"
)

// FuzzParseEntry feeds the server.json parser and the planner arbitrary
// registry answers: no panic, and a plan's entry marshals to an object.
func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(entryDoc(npmDoc, "active")))
	f.Add([]byte(`{"server":{"name":"a/b","version":"1","remotes":[{"type":"streamable-http","url":"{x}{y}"}]}}`))
	f.Add([]byte(`{"server":{"name":"a/b","version":"1","packages":[{"registryType":"oci","identifier":"i@sha256:00"}]},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"deleted"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry(data)
		if err != nil {
			return
		}
		for _, c := range []Choice{{}, {Remote: true}, {Package: "npm"}, {Package: "oci"}, {Package: "pypi"}} {
			p, err := MakePlan(e, "u", Options{Choice: c, LookPath: haveAll, Values: Values{Vars: map[string][]string{"x": {"1"}}}})
			if err != nil {
				continue
			}
			if _, err := json.Marshal(p.Entry); err != nil {
				t.Fatalf("entry does not marshal: %v", err)
			}
		}
	})
}

// FuzzParseLock: no panic on any lock file; a parsed lock encodes and
// parses back to the same bytes.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte(`{"lockfileVersion":1,"servers":{"a":{"registry":"u","name":"n/a","version":"1","via":"npm","artifact":"x","digest":"d","document":"d"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParseLock("f", data)
		if err != nil {
			return
		}
		again, err := ParseLock("f", l.Encode())
		if err != nil || string(again.Encode()) != string(l.Encode()) {
			t.Fatalf("not stable: %v", err)
		}
	})
}
