package jsonscan

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
)

// refLines splits in by hand, as ReadLine should: the terminated lines,
// then the last unterminated one (maybe empty), which comes with io.EOF.
func refLines(in []byte) (lines [][]byte, last []byte) {
	for {
		i := bytes.IndexByte(in, '\n')
		if i < 0 {
			return lines, bytes.TrimLeft(in, " \t\r")
		}
		line := in[:i]
		if len(line) > 0 && line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
		lines = append(lines, bytes.TrimLeft(line, " \t\r"))
		in = in[i+1:]
	}
}

// readAll reads lines up to the first error.
func readAll(lr *LineReader) (lines [][]byte, last []byte, err error) {
	for {
		line, err := lr.ReadLine()
		if err != nil {
			return lines, line, err
		}
		lines = append(lines, line)
	}
}

// checkLines reads in through lr and compares with refLines.
func checkLines(t *testing.T, in []byte, lr *LineReader) {
	t.Helper()
	want, wantLast := refLines(in)
	got, last, err := readAll(lr)
	if err != io.EOF {
		t.Fatalf("error %v, want io.EOF", err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("line %d = %.40q (%d bytes), want %.40q (%d bytes)", i, got[i], len(got[i]), want[i], len(want[i]))
		}
	}
	if !bytes.Equal(last, wantLast) {
		t.Fatalf("last line = %.40q, want %.40q", last, wantLast)
	}
	if line, err := lr.ReadLine(); len(line) != 0 || err != io.EOF {
		t.Fatalf("after the end: %q, %v; want nothing, io.EOF", line, err)
	}
}

func TestLineReaderFraming(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct {
		name, in string
	}{
		{"empty", ""},
		{"one", "{}\n"},
		{"two", "{\"a\":1}\n{\"b\":2}\n"},
		{"crlf", "a\r\nb\r\n"},
		{"lone cr kept", "a\rb\n"},
		{"two cr", "a\r\r\n"},
		{"blank lines", "\n\n\r\na\n\n"},
		{"leading white space", " \t\r a \n\t\tb\n"},
		{"trailing space kept", "a \n"},
		{"no final newline", "a\nb"},
		{"no final newline, cr kept", "a\nb\r"},
		{"only white space at the end", "a\n \t"},
		{"only newline", "\n"},
		{"only cr", "\r"},
		{"buffer size -1", x(lineBufSize-1) + "\nz\n"},
		{"buffer size", x(lineBufSize) + "\nz\n"},
		{"buffer size +1", x(lineBufSize+1) + "\nz\n"},
		{"buffer size with crlf", x(lineBufSize-1) + "\r\n" + x(lineBufSize) + "\r\n"},
		{"after a short line", "a\n" + x(3*lineBufSize) + "\nb\n"},
		{"long unterminated", "a\n" + x(3*lineBufSize+7)},
		{"long leading space", strings.Repeat(" ", 2*lineBufSize+3) + "a\n" + strings.Repeat(" ", 2*lineBufSize) + "\r\nb"},
		{"long cr at a chunk end", x(2*lineBufSize-1) + "\r\n"},
		{"many", strings.Repeat("{\"jsonrpc\":\"2.0\",\"method\":\"m\"}\n", 5000)},
	}
	readers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"whole", func(r io.Reader) io.Reader { return r }},
		{"one byte", iotest.OneByteReader},
		{"half", iotest.HalfReader},
		{"data with error", iotest.DataErrReader},
	}
	for _, c := range cases {
		for _, rd := range readers {
			for _, size := range []int{lineBufSize, 16, 1} {
				if rd.name == "one byte" && size != lineBufSize && len(c.in) > 1<<16 {
					continue // slow and adds nothing
				}
				t.Run(fmt.Sprintf("%s/%s/%d", c.name, rd.name, size), func(t *testing.T) {
					in := []byte(c.in)
					checkLines(t, in, newLineReaderSize(rd.wrap(bytes.NewReader(in)), size))
				})
			}
		}
	}
}

// TestLineReaderPipe64MiB reads a 64 MiB line between short ones through
// a real pipe.
func TestLineReaderPipe64MiB(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	big := bytes.Repeat([]byte("0123456789abcdef"), 4<<20)
	big[len(big)-1] = 'Z'
	wrote := make(chan error, 1)
	go func() {
		defer pw.Close()
		_, err := pw.Write([]byte("first\n"))
		if err == nil {
			_, err = pw.Write(big)
		}
		if err == nil {
			_, err = pw.Write([]byte("\r\nlast\n"))
		}
		wrote <- err
	}()
	lr := NewLineReader(pr)
	for i, want := range [][]byte{[]byte("first"), big, []byte("last")} {
		got, err := lr.ReadLine()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("line %d: %d bytes, %v; want %d bytes", i, len(got), err, len(want))
		}
		if len(got) > lineBufSize && cap(got) != len(got) {
			t.Errorf("line %d: capacity %d for %d bytes", i, cap(got), len(got))
		}
	}
	if line, err := lr.ReadLine(); len(line) != 0 || err != io.EOF {
		t.Fatalf("at the end: %q, %v", line, err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
}

// TestLineReaderKeepsLines checks that lines returned are never written
// to by later reads, short or long.
func TestLineReaderKeepsLines(t *testing.T) {
	var in bytes.Buffer
	for i := range 300 {
		n := 10
		if i%7 == 0 {
			n = 3*lineBufSize + i
		}
		fmt.Fprintf(&in, "%d:%s\n", i, strings.Repeat(string(rune('a'+i%26)), n))
	}
	data := in.Bytes()
	for _, size := range []int{lineBufSize, 64} {
		lr := newLineReaderSize(iotest.HalfReader(bytes.NewReader(data)), size)
		var kept, copies [][]byte
		for {
			line, err := lr.ReadLine()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			kept = append(kept, line)
			copies = append(copies, bytes.Clone(line))
		}
		want, _ := refLines(data)
		if len(kept) != len(want) {
			t.Fatalf("%d lines, want %d", len(kept), len(want))
		}
		for i := range kept {
			if !bytes.Equal(kept[i], copies[i]) || !bytes.Equal(kept[i], want[i]) {
				t.Fatalf("size %d: line %d was changed after it was returned", size, i)
			}
		}
	}
}

// failAfter serves data, then fails with err (no io.EOF).
type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestLineReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	t.Run("ErrReader", func(t *testing.T) {
		lr := NewLineReader(iotest.ErrReader(boom))
		if line, err := lr.ReadLine(); line != nil || err != boom {
			t.Fatalf("got %q, %v; want nil, boom", line, err)
		}
	})
	for _, size := range []int{lineBufSize, 8} {
		for _, tail := range []string{"partial", strings.Repeat("y", 3*lineBufSize)} {
			t.Run(fmt.Sprintf("unexpected EOF/%d/%d", size, len(tail)), func(t *testing.T) {
				in := "a\r\nbb\n" + tail
				lr := newLineReaderSize(&failAfter{data: []byte(in), err: io.ErrUnexpectedEOF}, size)
				lines, last, err := readAll(lr)
				if err != io.ErrUnexpectedEOF || last != nil {
					t.Fatalf("ended with %.20q, %v; want nil, io.ErrUnexpectedEOF", last, err)
				}
				if len(lines) != 2 || string(lines[0]) != "a" || string(lines[1]) != "bb" {
					t.Fatalf("lines %q", lines)
				}
				// The error is the reader's: asked again, ReadLine asks it again.
				if _, err := lr.ReadLine(); err != io.ErrUnexpectedEOF {
					t.Fatalf("again: %v", err)
				}
			})
		}
	}
	// After a timeout, the line it cut goes on where it was.
	for _, size := range []int{lineBufSize, 8, 1} {
		t.Run(fmt.Sprintf("timeout/%d", size), func(t *testing.T) {
			in := []byte("ab\n" + strings.Repeat("z", 100) + "\nend\n")
			// The second read times out, in the middle of the first line.
			lr := newLineReaderSize(iotest.TimeoutReader(iotest.OneByteReader(bytes.NewReader(in))), size)
			if line, err := lr.ReadLine(); line != nil || err != iotest.ErrTimeout {
				t.Fatalf("got %q, %v; want nil, timeout", line, err)
			}
			checkLines(t, in, lr)
		})
	}
	t.Run("no progress", func(t *testing.T) {
		lr := NewLineReader(iotest.ErrReader(nil))
		if line, err := lr.ReadLine(); line != nil || err != io.ErrNoProgress {
			t.Fatalf("got %q, %v; want nil, io.ErrNoProgress", line, err)
		}
	})
}

// chopReader serves data in pieces whose sizes come from a seed.
type chopReader struct {
	data []byte
	seed uint64
}

func (c *chopReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	c.seed = c.seed*6364136223846793005 + 1442695040888963407
	n := int(c.seed>>33)%17 - 1 // sometimes nothing
	if n < 0 {
		n = 0
	}
	if c.seed&(1<<20) != 0 {
		n = len(p) // sometimes all that fits
	}
	n = copy(p, c.data[:min(n, len(c.data))])
	c.data = c.data[n:]
	return n, nil
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("{}\n"), uint64(1), uint8(16))
	f.Add([]byte("a\r\n\n  b\r\r\n\tc"), uint64(7), uint8(1))
	f.Add([]byte(" \r\n\r"), uint64(3), uint8(2))
	f.Add([]byte(strings.Repeat("x", 100)+"\r\n"+strings.Repeat(" ", 40)+"y\n"), uint64(42), uint8(8))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64, size uint8) {
		bufSize := int(size)%64 + 1
		checkLines(t, in, newLineReaderSize(&chopReader{data: in, seed: seed}, bufSize))
	})
}

// cycleReader serves data over and over, as a pipe that never ends.
type cycleReader struct {
	data []byte
	off  int
}

func (c *cycleReader) Read(p []byte) (int, error) {
	n := copy(p, c.data[c.off:])
	c.off += n
	if c.off == len(c.data) {
		c.off = 0
	}
	return n, nil
}

// benchLine8MiB is an 8 MiB result line, a bit over 8 MiB like the real one.
func benchLine8MiB() []byte {
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`)
	line = append(line, bytes.Repeat([]byte("x"), 8<<20)...)
	return append(line, "\"}]}}\n"...)
}

// benchLinesSmall is 1,000 lines of 200 bytes.
func benchLinesSmall() []byte {
	line := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 200-75) + "\"}]}}\n"
	return []byte(strings.Repeat(line, 1000))
}

func benchLineReader(b *testing.B, data []byte) {
	lr := NewLineReader(&cycleReader{data: data})
	b.SetBytes(int64(bytes.IndexByte(data, '\n') + 1))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lr.ReadLine(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFloorLineReader reads the same lines with bufio.Reader.ReadSlice,
// keeping none: the bytes go from the source into one cache-warm buffer.
func benchFloorLineReader(b *testing.B, data []byte) {
	br := bufio.NewReaderSize(&cycleReader{data: data}, lineBufSize)
	b.SetBytes(int64(bytes.IndexByte(data, '\n') + 1))
	b.ReportAllocs()
	for b.Loop() {
		for {
			_, err := br.ReadSlice('\n')
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkLineReader8MiB(b *testing.B)      { benchLineReader(b, benchLine8MiB()) }
func BenchmarkFloorLineReader8MiB(b *testing.B) { benchFloorLineReader(b, benchLine8MiB()) }
func BenchmarkLineReaderSmall(b *testing.B)     { benchLineReader(b, benchLinesSmall()) }
func BenchmarkFloorLineReaderSmall(b *testing.B) {
	benchFloorLineReader(b, benchLinesSmall())
}

// TestLineReaderSizedFromLastLong reads long lines whose sizes follow each
// other closely or not at all: the slice sized from the last long line
// must give the same lines as chunks do.
func TestLineReaderSizedFromLastLong(t *testing.T) {
	var in bytes.Buffer
	var want []string
	for i, n := range []int{200 << 10, 200 << 10, 10, 300 << 10, 100 << 10, 318 << 10, 330 << 10, 70 << 10} {
		line := strings.Repeat(string(rune('a'+i)), n)
		want = append(want, line)
		in.WriteString(line + "\n")
	}
	lr := NewLineReader(iotest.HalfReader(&in))
	var kept [][]byte
	for i, w := range want {
		got, err := lr.ReadLine()
		if err != nil || string(got) != w {
			t.Fatalf("line %d: %d bytes, %v; want %d bytes", i, len(got), err, len(w))
		}
		kept = append(kept, got)
	}
	if _, err := lr.ReadLine(); err != io.EOF {
		t.Fatalf("after the lines: %v", err)
	}
	for i, got := range kept {
		if string(got) != want[i] {
			t.Fatalf("line %d changed after later reads", i)
		}
	}
}
