package safe

import (
	"io"
	"sync"
	"unicode/utf8"
)

// A TextWriter is [SanitizeText] for a stream written in pieces (a
// server's stderr relayed as it comes): a character or a "\r\n" split
// across two writes is read whole. It is safe for concurrent use.
type TextWriter struct {
	mu   sync.Mutex
	w    io.Writer
	held []byte
}

// NewTextWriter returns a TextWriter that writes to w.
func NewTextWriter(w io.Writer) *TextWriter { return &TextWriter{w: w} }

// Write sanitizes p (after what was held back) up to its last whole
// character, and holds the rest back.
func (tw *TextWriter) Write(p []byte) (int, error) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	data := append(tw.held, p...)
	cut := len(data)
	// An incomplete UTF-8 sequence at the end, and a "\r" that a "\n"
	// may follow, wait for the next write.
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				cut = i
			}
			break
		}
	}
	if cut > 0 && cut == len(data) && data[cut-1] == '\r' {
		cut--
	}
	tw.held = append([]byte(nil), data[cut:]...)
	if cut > 0 {
		if _, err := io.WriteString(tw.w, SanitizeText(string(data[:cut]))); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is held back.
func (tw *TextWriter) Flush() error {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if len(tw.held) == 0 {
		return nil
	}
	_, err := io.WriteString(tw.w, SanitizeText(string(tw.held)))
	tw.held = nil
	return err
}
