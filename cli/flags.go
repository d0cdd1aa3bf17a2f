package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
)

// newFlagSet returns a FlagSet for one call of a command; it reports to
// nothing (errors come back as usage failures).
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseArgs parses flags wherever they stand among args, up to a "--";
// it returns the positional arguments and, when there was a "--", the
// words after it.
func parseArgs(fs *flag.FlagSet, args []string) (pos, tail []string, hasTail bool, err error) {
	for i, a := range args {
		if a == "--" {
			args, tail, hasTail = args[:i], args[i+1:], true
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, nil, false, &helpRequest{fs: fs}
			}
			return nil, nil, false, flagFailure(fs, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, tail, hasTail, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// flagFailure turns the flag package's error into a usage failure that
// names the flag as typed (--name) and, for an unknown one, the flag
// most likely meant.
func flagFailure(fs *flag.FlagSet, err error) *failure {
	msg := err.Error()
	dashed := func(n string) string {
		if len(n) == 1 {
			return "-" + n
		}
		return "--" + n
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		f := usageErr("unknown flag %s", dashed(name))
		var names []string
		fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		if c := closest(name, names); c != "" {
			f.hints = append(f.hints, "did you mean "+dashed(c)+"?")
		}
		return f
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErr("%s needs a value", dashed(name))
	}
	return usageErr("%s", strings.Replace(msg, " for flag -", " for --", 1))
}

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// demoFlag is --demo (stdio) or --demo=http.
type demoFlag struct{ mode string }

func (d *demoFlag) String() string   { return d.mode }
func (d *demoFlag) IsBoolFlag() bool { return true }
func (d *demoFlag) Set(v string) error {
	switch v {
	case "true", "stdio":
		d.mode = "stdio"
	case "false":
		d.mode = ""
	case "http":
		d.mode = "http"
	default:
		return errors.New(`--demo takes "stdio" or "http"`)
	}
	return nil
}

type flagSetT = flag.FlagSet

// A helpRequest is -h or --help on a command line: the command's usage
// and flags are printed on stdout, and the run exits 0.
type helpRequest struct{ fs *flag.FlagSet }

func (*helpRequest) Error() string { return "help requested" }

// arity is how many words a command takes, from min to max, and the
// usage error when it is given another number; noTail: a "-- COMMAND" is
// refused too (the other commands leave it unread).
type arity struct {
	min, max int
	noTail   bool
	usage    string
}

// jsonArgs is the prologue of a command that takes flags, --json and
// words: it registers --json on fs, parses args and checks the words
// against a.
func (inv *invocation) jsonArgs(fs *flag.FlagSet, args []string, a arity) ([]string, error) {
	fs.BoolVar(&inv.json, "json", false, "print one JSON document on stdout")
	pos, _, hasTail, err := parseArgs(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) < a.min || len(pos) > a.max || a.noTail && hasTail {
		return nil, usageErr("%s", a.usage)
	}
	return pos, nil
}
