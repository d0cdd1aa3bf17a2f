package safe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".mcp.json")
	if err := os.WriteFile(p, []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := ReadFile(p, KindConfig)
	if err != nil || string(data) != `{"mcpServers":{}}` {
		t.Fatalf("ReadFile = %q, %v", data, err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	if data, err := ReadFile(empty, KindConfig); err != nil || len(data) != 0 {
		t.Errorf("empty file: %q, %v", data, err)
	}
	_, err = ReadFile(filepath.Join(dir, "missing"), KindConfig)
	if !errors.Is(err, fs.ErrNotExist) || !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	at := filepath.Join(dir, "at")
	over := filepath.Join(dir, "over")
	for p, n := range map[string]int64{at: LimitConfig, over: LimitConfig + 1} {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Truncate(n) // sparse: no disk used
		f.Close()
	}
	if data, err := ReadFile(at, KindConfig); err != nil || len(data) != LimitConfig {
		t.Errorf("a file at the limit: %d bytes, %v", len(data), err)
	}
	_, err := ReadFile(over, KindConfig)
	var re *ReadError
	if !errors.As(err, &re) || !errors.Is(err, ErrTooLarge) || re.Path != over {
		t.Fatalf("a file over the limit: %v, want a *ReadError ErrTooLarge", err)
	}
	for _, want := range []string{over, "4 MiB", "configuration file"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, err := ReadFile(over, KindSnapshot); err != nil {
		t.Errorf("a snapshot of 4 MiB + 1: %v", err)
	}
}

// TestReadFileNotRegular: devices, FIFOs, sockets and folders are refused
// at once, also through a symbolic link, and a FIFO without a writer does
// not block (a test that hangs here fails by the test deadline).
func TestReadFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{"folder": dir}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "/dev/zero"
		link := filepath.Join(dir, "zero-link")
		if err := os.Symlink("/dev/zero", link); err != nil {
			t.Fatal(err)
		}
		cases["a link to /dev/zero"] = link
		cases["/dev/stdin"] = "/dev/stdin"
	}
	for _, p := range []string{"/proc/self/status", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && runtime.GOOS == "linux" {
			cases[p] = p // regular by its mode, but the kernel's
		}
	}
	if fifo := mkfifo(t, dir); fifo != "" {
		cases["FIFO"] = fifo
	}
	if sock := listenUnix(t, dir); sock != "" {
		cases["socket"] = sock
	}
	for name, p := range cases {
		t.Run(name, func(t *testing.T) {
			data, err := ReadFile(p, KindConfig)
			var re *ReadError
			if !errors.As(err, &re) || !errors.Is(err, ErrNotRegular) {
				t.Fatalf("ReadFile(%s) = %d bytes, %v; want ErrNotRegular", p, len(data), err)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("error %q names neither the file nor the rule", err)
			}
		})
	}
}

// TestOpenReadNoBlock: the descriptor check holds when the path changed
// after the first look: opening a FIFO without a writer returns at once.
func TestOpenReadNoBlock(t *testing.T) {
	fifo := mkfifo(t, t.TempDir())
	if fifo == "" {
		t.Skip("no FIFOs on this system")
	}
	f, err := openRead(fifo)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Mode().IsRegular() {
		t.Fatalf("stat of the FIFO: %v, %v", fi, err)
	}
}

func TestReadErrorUnwrap(t *testing.T) {
	err := error(&ReadError{Path: "/p/.mcp.json", Kind: KindSnapshot, Rule: ErrTooLarge, Detail: "70 MiB"})
	cause := errors.Unwrap(err)
	if cause == nil || strings.Contains(cause.Error(), "/p/.mcp.json") || !errors.Is(cause, ErrTooLarge) {
		t.Errorf("Unwrap = %v: want the reason without the path, wrapping the rule", cause)
	}
	var re *ReadError
	if !errors.As(fmt.Errorf("x: %w", cause), &re) || re.Path != "/p/.mcp.json" {
		t.Errorf("errors.As of the reason: %v", re)
	}
	if !strings.Contains(err.Error(), "64 MiB") || !strings.Contains(err.Error(), "snapshot file") {
		t.Errorf("error %q does not name the kind and its limit", err)
	}
}

// chunky reads its data in chunks of the sizes given, cycling.
type chunky struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunky) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)]) + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// FuzzReadLimit: whatever the sizes of the reads, the expected size and
// the limit, readLimit gives the data whole when it fits and ErrTooLarge
// otherwise, never more than limit bytes.
func FuzzReadLimit(f *testing.F) {
	f.Add([]byte("hello"), []byte{0}, int64(5), int64(5))
	f.Add([]byte("hello"), []byte{3, 200}, int64(0), int64(4))
	f.Add(bytes.Repeat([]byte("x"), 2000), []byte{255}, int64(10), int64(1500))
	f.Fuzz(func(t *testing.T, data, sizes []byte, hint, limit int64) {
		limit = limit & 0xffff
		hint = hint % 0x1ffff
		got, err := readLimit(&chunky{data: data, sizes: sizes}, hint, limit)
		if int64(len(data)) > limit {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d bytes, limit %d: %d bytes, %v; want ErrTooLarge", len(data), limit, len(got), err)
			}
			return
		}
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes, limit %d: %d bytes, %v", len(data), limit, len(got), err)
		}
	})
}

// TestReadFileIn: a link inside the folder is followed; a link out of it
// (the file, or a folder on the way) is refused and nothing is read.
func TestReadFileIn(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	for _, d := range []string{proj, filepath.Join(proj, "sub"), home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(home, ".mcp.json")
	os.WriteFile(secret, []byte(`{"token":"user-secret"}`), 0o600)
	os.WriteFile(filepath.Join(proj, "sub", "real.json"), []byte(`{}`), 0o600)
	links := map[string]string{
		filepath.Join(proj, "inside.json"):  filepath.Join("sub", "real.json"),
		filepath.Join(proj, "outside.json"): secret,
		filepath.Join(proj, "dotdot.json"):  filepath.Join("..", "home", ".mcp.json"),
		filepath.Join(proj, ".cursor"):      home,
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("no symbolic links: %v", err)
		}
	}
	if data, err := ReadFileIn(proj, filepath.Join(proj, "inside.json"), KindConfig); err != nil || string(data) != "{}" {
		t.Errorf("a link inside: %q, %v", data, err)
	}
	for _, p := range []string{"outside.json", "dotdot.json", filepath.Join(".cursor", ".mcp.json")} {
		p = filepath.Join(proj, p)
		data, err := ReadFileIn(proj, p, KindConfig)
		var re *ReadError
		if !errors.As(err, &re) || !errors.Is(err, ErrOutside) || data != nil {
			t.Errorf("%s: %q, %v; want ErrOutside", p, data, err)
			continue
		}
		if re.Path != p || strings.Contains(err.Error(), "user-secret") {
			t.Errorf("error %q: want it to name %s and nothing of the file", err, p)
		}
	}
	if _, err := ReadFileIn(proj, filepath.Join(proj, "missing.json"), KindConfig); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	// The project folder reached through a link of its own is fine.
	alias := filepath.Join(base, "alias")
	os.Symlink(proj, alias)
	if _, err := ReadFileIn(alias, filepath.Join(alias, "inside.json"), KindConfig); err != nil {
		t.Errorf("through an alias of the folder: %v", err)
	}
}

// FuzzWithin: a path joined under root is within it exactly when its
// cleaned relative part does not climb out with "..".
func FuzzWithin(f *testing.F) {
	for _, s := range []string{"a", "..", "../x", "a/../..", "a/../b", "..a", "./.", "a/b/../../.."} {
		f.Add(s)
	}
	root := filepath.FromSlash("/p/proj")
	f.Fuzz(func(t *testing.T, rel string) {
		if filepath.IsAbs(rel) || strings.ContainsRune(rel, 0) || filepath.VolumeName(rel) != "" {
			return
		}
		c := filepath.Clean(rel)
		want := c != ".." && !strings.HasPrefix(c, ".."+string(filepath.Separator))
		if got := within(root, filepath.Join(root, rel)); got != want {
			t.Fatalf("within(%q, join %q) = %v, want %v", root, rel, got, want)
		}
	})
}

// TestReadFileProc: KindProc reads the kernel's status files, which every
// other kind refuses.
func TestReadFileProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux's")
	}
	data, err := ReadFile("/proc/self/stat", KindProc)
	if err != nil || len(data) == 0 {
		t.Fatalf("ReadFile(/proc/self/stat, KindProc) = %q, %v", data, err)
	}
}
