package config

import (
	"bytes"
	"errors"
	"fmt"
)

// A parsedFile is one server file read.
type parsedFile struct {
	root       *jnode   // nil for an empty file
	containers []*jnode // the mcpServers and servers objects present, in file order
	servers    []*Server
	warnings   []string
}

// rootKeys are the members of the top level that hold servers.
var rootKeys = [...]string{"mcpServers", "servers"}

// parseFile reads a server file. It fails only when the file as a whole
// cannot be used; wrong entries get their Err.
func parseFile(path, scope string, data []byte) (*parsedFile, error) {
	pf := &parsedFile{}
	if len(bytes.TrimSpace(data)) == 0 {
		return pf, nil // an empty file holds no servers
	}
	root, err := parseJSON(data)
	if err != nil {
		var se *jsonSyntaxError
		fe := &FileError{Path: path, Syntax: true, Err: err}
		if errors.As(err, &se) {
			fe.Line, fe.Col = lineCol(data, se.offset)
		}
		return nil, fe
	}
	if root.kind != '{' {
		l, c := lineCol(data, root.start)
		return nil, &FileError{Path: path, Line: l, Col: c, Err: fmt.Errorf("the top level must be an object, got %s", root.kindName())}
	}
	pf.root = root
	seen := make(map[string]bool)
	for _, m := range root.members {
		known := m.key == rootKeys[0] || m.key == rootKeys[1]
		l, c := lineCol(data, m.keyStart)
		if !known {
			pf.warnings = append(pf.warnings, fmt.Sprintf("%s:%d:%d: unknown top-level field %q ignored", path, l, c, m.key))
			continue
		}
		if seen[m.key] {
			return nil, &FileError{Path: path, Line: l, Col: c, Err: fmt.Errorf("%s given twice", m.key)}
		}
		seen[m.key] = true
		if m.val.kind != '{' {
			l, c := lineCol(data, m.val.start)
			return nil, &FileError{Path: path, Line: l, Col: c, Err: fmt.Errorf("%s must be an object, got %s", m.key, m.val.kindName())}
		}
		pf.containers = append(pf.containers, m.val)
	}

	// Entries of both containers, by name, in file order; a name given
	// twice is one invalid server at the place of its first definition,
	// read from its last (the one a JSON reader would keep).
	var order []string
	defs := make(map[string][]*jmember)
	for _, cont := range pf.containers {
		for i := range cont.members {
			m := &cont.members[i]
			if defs[m.key] == nil {
				order = append(order, m.key)
			}
			defs[m.key] = append(defs[m.key], m)
		}
	}
	for _, name := range order {
		ms := defs[name]
		last := ms[len(ms)-1]
		s := parseEntry(path, scope, data, name, last, &pf.warnings)
		if len(ms) > 1 {
			l1, c1 := lineCol(data, ms[0].keyStart)
			l2, c2 := lineCol(data, ms[1].keyStart)
			s.Err = &FieldError{File: path, Server: name, Line: l2, Col: c2,
				Msg: fmt.Sprintf("defined more than once in this file (first at line %d, column %d); keep one", l1, c1)}
		}
		pf.servers = append(pf.servers, s)
	}
	return pf, nil
}
