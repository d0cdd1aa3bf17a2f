package config

import (
	"errors"
	"strings"
	"testing"
)

func TestExpandString(t *testing.T) {
	vars := env(map[string]string{"A": "alpha", "B": "${A}", "EMPTY": "", "P": "x:-y"})
	for _, tc := range []struct {
		in, want, errVar, errMsg string
	}{
		{in: "plain", want: "plain"},
		{in: "${A}", want: "alpha"},
		{in: "<${A}|${A}>", want: "<alpha|alpha>"},
		{in: "${B}", want: "${A}"},              // once: not recursive
		{in: "${NOPE:-${A}}", want: "${A}"},     // the default is "${A" (up to the first }), then "}"
		{in: "${NOPE:-a b:-c}", want: "a b:-c"}, // the first :- splits
		{in: "${EMPTY:-d}", want: "d"},          // empty counts as unset
		{in: "${A:-d}", want: "alpha"},
		{in: "${P}", want: "x:-y"},
		{in: "${NOPE:-}", want: ""},
		{in: "$A $$ $ $$A ${", errMsg: "without a closing"}, // only ${ is special
		{in: "$A $$ $ $$A", want: "$A $$ $ $$A"},
		{in: "$${A}", want: "$alpha"},
		{in: "${NOPE}", errVar: "NOPE", errMsg: "variable NOPE is not set and has no default"},
		{in: "${EMPTY}", errVar: "EMPTY"},
		{in: "${}", errMsg: "not ${NAME}"},
		{in: "${1A}", errMsg: "not ${NAME}"},
		{in: "${A-x}", errMsg: "not ${NAME}"},
		{in: "${A:=x}", errMsg: "not ${NAME}"},
	} {
		got, p := expandString(tc.in, vars)
		if tc.errMsg == "" && tc.errVar == "" {
			if p != nil || got != tc.want {
				t.Errorf("expand(%q) = %q, %v; want %q", tc.in, got, p, tc.want)
			}
			continue
		}
		if p == nil || p.name != tc.errVar || !strings.Contains(p.msg, tc.errMsg) {
			t.Errorf("expand(%q) = %q, %+v; want error var %q msg %q", tc.in, got, p, tc.errVar, tc.errMsg)
		}
	}
}

func TestExpandErrorNamesNoValue(t *testing.T) {
	s := &Server{Name: "x", Type: TypeHTTP, URL: "https://h.example/", Headers: map[string]string{"X-Key": "sk-${KEY}-verysecretpart"}}
	_, err := s.Expand(env(nil))
	var xe *ExpandError
	if !errors.As(err, &xe) || xe.Field != "headers.X-Key" || xe.Var != "KEY" {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "verysecretpart") {
		t.Errorf("error shows the value: %v", err)
	}
	if want := `server "x": headers.X-Key: variable KEY is not set`; !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestExpandAfterChecks(t *testing.T) {
	for _, tc := range []struct {
		s    Server
		vars map[string]string
		want string
	}{
		{Server{Type: TypeStdio, Command: "${C:-}"}, nil, "command: after expansion: is empty"},
		{Server{Type: TypeHTTP, URL: "${U}"}, map[string]string{"U": "http://10.0.0.1/"}, "url: after expansion: plain http"},
		{Server{Type: TypeSSE, URL: "${U}"}, map[string]string{"U": "https://a:b@h.example/"}, "url: after expansion: a user name or password"},
		{Server{Type: TypeHTTP, URL: "https://h.example/", Headers: map[string]string{"A": "${V}"}}, map[string]string{"V": "x\r\nInjected: 1"}, "headers.A: after expansion: contains a line break"},
	} {
		_, err := tc.s.Expand(env(tc.vars))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.s, err, tc.want)
		}
	}
	for _, u := range []string{"http://localhost:1/x", "http://127.9.9.9/", "http://[::1]:80/", "https://example.com/"} {
		s := Server{Type: TypeHTTP, URL: u}
		if _, err := s.Expand(nil); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}
