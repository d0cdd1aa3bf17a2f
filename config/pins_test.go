package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPinFile: a surface with characters JSON encoders like to escape
// reads back as written; a pin file changed by hand is a *PinError; one
// pinned under another definition reads as none; the file is 0600 and
// its name does not give the server away.
func TestPinFile(t *testing.T) {
	home := t.TempDir()
	src := filepath.Join(home, FileName)
	os.WriteFile(src, []byte(`{"mcpServers":{"s":{"command":"x"}}}`), 0o600)
	cfg, err := Load(LoadOptions{Home: home, Dir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server("s")
	a, err := OpenApprovals(home)
	if err != nil {
		t.Fatal(err)
	}
	surface := json.RawMessage(`{"d": "<b> & \u2028 \"q\" é"}`)
	if err := a.SavePin(s, surface); err != nil {
		t.Fatal(err)
	}
	got, err := a.LoadPin(s)
	if err != nil || !strings.Contains(string(got), `<b> & `) {
		t.Fatalf("LoadPin: %s %v", got, err)
	}
	path := a.PinPath(s)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 || strings.Contains(path, "s.json") {
		t.Fatalf("pin file %s: %v %v", path, fi, err)
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "<b>", "<i>", 1)), 0o600)
	var pe *PinError
	if _, err := a.LoadPin(s); !errors.As(err, &pe) {
		t.Fatalf("a pin file changed by hand: %v", err)
	}
	os.WriteFile(path, data, 0o600)
	other := *s
	other.Args = []string{"--other"}
	if got, err := a.LoadPin(&other); got != nil || err != nil {
		t.Fatalf("a pin of another definition: %s %v", got, err)
	}
}

// TestDefaults: the home's defaults come from settings.json; a wrong
// value is an error naming it, and leaves the safe default.
func TestDefaults(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, SettingsFileName), []byte(`{"defaults": {"pin": "warn", "newTools": "sometimes"}}`), 0o600)
	a, err := OpenApprovals(home)
	if err != nil {
		t.Fatal(err)
	}
	d, err := a.Defaults()
	if d.Pin != PinWarn || d.NewTools != "" || err == nil || !strings.Contains(err.Error(), "defaults.newTools") {
		t.Fatalf("defaults %+v, %v", d, err)
	}
}

func TestDefaultsRegistry(t *testing.T) {
	for _, c := range []struct{ settings, want, err string }{
		{`{"defaults": {"registry": "https://r.example.com"}}`, "https://r.example.com", ""},
		{`{"defaults": {"registry": 1}}`, "", "defaults.registry"},
		{`{"defaults": {"registry": ""}}`, "", "defaults.registry"},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, SettingsFileName), []byte(c.settings), 0o600)
		a, err := OpenApprovals(home)
		if err != nil {
			t.Fatal(err)
		}
		d, err := a.Defaults()
		if d.Registry != c.want || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: registry %q, %v", c.settings, d.Registry, err)
		}
	}
}

// FuzzPinFileAndDefaults: whatever a pin file or settings.json holds,
// LoadPin and Defaults give an answer or an error, never a crash; a pin
// file not written with the key never loads.
func FuzzPinFileAndDefaults(f *testing.F) {
	f.Add([]byte(`{"version":1,"server":"s","source":"/x","approval":"a","surface":{},"mac":"00"}`),
		[]byte(`{"defaults":{"pin":"warn","sandbox":{"network":"any","read":["~/x"]},"projectSandbox":true}}`))
	f.Add([]byte(`{"surface":[1,2`), []byte(`{"defaults":{"sandbox":{"read":[1]}}}`))
	f.Fuzz(func(t *testing.T, pin, settings []byte) {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, SettingsFileName), settings, 0o600)
		a, _ := OpenApprovals(home)
		d, err := a.Defaults()
		if err != nil && d.Sandbox == nil && d.ProjectSandbox == nil && (strings.Contains(err.Error(), "sandbox") || strings.Contains(err.Error(), "one object")) {
			t.Fatalf("a wrong sandbox default left none (it must fail closed): %v", err)
		}
		s := &Server{Name: "s", Source: filepath.Join(home, FileName)}
		if a.PinPath(s) == "" {
			return
		}
		os.MkdirAll(filepath.Dir(a.PinPath(s)), 0o700)
		os.WriteFile(a.PinPath(s), pin, 0o600)
		if got, err := a.LoadPin(s); err == nil && got != nil {
			t.Fatalf("a pin file not written with the key loaded: %s", got)
		}
	})
}
