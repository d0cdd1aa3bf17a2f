package server

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// cursorPrefix starts the decoded form of every cursor.
const cursorPrefix = "offset:"

// EncodeCursor is the cursor of the page that starts at offset.
func EncodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(offset)))
}

// DecodeCursor returns the offset in cursor, which must be one
// EncodeCursor gave for a list of total items.
func DecodeCursor(cursor string, total int) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return 0, false
	}
	n, err := strconv.Atoi(string(b[len(cursorPrefix):]))
	if err != nil || n <= 0 || n >= total || EncodeCursor(n) != cursor {
		return 0, false
	}
	return n, true
}

// Page picks the page of a list of total items that params' cursor asks
// for: items [start, end), and the cursor of the next page ("" at the
// end); size 0 is one page.
func Page(params json.RawMessage, total, size int) (start, end int, next string, err error) {
	var in struct {
		Cursor *string `json:"cursor"`
	}
	if err := Decode(params, &in); err != nil {
		return 0, 0, "", err
	}
	if in.Cursor != nil {
		var ok bool
		if start, ok = DecodeCursor(*in.Cursor, total); !ok {
			return 0, 0, "", InvalidParams("invalid cursor")
		}
	}
	end = total
	if size > 0 && start+size < total {
		end = start + size
		next = EncodeCursor(end)
	}
	return start, end, next, nil
}

// ListResult is a page of a list under key.
func ListResult(key string, items any, next string) map[string]any {
	m := map[string]any{key: items}
	if next != "" {
		m["nextCursor"] = next
	}
	return m
}
