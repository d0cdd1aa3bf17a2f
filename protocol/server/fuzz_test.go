package server

import "testing"

func FuzzCursor(f *testing.F) {
	for _, s := range []string{"", "!!", EncodeCursor(1), EncodeCursor(99), "b2Zmc2V0Oi0x", "b2Zmc2V0OjE"} {
		f.Add(s, 100)
	}
	f.Fuzz(func(t *testing.T, cursor string, total int) {
		n, ok := DecodeCursor(cursor, total)
		if ok && (n <= 0 || n >= total) {
			t.Fatalf("offset %d accepted for %d items", n, total)
		}
		if ok && EncodeCursor(n) != cursor {
			t.Fatalf("cursor %q is not canonical", cursor)
		}
	})
}

// FuzzOpenState: only what SealState sealed opens, and to what it sealed.
func FuzzOpenState(f *testing.F) {
	s := New(Options{})
	for _, seed := range []string{"", ".", "a.b", s.SealState("round1"), s.SealState("") + "x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sealed string) {
		state, ok := s.OpenState(sealed)
		if ok && s.SealState(state) != sealed {
			t.Fatalf("%q opened to %q, which seals differently", sealed, state)
		}
		if got, ok := s.OpenState(s.SealState(sealed)); !ok || got != sealed {
			t.Fatalf("sealing %q does not round-trip", sealed)
		}
	})
}
