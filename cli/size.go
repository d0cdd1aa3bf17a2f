package cli

import (
	"fmt"
	"strconv"
	"strings"
)

// byteSize is a flag of a number of bytes: an integer, or one with a
// binary unit (KiB, MiB, GiB; K, M, G are the same).
type byteSize int64

func (b *byteSize) String() string {
	if *b == 0 {
		return ""
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(v string) error {
	s := strings.TrimSpace(v)
	shift := 0
	for _, u := range []struct {
		suffix string
		shift  int
	}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"K", 10}, {"M", 20}, {"G", 30}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = strings.TrimSpace(t), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)>>shift {
		return fmt.Errorf("%q is not a number of bytes (say 1048576, or 64MiB)", v)
	}
	if n <<= shift; n < 1024 {
		return fmt.Errorf("%q is less than 1024 bytes", v)
	}
	*b = byteSize(n)
	return nil
}
