package oauth

import (
	"reflect"
	"testing"
	"time"
)

func nowForTest() time.Time { return time.Unix(1700000000, 0) }

func TestParseChallenges(t *testing.T) {
	tests := []struct {
		in   []string
		want []Challenge
		bad  bool
	}{
		{in: []string{`Bearer resource_metadata="https://x/.well-known/oauth-protected-resource", scope="files:read"`},
			want: []Challenge{{Scheme: "Bearer", Params: map[string]string{"resource_metadata": "https://x/.well-known/oauth-protected-resource", "scope": "files:read"}}}},
		{in: []string{`Basic realm="a", Bearer error=insufficient_scope, scope="a b", Error_Description="say \"hi\" \\ ok"`},
			want: []Challenge{
				{Scheme: "Basic", Params: map[string]string{"realm": "a"}},
				{Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "a b", "error_description": `say "hi" \ ok`}},
			}},
		{in: []string{`Negotiate abc/+def==`, `Bearer`},
			want: []Challenge{{Scheme: "Negotiate", Params: map[string]string{}, Token68: "abc/+def=="}, {Scheme: "Bearer", Params: map[string]string{}}}},
		{in: []string{`Bearer realm = "x" ,, scope=y,`}, want: []Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "x", "scope": "y"}}}},
		{in: []string{`Bearer a="x", a="y"`}, want: []Challenge{{Scheme: "Bearer", Params: map[string]string{"a": "x"}}}},
		{in: []string{""}, want: nil},
		{in: []string{`Bearer scope="unterminated`}, bad: true},
		{in: []string{`Bearer scope="x" junk`}, bad: true},
		{in: []string{`="x"`}, bad: true},
		{in: []string{`Bearer a="x\`}, bad: true},
	}
	for _, tt := range tests {
		got, err := ParseChallenges(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("%q: no error", tt.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q:\n got %#v\nwant %#v", tt.in, got, tt.want)
		}
	}
	cs, _ := ParseChallenges([]string{`bearer error="insufficient_scope", scope="a b"`})
	if c, ok := Bearer(cs); !ok || c.ErrorCode() != "insufficient_scope" || !reflect.DeepEqual(c.Scopes(), []string{"a", "b"}) {
		t.Errorf("helpers: %#v", cs)
	}
}

func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer resource_metadata="https://x/y", scope="a b"`,
		`Basic realm="a", Bearer error=insufficient_scope`,
		`Negotiate abc==, Bearer x="\"q\""`,
		`Bearer ,,, a = b`, `"`, `Bearer a="`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ParseChallenges([]string{s})
		if err != nil {
			return
		}
		for _, c := range cs {
			if c.Scheme == "" {
				t.Fatalf("empty scheme from %q", s)
			}
		}
	})
}

func FuzzMetadata(f *testing.F) {
	for _, s := range []string{
		`{"issuer":"https://as","authorization_endpoint":"https://as/a","token_endpoint":"https://as/t","code_challenge_methods_supported":["S256"]}`,
		`{"resource":"https://rs/mcp","authorization_servers":["https://as"],"scopes_supported":["a"]}`,
		`{"issuer":1}`, `{"resource":"https://rs#f"}`, `[]`, `{"issuer":"https://as","token_endpoint":"javascript:x"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if md, err := ParseAuthServerMetadata(data); err == nil {
			if md.Issuer == "" {
				t.Fatal("accepted metadata without issuer")
			}
			if _, err := ParseAuthServerMetadata(jsonCompact(md)); err != nil {
				t.Fatalf("round trip: %v", err)
			}
		}
		if md, err := ParseResourceMetadata(data); err == nil {
			if md.Resource == "" {
				t.Fatal("accepted metadata without resource")
			}
			if _, err := ParseResourceMetadata(jsonCompact(md)); err != nil {
				t.Fatalf("round trip: %v", err)
			}
		}
	})
}
