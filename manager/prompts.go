package manager

import (
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
)

// A PromptArgumentsError is a prompt asked for without the arguments it
// requires: the caller's mistake, refused before anything is sent.
type PromptArgumentsError struct {
	Prompt  string
	Missing []string // in the prompt's order
}

func (e *PromptArgumentsError) Error() string {
	what := "the argument"
	if len(e.Missing) > 1 {
		what = "the arguments"
	}
	return fmt.Sprintf("prompt %s needs %s %s", e.Prompt, what, strings.Join(e.Missing, ", "))
}

// CheckPromptArgs returns a *PromptArgumentsError when args lacks an
// argument p requires; nil otherwise.
func CheckPromptArgs(p *protocol.Prompt, args map[string]string) error {
	var missing []string
	for _, a := range p.Arguments {
		if _, ok := args[a.Name]; a.Required && !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) > 0 {
		return &PromptArgumentsError{Prompt: p.Name, Missing: missing}
	}
	return nil
}

// PromptArgs reads the words of a command line as p's arguments: NAME=VALUE
// for an argument p names (or one it does not, passed on as it is), and
// words without "=" in the order of p's arguments, skipping those given
// by name. A word left over is an error.
func PromptArgs(p *protocol.Prompt, words []string) (map[string]string, error) {
	out := map[string]string{}
	var positional []string
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" {
			out[k] = v
			continue
		}
		positional = append(positional, w)
	}
	i := 0
	for _, a := range p.Arguments {
		if i == len(positional) {
			break
		}
		if _, given := out[a.Name]; !given {
			out[a.Name] = positional[i]
			i++
		}
	}
	if i < len(positional) {
		var names []string
		for _, a := range p.Arguments {
			names = append(names, a.Name)
		}
		return nil, fmt.Errorf("prompt %s takes %d arguments (%s); %q is one too many", p.Name, len(p.Arguments), strings.Join(names, ", "), positional[i])
	}
	return out, nil
}
