package cli

import (
	"bufio"
	"io"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// The --json document is encoded once, compact; its secrets are masked
// and its format characters escaped in that one copy, which is then
// written out indented as it goes: a tool result of megabytes costs one
// copy of itself, not the five of an indented encoding into buffers.

// A docWriter takes the compact encoding of one document (json.Encoder
// writes it at once) and writes it to w indented, as json.Indent with two
// spaces would.
type docWriter struct {
	_ [0]func() // not comparable: no equality function in the binary

	inv   *invocation
	w     io.Writer
	wrote bool // Write was called: the document was encoded
}

func (d *docWriter) Write(doc []byte) (int, error) {
	d.wrote = true
	n := len(doc)
	if err := writeIndented(d.w, safe.EscapeJSON(d.inv.redactJSON(doc)), "  "); err != nil {
		return 0, err
	}
	return n, nil
}

// writeIndented writes the compact JSON text src (as encoding/json writes
// it: no white space outside strings but at its end) to w, indented as
// json.Indent(dst, src, "", indent) would. Strings are written as they
// stand, a long one with no copy.
func writeIndented(w io.Writer, src []byte, indent string) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	depth := 0
	open := false // a '{' or '[' was written and its first member not yet
	newline := func(d int) {
		bw.WriteByte('\n')
		for range d {
			bw.WriteString(indent)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if open && c != '}' && c != ']' {
			open = false
			depth++
			newline(depth)
		}
		switch c {
		case '"':
			end := stringEnd(src, i)
			bw.Write(src[i:end])
			i = end - 1
		case '{', '[':
			open = true
			bw.WriteByte(c)
		case '}', ']':
			if open {
				open = false // an empty object or array: {} and []
			} else {
				depth--
				newline(depth)
			}
			bw.WriteByte(c)
		case ',':
			bw.WriteByte(c)
			newline(depth)
		case ':':
			bw.WriteString(": ")
		case ' ', '\t', '\r', '\n':
			if depth == 0 {
				bw.WriteByte(c) // after the value: kept, as json.Indent keeps it
			}
		default:
			bw.WriteByte(c)
		}
	}
	return bw.Flush()
}

// stringEnd returns the index just past the JSON string that starts at
// src[i] (len(src) when it is not closed).
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}
