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
