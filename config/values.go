package config

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// fail records the entry's first error, at byte offset off.
func (p *entryParser) fail(off int, field, format string, args ...any) {
	if p.s.Err != nil {
		return
	}
	l, c := lineCol(p.data, off)
	p.s.Err = &FieldError{File: p.file, Server: p.s.Name, Field: field, Line: l, Col: c, Msg: fmt.Sprintf(format, args...)}
}

// warn records an unknown member at byte offset off.
func (p *entryParser) warn(off int, field string) {
	l, c := lineCol(p.data, off)
	*p.warnings = append(*p.warnings, fmt.Sprintf("%s:%d:%d: server %q: unknown field %q ignored", p.file, l, c, p.s.Name, field))
}

func (p *entryParser) str(n *jnode, field string) (string, bool) {
	if n.kind != '"' {
		p.fail(n.start, field, "must be a string, got %s", n.kindName())
		return "", false
	}
	if strings.IndexByte(n.str, 0) >= 0 {
		p.fail(n.start, field, "must not contain a NUL character")
		return "", false
	}
	return n.str, true
}

func (p *entryParser) boolean(n *jnode, field string) (bool, bool) {
	if n.kind != 't' && n.kind != 'f' {
		p.fail(n.start, field, "must be true or false, got %s", n.kindName())
		return false, false
	}
	return n.kind == 't', true
}

func (p *entryParser) strList(n *jnode, field string) []string {
	if n.kind != '[' {
		p.fail(n.start, field, "must be an array of strings, got %s", n.kindName())
		return nil
	}
	out := make([]string, 0, len(n.elems))
	for i, e := range n.elems {
		v, _ := p.str(e, fmt.Sprintf("%s[%d]", field, i))
		out = append(out, v)
	}
	return out
}

// strMap reads an object of strings; check validates each name.
func (p *entryParser) strMap(n *jnode, field string, check func(string) string) map[string]string {
	if n.kind != '{' {
		p.fail(n.start, field, "must be an object of strings, got %s", n.kindName())
		return nil
	}
	out := make(map[string]string, len(n.members))
	for _, m := range n.members {
		f := field + "." + m.key
		if _, dup := out[m.key]; dup {
			p.fail(m.keyStart, f, "given twice")
		}
		if msg := check(m.key); msg != "" {
			p.fail(m.keyStart, f, "%s", msg)
		}
		v, _ := p.str(m.val, f)
		out[m.key] = v
	}
	return out
}

// duration reads a timeout: a number of seconds (of milliseconds when ms)
// more than 0 and at most MaxTimeout.
func (p *entryParser) duration(v *jnode, field string, ms bool) (time.Duration, bool) {
	unit, name := float64(time.Second), "seconds"
	if ms {
		unit, name = float64(time.Millisecond), "milliseconds"
	}
	if v.kind != '0' {
		p.fail(v.start, field, "must be a number of %s, got %s", name, v.kindName())
		return 0, false
	}
	var n float64
	if err := json.Unmarshal(p.data[v.start:v.end], &n); err != nil || math.IsNaN(n) || n <= 0 || n*unit > float64(MaxTimeout) {
		max := MaxTimeout.Seconds()
		if ms {
			max = float64(MaxTimeout.Milliseconds())
		}
		p.fail(v.start, field, "must be more than 0 and at most %d %s", int(max), name)
		return 0, false
	}
	return time.Duration(math.Round(n * unit)), true
}

// httpsURL reads a URL that must follow the URL rules without allowHttp
// (an OAuth endpoint). The value is kept even when it breaks them.
func (p *entryParser) httpsURL(v *jnode, field string) (string, bool) {
	u, ok := p.str(v, field)
	if !ok {
		return "", false
	}
	if err := checkURL(u, false); err != nil {
		p.fail(v.start, field, "%v", err)
	}
	return u, true
}
