package config

import (
	"encoding/json"
	"strings"
	"testing"
)

const (
	sentinelEnv    = "ENVSECRET-7f3a9c"
	sentinelHeader = "HDRSECRET-51be02"
	sentinelBearer = "BEARERTOKEN-e4d1c8"
	sentinelClient = "CLIENTSECRET-0a9b7e"
	sentinelQuery  = "QUERYKEY-88d2f1"
	sentinelExpand = "EXPANDED-c0ffee42"
)

func secretConfig(t *testing.T) *Config {
	t.Helper()
	opts := setup(t, `{"mcpServers": {
  "s": {"command": "x", "env": {"A": "`+sentinelEnv+`", "B": "${FROM_HOST}", "SHORT": "1"}},
  "h": {"url": "https://h.example/mcp?key=`+sentinelQuery+`", "headers": {"X-Api-Key": "`+sentinelHeader+`", "Authorization": "Bearer `+sentinelBearer+`"}},
  "o": {"url": "https://o.example/mcp", "oauth": {"client_id": "cid", "client_secret": "`+sentinelClient+`"}, "x-extra": true}
}}`, "")
	opts.Getenv = env(map[string]string{"FROM_HOST": sentinelExpand})
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSecrets(t *testing.T) {
	c := secretConfig(t)
	all := strings.Join(append(append(c.Server("s").Secrets(), c.Server("h").Secrets()...), c.Server("o").Secrets()...), "\n")
	for _, want := range []string{sentinelEnv, "${FROM_HOST}", sentinelExpand, sentinelHeader, "Bearer " + sentinelBearer, sentinelBearer, sentinelClient, sentinelQuery} {
		if !strings.Contains("\n"+all+"\n", "\n"+want+"\n") {
			t.Errorf("Secrets lack %q", want)
		}
	}
}

func TestRedactor(t *testing.T) {
	c := secretConfig(t)
	r := c.Redactor()
	in := "env " + sentinelEnv + " host " + sentinelExpand + " hdr " + sentinelHeader + " tok " + sentinelBearer +
		" client " + sentinelClient + " q " + sentinelQuery + " json " + string(marshalString(sentinelEnv+`"q`)) + " exit status 1"
	out := r.Redact(in)
	for _, s := range []string{sentinelEnv, sentinelExpand, sentinelHeader, sentinelBearer, sentinelClient, sentinelQuery} {
		if strings.Contains(out, s) {
			t.Errorf("%q survived: %s", s, out)
		}
	}
	if !strings.HasSuffix(out, "exit status 1") {
		t.Errorf("short values must not be masked: %s", out)
	}
}

func TestMaskedJSON(t *testing.T) {
	c := secretConfig(t)
	for _, name := range []string{"s", "h", "o"} {
		out, err := MaskedJSON(c.Server(name))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(out) {
			t.Fatalf("%s: not JSON: %s", name, out)
		}
		for _, s := range []string{sentinelEnv, sentinelExpand, sentinelHeader, sentinelBearer, sentinelClient, sentinelQuery, "${FROM_HOST}"} {
			if strings.Contains(string(out), s) {
				t.Errorf("%s: %q shown: %s", name, s, out)
			}
		}
		t.Logf("%s", out)
	}
	out, _ := MaskedJSON(c.Server("h"))
	if !strings.Contains(string(out), `"url": "https://h.example/mcp?***"`) || !strings.Contains(string(out), `"X-Api-Key": "***"`) {
		t.Errorf("h: %s", out)
	}
	out, _ = MaskedJSON(c.Server("o"))
	if !strings.Contains(string(out), `"client_id": "cid"`) || !strings.Contains(string(out), `"x-extra": true`) {
		t.Errorf("o: %s", out)
	}
	out, _ = MaskedJSON(c.Server("s"))
	if !strings.Contains(string(out), `"SHORT": "***"`) {
		t.Errorf("s: every env value is masked: %s", out)
	}
}

func TestTarget(t *testing.T) {
	s := &Server{Type: TypeHTTP, URL: "https://h.example/mcp?token=abc"}
	if s.Target() != "https://h.example/mcp" {
		t.Errorf("target %q", s.Target())
	}
	s = &Server{Type: TypeStdio, Command: "npx", Args: []string{"-y", "pkg"}}
	if s.Target() != "npx -y pkg" {
		t.Errorf("target %q", s.Target())
	}
}
