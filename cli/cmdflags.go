package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"sort"
	"strings"
)

// A flagInfo describes one flag of a command, for help, completion and
// the man page.
type flagInfo struct {
	_ [0]func() // not comparable: no equality function in the binary

	Name  string // without dashes
	Usage string // the text after the value name
	Value string // the value's placeholder ("" for a boolean flag)
	Def   string // the default, "" when it says nothing
}

// long is the flag as typed: --name (or -x for a one-letter flag).
func (f flagInfo) long() string {
	if len(f.Name) == 1 {
		return "-" + f.Name
	}
	return "--" + f.Name
}

// flagsOf lists a command's flags, sorted by name. The command defines
// them as it runs; it is asked for its help (-h), which every command
// answers before it does anything, and its FlagSet is read.
func (c *command) flagsOf() []flagInfo {
	if c.run == nil || c.hidden {
		return nil
	}
	env := Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing may start
	inv := newInvocation(env, c)
	var hr *helpRequest
	if err := c.run(ctx, inv, []string{"-h"}); !errors.As(err, &hr) {
		return nil
	}
	return collectFlags(hr.fs)
}

// collectFlags describes the flags of fs, sorted by name.
func collectFlags(fs *flag.FlagSet) []flagInfo {
	var out []flagInfo
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && bf.IsBoolFlag() {
			value = ""
		}
		switch value {
		case "string", "value":
			value = "VALUE"
		case "duration":
			value = "DURATION"
		case "int", "uint":
			value = "N"
		case "float":
			value = "NUMBER"
		}
		def := f.DefValue
		switch def {
		case "", "false", "0", "0s", "[]":
			def = ""
		}
		out = append(out, flagInfo{Name: f.Name, Usage: usage, Value: value, Def: def})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// takesServer says whether a command's first argument may be a
// configured server's name (what completion offers there).
func (c *command) takesServer() bool {
	switch c.name {
	case "test", "call", "read", "prompt", "complete", "login", "logout", "get", "remove", "enable",
		"disable", "approve", "revoke", "doctor", "snapshot", "diff", "probe", "budget", "verify":
		return true
	}
	return false
}

// visibleCommands are the commands help, completion and the man page
// show.
func visibleCommands() []*command {
	var out []*command
	for _, c := range commands() {
		if !c.hidden {
			out = append(out, c)
		}
	}
	return out
}
