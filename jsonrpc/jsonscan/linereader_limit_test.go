package jsonscan

import (
	"errors"
	"strings"
	"testing"
)

// endless is an io.Reader of 'x' without end: a line that never ends.
type endless struct{ read int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.read += len(p)
	return len(p), nil
}

func TestLineReaderMax(t *testing.T) {
	for _, size := range []int{16, 1000, 64 << 10, 3 << 20} {
		line := strings.Repeat("a", size)
		lr := newLineReaderSize(strings.NewReader(line+"\n"+line+"b\nnext\n"), 4096)
		lr.SetMax(size)
		got, err := lr.ReadLine()
		if err != nil || len(got) != size {
			t.Fatalf("max %d: a line of the limit: %d bytes, %v", size, len(got), err)
		}
		_, err = lr.ReadLine()
		var tl *TooLongError
		if !errors.As(err, &tl) || tl.Max != size {
			t.Fatalf("max %d: a line one byte longer: %v, want a *TooLongError", size, err)
		}
		if _, err2 := lr.ReadLine(); err2 != err {
			t.Fatalf("max %d: after a line too long, ReadLine gave %v, want the same error", size, err2)
		}
	}
}

// TestLineReaderMaxEndlessLine reads a line that never ends: ReadLine stops
// once it passed the limit, having read about the limit, not more.
func TestLineReaderMaxEndlessLine(t *testing.T) {
	const max = 8 << 20
	src := &endless{}
	lr := NewLineReader(src)
	lr.SetMax(max)
	_, err := lr.ReadLine()
	if !errors.As(err, new(*TooLongError)) {
		t.Fatalf("ReadLine: %v, want a *TooLongError", err)
	}
	if src.read > max+max/4+(1<<20) {
		t.Errorf("read %d bytes of an endless line before giving up at %d", src.read, max)
	}
	if !strings.Contains(err.Error(), "8388608") {
		t.Errorf("the error %q does not name the limit", err)
	}
}
