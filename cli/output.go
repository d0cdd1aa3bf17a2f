package cli

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// A liveWriter is stderr on a terminal, with one transient line at its
// bottom: the spinner and the progress of a call. Everything else written
// to stderr clears that line first and draws it again after a complete
// line, so a message never runs into the spinner or the progress, and
// the transient line never erases a message. Safe for concurrent use.
type liveWriter struct {
	_ [0]func() // not comparable: no equality function in the binary

	mu      sync.Mutex
	w       io.Writer
	width   int    // columns; the live line is cut to fit
	live    string // the transient line; "" for none
	shown   bool   // the live line is on the screen (the cursor at its end)
	midLine bool   // the last write left the cursor inside a line (a prompt)
}

func newLiveWriter(w io.Writer, width int) *liveWriter {
	if width <= 0 {
		width = 80
	}
	return &liveWriter{w: w, width: width}
}

func (l *liveWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hide()
	n, err := l.w.Write(p)
	l.midLine = p[len(p)-1] != '\n'
	l.draw()
	return n, err
}

// set replaces the transient line ("" removes it).
func (l *liveWriter) set(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if text == l.live && l.shown {
		return
	}
	l.hide()
	l.live = text
	l.draw()
}

func (l *liveWriter) hide() {
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// draw shows the live line, unless the cursor is inside a line that is
// not ours (a prompt waiting for an answer).
func (l *liveWriter) draw() {
	if l.live == "" || l.midLine {
		return
	}
	io.WriteString(l.w, truncateDisplay(l.live, l.width-1))
	l.shown = true
}

// displayWidth is how many columns s takes on a terminal: runes, not
// counting ANSI escape sequences.
func displayWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			i += escapeLen(s[i:])
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// escapeLen is the length of the ANSI escape sequence at the start of s
// (CSI: ESC [ … final byte).
func escapeLen(s string) int {
	if len(s) < 2 || s[1] != '[' {
		return 1
	}
	for i := 2; i < len(s); i++ {
		if s[i] >= 0x40 && s[i] <= 0x7e {
			return i + 1
		}
	}
	return len(s)
}

// truncateDisplay cuts s to at most n columns, ending in "…" when cut;
// escape sequences are kept, and a reset added when any was cut short.
func truncateDisplay(s string, n int) string {
	if n <= 0 || displayWidth(s) <= n {
		return s
	}
	var b strings.Builder
	cols, escaped := 0, false
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			l := escapeLen(s[i:])
			b.WriteString(s[i : i+l])
			i += l
			escaped = true
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if cols == n-1 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		cols++
		i += size
	}
	if escaped {
		b.WriteString("\x1b[0m")
	}
	return b.String()
}

// fitColumns shrinks column widths so that a table of these widths, two
// spaces between columns, fits in width: the widest columns give first,
// none below its header or 8 columns. It returns the widths to cut to.
func fitColumns(widths, floors []int, width int) []int {
	out := append([]int(nil), widths...)
	total := func() int {
		t := 2 * (len(out) - 1)
		for _, w := range out {
			t += w
		}
		return t
	}
	for total() > width {
		widest := -1
		for i, w := range out {
			if w > floors[i] && (widest < 0 || w > out[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			break // cannot shrink more: the terminal wraps
		}
		out[widest]--
	}
	return out
}
