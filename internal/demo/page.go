package demo

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// cursorPrefix starts the decoded form of every cursor.
const cursorPrefix = "offset:"

func encodeCursor(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorPrefix + strconv.Itoa(offset)))
}

// decodeCursor returns the offset in cursor, which must be one the demo
// gave out for a list of total items.
func decodeCursor(cursor string, total int) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || !strings.HasPrefix(string(b), cursorPrefix) {
		return 0, false
	}
	n, err := strconv.Atoi(string(b[len(cursorPrefix):]))
	if err != nil || n <= 0 || n >= total || encodeCursor(n) != cursor {
		return 0, false
	}
	return n, true
}

// page picks the page of a list of total items that params' cursor asks
// for: items [start, end), and the cursor of the next page ("" at the end).
func page(params json.RawMessage, total, size int) (start, end int, next string, err error) {
	var in struct {
		Cursor *string `json:"cursor"`
	}
	if err := decode(params, &in); err != nil {
		return 0, 0, "", err
	}
	if in.Cursor != nil {
		var ok bool
		if start, ok = decodeCursor(*in.Cursor, total); !ok {
			return 0, 0, "", invalidParams("invalid cursor")
		}
	}
	end = total
	if size > 0 && start+size < total {
		end = start + size
		next = encodeCursor(end)
	}
	return start, end, next, nil
}

// listResult is a page of a list under key.
func listResult(key string, items any, next string) map[string]any {
	m := map[string]any{key: items}
	if next != "" {
		m["nextCursor"] = next
	}
	return m
}
