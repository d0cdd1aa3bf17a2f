package main

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// proxyVersion is the version the test publishes this tree as.
const proxyVersion = "v0.1.0"

// TestGoInstallFromProxy publishes this tree as a module version on a
// module proxy of files (GOPROXY=file://…), beside the dependencies it
// requires (taken from the module cache, where building this package put
// them), and runs `go install github.com/mcpwire/mcpwire@latest` against
// that proxy alone, into an empty module cache, with the checksum
// database off and go.sum's hashes checked; then runs the binary it
// installed. It is what a person or an agent does with the README's
// install line, short of the network.
func TestGoInstallFromProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary from a module proxy; not with -short")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command on PATH")
	}
	mod := modulePath(t)
	proxy := t.TempDir()
	publish(t, proxy, mod, proxyVersion)
	copyDependencies(t, gobin, proxy)

	work := t.TempDir()
	// The module cache is read-only: make it writable again, so that
	// TempDir's cleanup (registered first, run last) can remove it.
	t.Cleanup(func() { makeWritable(filepath.Join(work, "modcache")) })
	bin := filepath.Join(work, "bin")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gobin, "install", mod+"@latest")
	cmd.Dir = work // outside any module
	cmd.Env = append(cleanGoEnv(),
		"GOPROXY=file://"+filepath.ToSlash(proxy),
		"GOSUMDB=off", "GOFLAGS=", "GOTOOLCHAIN=local", "CGO_ENABLED=0",
		"GOPATH="+filepath.Join(work, "gopath"),
		"GOMODCACHE="+filepath.Join(work, "modcache"),
		"GOBIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install %s@latest from the file proxy: %v\n%s", mod, err, out)
	}
	exe := filepath.Join(bin, "mcpwire")
	if os.PathSeparator == '\\' {
		exe += ".exe"
	}
	out, err := exec.CommandContext(ctx, exe, "version", "--json").Output()
	if err != nil {
		t.Fatalf("the installed mcpwire: %v", err)
	}
	var v struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.Version == "" {
		t.Fatalf("the installed mcpwire's version --json: %v\n%s", err, out)
	}
}

// publish writes version of the module in this tree to the file proxy
// at dir: @v/list, .info, .mod, and the .zip of the tree's files (those
// git tracks, and new ones it does not ignore), each under mod@version/.
func publish(t *testing.T, dir, mod, version string) {
	t.Helper()
	at := filepath.Join(dir, filepath.FromSlash(mod), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": "2026-01-01T00:00:00Z"})
	for name, data := range map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": gomod} {
		if err := os.WriteFile(filepath.Join(at, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The files of this tree that git tracks or would (new files not
	// ignored), as a tag of it would hold them.
	out, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v (the test publishes the files git tracks)", err)
	}
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	prefix := mod + "@" + version + "/"
	names := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	// A folder with a go.mod of its own (a test peer's module under
	// testdata) is another module: a module's zip leaves it out.
	var nested []string
	for _, name := range names {
		if dir, ok := strings.CutSuffix(name, "/go.mod"); ok {
			nested = append(nested, dir+"/")
		}
	}
	for _, name := range names {
		if slices.ContainsFunc(nested, func(dir string) bool { return strings.HasPrefix(name, dir) }) {
			continue
		}
		data, err := os.ReadFile(filepath.FromSlash(name))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
}

// copyDependencies copies the versions go.sum names from the module
// cache's download directory (which has a proxy's layout) to the proxy.
func copyDependencies(t *testing.T, gobin, proxy string) {
	t.Helper()
	out, err := exec.Command(gobin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(strings.TrimSpace(string(out)), "cache", "download")
	sum, err := os.Open("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	defer sum.Close()
	versions := map[string][]string{}
	sc := bufio.NewScanner(sum)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && !strings.HasSuffix(f[1], "/go.mod") {
			versions[f[0]] = append(versions[f[0]], f[1])
		}
	}
	for mod, vs := range versions {
		src := filepath.Join(cache, filepath.FromSlash(mod), "@v")
		dst := filepath.Join(proxy, filepath.FromSlash(mod), "@v")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			for _, ext := range []string{".info", ".mod", ".zip"} {
				data, err := os.ReadFile(filepath.Join(src, v+ext))
				if err != nil {
					t.Fatalf("%s %s is not in the module cache (building this package downloads it): %v", mod, v, err)
				}
				if err := os.WriteFile(filepath.Join(dst, v+ext), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(filepath.Join(dst, "list"), []byte(strings.Join(vs, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// cleanGoEnv is this process's environment without the go command's
// settings that would point it elsewhere.
func cleanGoEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOFLAGS", "GOTOOLCHAIN",
			"GOPATH", "GOMODCACHE", "GOBIN", "GOWORK", "CGO_ENABLED":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GOWORK=off")
}

// makeWritable makes the directories under dir writable.
func makeWritable(dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o755)
		}
		return nil
	})
}
