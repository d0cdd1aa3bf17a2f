package safe

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A Kind is what a file read by [ReadFile] holds; it sets the size limit
// and names the file in errors.
type Kind int

// The kinds of file mcpwire reads.
const (
	// KindConfig: a .mcp.json, settings.json or another file of settings
	// or answers (4 MiB).
	KindConfig Kind = iota
	// KindImport: another client's configuration read by import (4 MiB).
	KindImport
	// KindSnapshot: a tool-surface snapshot (64 MiB).
	KindSnapshot
	// KindCredential: a token file, client registration, step-up, key,
	// private key, ID token or assertion (1 MiB).
	KindCredential
	// KindCache: a cache of the home folder (16 MiB).
	KindCache
	// KindLock: a lock file that pins versions or digests (4 MiB).
	KindLock
	// KindProc: a status file of the process file system, /proc (1 MiB).
	KindProc
	// KindScript: a test script or fixture of the project's own harness
	// (16 MiB).
	KindScript
	// KindRecording: a session recorded by --record, read by replay,
	// verify and budget --from (64 MiB).
	KindRecording
)

// MiB is a mebibyte.
const MiB = 1 << 20

// The size limit of each kind.
const (
	LimitConfig     = 4 * MiB
	LimitImport     = 4 * MiB
	LimitSnapshot   = 64 * MiB
	LimitCredential = 1 * MiB
	LimitCache      = 16 * MiB
	LimitLock       = 4 * MiB
	LimitProc       = 1 * MiB
	LimitScript     = 16 * MiB
	LimitRecording  = 64 * MiB
)

var kinds = [...]struct {
	name  string
	limit int64
}{
	KindConfig:     {"configuration file", LimitConfig},
	KindImport:     {"import file", LimitImport},
	KindSnapshot:   {"snapshot file", LimitSnapshot},
	KindCredential: {"credential file", LimitCredential},
	KindCache:      {"cache file", LimitCache},
	KindLock:       {"lock file", LimitLock},
	KindProc:       {"process status file", LimitProc},
	KindScript:     {"script file", LimitScript},
	KindRecording:  {"recording file", LimitRecording},
}

// String names the kind, as errors do ("configuration file").
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kinds) {
		return "file"
	}
	return kinds[k].name
}

// Limit is the largest size, in bytes, of a file of kind k.
func (k Kind) Limit() int64 {
	if k < 0 || int(k) >= len(kinds) {
		return LimitConfig
	}
	return kinds[k].limit
}

// The rules [ReadFile] enforces; a *ReadError wraps one of them.
var (
	// ErrNotRegular: the file is a device, FIFO, socket or folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: the file is larger than the limit of its kind.
	ErrTooLarge = errors.New("larger than the limit")
	// ErrOutside: a symbolic link leads out of the folder it must stay in.
	ErrOutside = errors.New("a symbolic link out of its folder")
)

// A ReadError is a file that [ReadFile] refused: it names the file, its
// kind and the rule broken (Rule is ErrNotRegular, ErrTooLarge or
// ErrOutside; errors.Is finds it).
type ReadError struct {
	Path string
	Kind Kind
	Rule error
	// Detail says what the file is instead ("a device", "5 MiB", the
	// target of a link).
	Detail string
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Kind, e.Path, e.reason())
}

// Unwrap gives the reason without the file's name, for a caller that
// names the file itself; errors.Is(err, e.Rule) and errors.As of a
// *ReadError hold through it.
func (e *ReadError) Unwrap() error { return &reasonError{e} }

type reasonError struct{ e *ReadError }

func (r *reasonError) Error() string { return r.e.reason() }
func (r *reasonError) Unwrap() error { return r.e.Rule }

// As lets errors.As find the *ReadError behind its reason.
func (r *reasonError) As(target any) bool {
	if p, ok := target.(**ReadError); ok {
		*p = r.e
		return true
	}
	return false
}

func (e *ReadError) reason() string {
	switch e.Rule {
	case ErrNotRegular:
		return fmt.Sprintf("it is %s, not a regular file; mcpwire reads only regular files (replace it with a file)", e.Detail)
	case ErrTooLarge:
		return fmt.Sprintf("it is larger than %s, the limit for %s %s (%s)", size(e.Kind.Limit()), article(e.Kind.String()), e.Kind, e.Detail)
	case ErrOutside:
		return fmt.Sprintf("a symbolic link leads it to %s, outside its folder; mcpwire does not follow a link out of a project (copy the file instead of linking it)", e.Detail)
	}
	return e.Rule.Error()
}

// ReadFile reads the file at path, of kind kind, whole: a regular file
// only (a device, FIFO, socket or folder is refused without blocking or
// reading, checked on the opened descriptor; so is a file of the kernel,
// /proc or /sys, except for KindProc), at most kind.Limit() bytes.
// A refused file gives a *ReadError; a file that cannot be opened gives
// the *fs.PathError of the system (errors.Is(err, fs.ErrNotExist) holds
// for a missing file). Symbolic links are followed.
func ReadFile(path string, kind Kind) ([]byte, error) {
	data, _, err := ReadFileInfo(path, kind)
	return data, err
}

// ReadFileInfo is [ReadFile] that also returns what the opened file is
// (its mode and size when it was opened).
func ReadFileInfo(path string, kind Kind) ([]byte, fs.FileInfo, error) {
	// A first look by path, so that a device is never even opened (opening
	// some has effects); the check that counts is on the descriptor.
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, kind, fi.Mode())
	}
	f, err := openRead(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, &fs.PathError{Op: "stat", Path: path, Err: unwrapPath(err)}
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, kind, fi.Mode())
	}
	if kind != KindProc && kernelFile(f) {
		return nil, nil, &ReadError{Path: path, Kind: kind, Rule: ErrNotRegular, Detail: "a file of the kernel (/proc, /sys)"}
	}
	limit := kind.Limit()
	if fi.Size() > limit {
		return nil, nil, &ReadError{Path: path, Kind: kind, Rule: ErrTooLarge, Detail: fmt.Sprintf("%d bytes", fi.Size())}
	}
	data, err := readLimit(f, fi.Size(), limit)
	if errors.Is(err, ErrTooLarge) {
		return nil, nil, &ReadError{Path: path, Kind: kind, Rule: ErrTooLarge, Detail: "it grew while read"}
	}
	if err != nil {
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: unwrapPath(err)}
	}
	return data, fi, nil
}

// readLimit reads r to its end, at most limit bytes: one more is
// ErrTooLarge. hint is the expected size (the file's when opened).
func readLimit(r io.Reader, hint, limit int64) ([]byte, error) {
	if hint < 0 || hint > limit {
		hint = limit
	}
	buf := make([]byte, 0, hint+1) // +1: EOF is seen without growing
	for {
		if len(buf) == cap(buf) {
			n := min(int64(cap(buf))*2, limit+1)
			if int64(len(buf)) >= n {
				return nil, ErrTooLarge
			}
			grown := make([]byte, len(buf), max(n, 512))
			copy(grown, buf)
			buf = grown
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, ErrTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// article is "a" or "an", as English puts it before word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

func notRegular(path string, kind Kind, m fs.FileMode) error {
	return &ReadError{Path: path, Kind: kind, Rule: ErrNotRegular, Detail: modeName(m)}
}

// modeName says what a file that is not regular is.
func modeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// size writes a limit for people: "64 MiB", "512 KiB", "300 bytes".
func size(n int64) string {
	switch {
	case n >= MiB && n%MiB == 0:
		return fmt.Sprintf("%d MiB", n/MiB)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFileIn is [ReadFile] for a file of a folder that someone else may
// have written, such as a project's .mcp.json: when path, or a folder on
// the way to it, is a symbolic link whose target lies outside root, the
// file is refused (a *ReadError with ErrOutside) and nothing of it is
// read. A link that stays inside root is followed. Errors name path as
// given.
//
// The check is of the names as they are when read: it keeps a file a
// repository holds from borrowing one outside it, not a folder that
// another user changes while mcpwire reads it.
func ReadFileIn(root, path string, kind Kind) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if root, err = filepath.Abs(root); err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// Missing, or a dangling link: the open gives the error of path.
		return ReadFile(path, kind)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	if !within(realRoot, real) {
		return nil, &ReadError{Path: path, Kind: kind, Rule: ErrOutside, Detail: real}
	}
	data, err := ReadFile(real, kind)
	var re *ReadError
	var pe *fs.PathError
	switch {
	case errors.As(err, &re):
		re.Path = path
	case errors.As(err, &pe):
		pe.Path = path
	}
	return data, err
}

// within reports whether path is root or lies inside it (both clean and
// absolute, symbolic links resolved).
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
