package oauth

import (
	"fmt"
	"strings"
)

// A Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// section 11.6.1): a scheme and either parameters or a token68.
type Challenge struct {
	Scheme  string
	Params  map[string]string // names lower-cased; values unquoted
	Token68 string
}

// Param returns the parameter name (case-insensitive), or "".
func (c Challenge) Param(name string) string { return c.Params[strings.ToLower(name)] }

// ResourceMetadata returns the resource_metadata parameter (RFC 9728
// section 5.1).
func (c Challenge) ResourceMetadata() string { return c.Param("resource_metadata") }

// Scopes returns the scope parameter split on spaces (RFC 6750 section 3).
func (c Challenge) Scopes() []string { return strings.Fields(c.Param("scope")) }

// ErrorCode returns the error parameter (RFC 6750 section 3.1), such as
// "invalid_token" or "insufficient_scope".
func (c Challenge) ErrorCode() string { return c.Param("error") }

// IsBearer reports whether the scheme is Bearer (case-insensitive).
func (c Challenge) IsBearer() bool { return strings.EqualFold(c.Scheme, "Bearer") }

// IsDPoP reports whether the scheme is DPoP (RFC 9449 section 7.1).
func (c Challenge) IsDPoP() bool { return strings.EqualFold(c.Scheme, "DPoP") }

// Bearer returns the first Bearer challenge of cs, else the first DPoP one
// (a server that binds tokens to DPoP keys challenges with that scheme,
// with the same parameters).
func Bearer(cs []Challenge) (Challenge, bool) {
	for _, c := range cs {
		if c.IsBearer() {
			return c, true
		}
	}
	for _, c := range cs {
		if c.IsDPoP() {
			return c, true
		}
	}
	return Challenge{}, false
}

// ParseChallenges parses the values of WWW-Authenticate headers. A header
// may hold several challenges, and several headers add up. Parameters are
// tokens or quoted strings with backslash escapes; a challenge may carry a
// token68 instead. The first occurrence of a repeated parameter wins.
func ParseChallenges(header []string) ([]Challenge, error) {
	var out []Challenge
	for i, h := range header {
		cs, err := parseChallengeHeader(h)
		if err != nil {
			return out, fmt.Errorf("parsing WWW-Authenticate header %d: %v", i+1, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

type chParser struct {
	s   string
	pos int
}

func isTchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func isToken68Char(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

func (p *chParser) done() bool { return p.pos >= len(p.s) }

func (p *chParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.pos]
}

func (p *chParser) skipWS() {
	for !p.done() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

func (p *chParser) skipWSAndCommas() {
	for !p.done() && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == ',') {
		p.pos++
	}
}

func (p *chParser) token() string {
	start := p.pos
	for !p.done() && isTchar(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

// paramAhead reports whether an auth-param (token BWS "=" BWS value) starts
// at the current position.
func (p *chParser) paramAhead() bool {
	q := *p
	if q.token() == "" {
		return false
	}
	q.skipWS()
	if q.peek() != '=' {
		return false
	}
	q.pos++
	q.skipWS()
	c := q.peek()
	return c == '"' || isTchar(c)
}

func (p *chParser) quoted() (string, error) {
	start := p.pos
	p.pos++ // opening quote
	var b strings.Builder
	for !p.done() {
		c := p.s[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\\':
			p.pos++
			if p.done() {
				return "", fmt.Errorf("unterminated escape at offset %d", p.pos)
			}
			b.WriteByte(p.s[p.pos])
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", fmt.Errorf("control character in quoted string at offset %d", p.pos)
		default:
			b.WriteByte(c)
		}
		p.pos++
	}
	return "", fmt.Errorf("unterminated quoted string starting at offset %d", start)
}

// param parses one auth-param into c.
func (p *chParser) param(c *Challenge) error {
	name := strings.ToLower(p.token())
	p.skipWS()
	p.pos++ // '='
	p.skipWS()
	var val string
	if p.peek() == '"' {
		v, err := p.quoted()
		if err != nil {
			return err
		}
		val = v
	} else {
		val = p.token()
	}
	if c.Params == nil {
		c.Params = map[string]string{}
	}
	if _, dup := c.Params[name]; !dup {
		c.Params[name] = val
	}
	return p.endOfItem()
}

// endOfItem requires the end of input or a comma after optional space.
func (p *chParser) endOfItem() error {
	p.skipWS()
	if !p.done() && p.peek() != ',' {
		return fmt.Errorf("unexpected character %q at offset %d", p.peek(), p.pos)
	}
	return nil
}

func parseChallengeHeader(s string) ([]Challenge, error) {
	p := &chParser{s: s}
	var out []Challenge
	for {
		p.skipWSAndCommas()
		if p.done() {
			return out, nil
		}
		if len(out) > 0 && p.paramAhead() {
			if err := p.param(&out[len(out)-1]); err != nil {
				return nil, err
			}
			continue
		}
		scheme := p.token()
		if scheme == "" {
			return nil, fmt.Errorf("unexpected character %q at offset %d", p.peek(), p.pos)
		}
		out = append(out, Challenge{Scheme: scheme, Params: map[string]string{}})
		c := &out[len(out)-1]
		if p.done() || p.peek() == ',' {
			continue
		}
		if p.peek() != ' ' && p.peek() != '\t' {
			return nil, fmt.Errorf("unexpected character %q at offset %d", p.peek(), p.pos)
		}
		p.skipWS()
		if p.done() || p.peek() == ',' {
			continue
		}
		if p.paramAhead() {
			if err := p.param(c); err != nil {
				return nil, err
			}
			continue
		}
		start := p.pos
		for !p.done() && isToken68Char(p.s[p.pos]) {
			p.pos++
		}
		for !p.done() && p.s[p.pos] == '=' {
			p.pos++
		}
		if p.pos == start {
			return nil, fmt.Errorf("unexpected character %q at offset %d", p.peek(), p.pos)
		}
		c.Token68 = s[start:p.pos]
		if err := p.endOfItem(); err != nil {
			return nil, err
		}
	}
}
