package cli_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// wineHang bounds the whole Windows run (builds and wine's first start
// included), so that a hang fails; it is not a timing assertion.
const wineHang = 20 * time.Minute

// findWine is the wine loader for 64-bit programs: wine64 or wine on
// PATH, or where Debian's wine64 package puts it.
func findWine() string {
	for _, name := range []string{"wine64", "wine"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if _, err := os.Stat("/usr/lib/wine/wine64"); err == nil {
		return "/usr/lib/wine/wine64"
	}
	return ""
}

// TestSessionsWindowsUnderWine cross-compiles mcpwire and the tests of
// internal/safe and cli for Windows and runs the Windows ones (the named
// pipe: internal/safe/pipe_windows_test.go; sessions end to end:
// sessions_windows_test.go) under wine, in a prefix under .cache/wine. It skips without wine
// (scripts/wine.sh installs it), and fails so under CI=true.
func TestSessionsWindowsUnderWine(t *testing.T) {
	wine := findWine()
	if wine == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("wine is not installed (scripts/wine.sh installs it); CI needs it")
		}
		t.Skip("wine is not installed (scripts/wine.sh installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), wineHang)
	defer cancel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpwire.exe")
	start := time.Now()
	goWindows(t, ctx, "build", "-o", bin, "github.com/mcpwire/mcpwire")
	runs := []struct{ pkg, run, last string }{
		{"internal/safe", "^TestPipe", "TestPipeBusy"},
		{"cli", "^TestSessionsWindows", "TestSessionsWindowsSquatted"},
	}
	for _, r := range runs {
		goWindows(t, ctx, "test", "-c", "-o", filepath.Join(dir, filepath.Base(r.pkg)+".test.exe"), "github.com/mcpwire/mcpwire/"+r.pkg)
	}
	t.Logf("cross-compiled in %v", time.Since(start).Round(time.Millisecond))
	env := winePrefix(t, ctx, wine)
	for _, r := range runs {
		start = time.Now()
		cmd := exec.CommandContext(ctx, wine, filepath.Join(dir, filepath.Base(r.pkg)+".test.exe"), "-test.run", r.run, "-test.v", "-test.count=1")
		cmd.Env = append(env, "MCPWIRE_TEST_BINARY="+winePath(bin))
		cmd.Dir = dir
		cmd.WaitDelay = 10 * time.Second
		out, err := cmd.CombinedOutput()
		t.Logf("%s's Windows tests under wine, in %v:\n%s", r.pkg, time.Since(start).Round(time.Millisecond), out)
		if err != nil || !bytes.Contains(out, []byte("--- PASS: "+r.last)) {
			t.Fatalf("%s's Windows tests failed under wine: %v", r.pkg, err)
		}
	}
}

// goWindows runs go with args for windows/amd64.
func goWindows(t *testing.T, ctx context.Context, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// winePath is a Linux path as a Windows program under wine names it.
func winePath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// winePrefix makes (once) the wine prefix under .cache/wine and returns
// the environment that uses it: wine's own messages off, and no Mono or
// Gecko installer (wine would look for them on the network).
func winePrefix(t *testing.T, ctx context.Context, wine string) []string {
	t.Helper()
	prefix, err := filepath.Abs(filepath.Join("..", ".cache", "wine"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "WINEPREFIX="+prefix, "WINEDEBUG=-all", "WINEDLLOVERRIDES=mscoree,mshtml=", "DISPLAY=")
	if _, err := os.Stat(filepath.Join(prefix, "system.reg")); err != nil {
		if err := os.MkdirAll(prefix, 0o700); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		cmd := exec.CommandContext(ctx, wine, "wineboot", "--init")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("wineboot: %v\n%s", err, out)
		}
		t.Logf("made the wine prefix %s in %v", prefix, time.Since(start).Round(time.Millisecond))
	}
	// Go 1.24 and later need ProcessPrng of bcryptprimitives.dll, which
	// wine 8 lacks: a DLL that forwards it to RtlGenRandom stands in.
	dll := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if _, err := os.Stat(dll); err != nil {
		if err := os.WriteFile(dll, prngDLL(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

// prngDLL is a PE32+ DLL of one section holding only an export table:
// ProcessPrng, forwarded to advapi32's SystemFunction036 (RtlGenRandom,
// whose BOOLEAN result the Go runtime reads as ProcessPrng's BOOL: it
// tests the low byte).
func prngDLL() []byte {
	const (
		fileAlign = 0x200
		secRVA    = 0x1000 // the section, in memory
		secOff    = 0x200  // and in the file
		optOff    = 0x58   // the optional header
		optSize   = 240
	)
	b := make([]byte, secOff+fileAlign)
	le := binary.LittleEndian
	copy(b, "MZ")
	le.PutUint32(b[0x3c:], 0x40) // e_lfanew
	copy(b[0x40:], "PE\x00\x00")
	f := b[0x44:]                     // the file header
	le.PutUint16(f[0:], 0x8664)       // AMD64
	le.PutUint16(f[2:], 1)            // one section
	le.PutUint16(f[16:], optSize)     // the optional header's size
	le.PutUint16(f[18:], 0x2000|0x22) // a DLL, executable, large-address aware
	o := b[optOff:]
	le.PutUint16(o[0:], 0x20b)        // PE32+
	le.PutUint32(o[8:], fileAlign)    // SizeOfInitializedData
	le.PutUint64(o[24:], 0x180000000) // ImageBase
	le.PutUint32(o[32:], secRVA)      // SectionAlignment
	le.PutUint32(o[36:], fileAlign)   // FileAlignment
	le.PutUint16(o[40:], 6)           // MajorOperatingSystemVersion
	le.PutUint16(o[48:], 6)           // MajorSubsystemVersion
	le.PutUint32(o[56:], 2*secRVA)    // SizeOfImage
	le.PutUint32(o[60:], secOff)      // SizeOfHeaders
	le.PutUint16(o[68:], 3)           // the console subsystem
	le.PutUint64(o[72:], 0x100000)    // stack reserve
	le.PutUint64(o[80:], 0x1000)      // stack commit
	le.PutUint64(o[88:], 0x100000)    // heap reserve
	le.PutUint64(o[96:], 0x1000)      // heap commit
	le.PutUint32(o[108:], 16)         // NumberOfRvaAndSizes
	s := b[secOff:]                   // the export directory, then its arrays and names
	le.PutUint32(s[16:], 1)           // Base
	le.PutUint32(s[20:], 1)           // NumberOfFunctions
	le.PutUint32(s[24:], 1)           // NumberOfNames
	le.PutUint32(s[28:], secRVA+0x28) // AddressOfFunctions
	le.PutUint32(s[32:], secRVA+0x2c) // AddressOfNames
	le.PutUint32(s[36:], secRVA+0x30) // AddressOfNameOrdinals (ordinal 0)
	at := uint32(0x32)
	put := func(str string) uint32 {
		rva := secRVA + at
		copy(s[at:], str+"\x00")
		at += uint32(len(str)) + 1
		return rva
	}
	le.PutUint32(s[12:], put("bcryptprimitives.dll")) // Name
	le.PutUint32(s[0x2c:], put("ProcessPrng"))
	// An export whose address lies in the export directory is a forwarder.
	le.PutUint32(s[0x28:], put("advapi32.SystemFunction036"))
	le.PutUint32(o[112:], secRVA) // data directory 0: the exports
	le.PutUint32(o[116:], at)
	h := b[optOff+optSize:] // the section header
	copy(h, ".rdata")
	le.PutUint32(h[8:], at)          // VirtualSize
	le.PutUint32(h[12:], secRVA)     // VirtualAddress
	le.PutUint32(h[16:], fileAlign)  // SizeOfRawData
	le.PutUint32(h[20:], secOff)     // PointerToRawData
	le.PutUint32(h[36:], 0x40000040) // initialized data, readable
	return b
}
