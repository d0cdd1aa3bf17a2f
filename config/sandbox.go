package config

import (
	"fmt"
	"strings"
)

// Network policies of a [Sandbox].
const (
	NetworkNone = "none"
	NetworkAny  = "any"
)

// A Sandbox is a stdio server's "sandbox": what the server (and what it
// starts) may touch. "sandbox": true is the defaults: no network, read
// the system and the command's installation, write a private temporary
// folder. An object adds "network" ("none" or "any"), "read" and
// "write" (folders or files; ${VAR}, a leading ~ for the home folder,
// and paths relative to the folder the server runs in, "." itself) and
// "bestEffort" (run with what the system can enforce rather than
// refuse).
type Sandbox struct {
	// Off is "sandbox": false: no sandbox of the definition's own (a
	// project's cannot lift the home's default).
	Off        bool
	Network    string   // NetworkNone or NetworkAny
	Read       []string // as written
	Write      []string // as written
	BestEffort bool
}

// readSandbox reads a "sandbox" value; problem says what is wrong, "" when
// nothing is.
func readSandbox(n *jnode) (sb *Sandbox, problem string) {
	switch n.kind {
	case 't':
		return &Sandbox{Network: NetworkNone}, ""
	case 'f':
		return &Sandbox{Off: true}, ""
	case '{':
	default:
		return nil, "must be true, false or an object, got " + n.kindName()
	}
	sb = &Sandbox{Network: NetworkNone}
	for _, m := range n.members {
		switch m.key {
		case "network":
			if m.val.kind != '"' || (m.val.str != NetworkNone && m.val.str != NetworkAny) {
				return nil, `network must be "none" or "any"`
			}
			sb.Network = m.val.str
		case "read", "write":
			if m.val.kind != '[' {
				return nil, m.key + " must be an array of strings"
			}
			var list []string
			for _, e := range m.val.elems {
				if e.kind != '"' || strings.TrimSpace(e.str) == "" || strings.IndexByte(e.str, 0) >= 0 {
					return nil, m.key + " must hold paths (non-empty strings)"
				}
				list = append(list, e.str)
			}
			if m.key == "read" {
				sb.Read = list
			} else {
				sb.Write = list
			}
		case "bestEffort":
			if m.val.kind != 't' && m.val.kind != 'f' {
				return nil, "bestEffort must be true or false"
			}
			sb.BestEffort = m.val.kind == 't'
		default:
			return nil, fmt.Sprintf("unknown member %q (network, read, write, bestEffort)", m.key)
		}
	}
	return sb, ""
}

func (p *entryParser) readSandboxMember(f *jmember) {
	sb, problem := readSandbox(f.val)
	if problem != "" {
		p.fail(f.val.start, f.key, "%s", problem)
		return
	}
	p.s.Sandbox = sb
}

// expandPaths expands ${VAR} in each path and a leading ~ to the home
// folder ($HOME); relative paths stay relative (to the folder the
// server runs in, resolved when it starts).
func expandPaths(field string, paths []string, exp func(field, v string) string, home func() string) []string {
	var out []string
	for i, p := range paths {
		v := exp(fmt.Sprintf("%s[%d]", field, i), p)
		if v == "~" || strings.HasPrefix(v, "~/") {
			v = home() + v[1:]
		}
		out = append(out, v)
	}
	return out
}

// ExpandPaths expands the read and write paths of sb, a sandbox of the
// home's defaults (setting names it: "defaults.sandbox" or
// "defaults.projectSandbox"), for server as a definition's are expanded:
// ${VAR} from lookup, then a leading ~ to $HOME; relative paths stay
// relative. A reference that cannot be expanded is an *ExpandError
// naming the setting and the variable, never a value.
func (sb *Sandbox) ExpandPaths(server, setting string, lookup func(string) (string, bool)) (read, write []string, err error) {
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	exp := func(field, v string) string {
		out, p := expandString(v, lookup)
		if p != nil && err == nil {
			err = &ExpandError{Server: server, Field: field, Var: p.name, Msg: p.msg}
		}
		return out
	}
	home := func() string { h, _ := lookup("HOME"); return h }
	read = expandPaths(setting+".read", sb.Read, exp, home)
	write = expandPaths(setting+".write", sb.Write, exp, home)
	return read, write, err
}
