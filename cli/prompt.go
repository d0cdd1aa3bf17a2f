package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// A promptInput reads a person's answers a line at a time and gives up
// when the request's ctx ends, so that a prompt never keeps a Ctrl-C, or
// the end of the session, waiting for a line.
//
// On a terminal it reads the terminal opened anew (its own file
// description, so it can wait with a deadline without changing the
// terminal for the shell); otherwise from the invocation's stdin, read by
// one goroutine that outlives an abandoned prompt only while the read it
// is blocked in lasts.
type promptInput struct {
	f     *os.File // the terminal; nil: lines
	r     *bufio.Reader
	lines <-chan promptLine
}

type promptLine struct {
	_ [0]func() // not comparable: no equality function in the binary

	s   string
	err error
}

// openPrompt returns the input of one prompt; close it when done.
func (inv *invocation) openPrompt() *promptInput {
	if f, ok := inv.env.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if tty := openTerminal(f); tty != nil {
			return &promptInput{f: tty, r: bufio.NewReader(tty)}
		}
	}
	return &promptInput{lines: inv.stdinLines()}
}

// stdinLines starts, once, the goroutine that reads stdin's lines for the
// prompts that cannot read a terminal.
func (inv *invocation) stdinLines() <-chan promptLine {
	inv.linesOnce.Do(func() {
		ch := make(chan promptLine, 1)
		inv.lines = ch
		in := inv.env.Stdin
		if in == nil {
			close(ch)
			return
		}
		go func() {
			defer close(ch)
			r := bufio.NewReader(in)
			for {
				s, err := r.ReadString('\n')
				ch <- promptLine{s: s, err: err}
				if err != nil {
					return
				}
			}
		}()
	})
	return inv.lines
}

// readLine returns the next line (with its line end), or ctx's error once
// ctx ended.
func (p *promptInput) readLine(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if p.f == nil {
		select {
		case l, ok := <-p.lines:
			if !ok {
				return "", io.EOF
			}
			return l.s, l.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		p.f.SetReadDeadline(time.Unix(1, 0))
		close(fired)
	})
	line, err := p.r.ReadString('\n')
	if !stop() {
		<-fired
		p.f.SetReadDeadline(time.Time{})
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	return line, err
}

func (p *promptInput) close() {
	if p.f != nil {
		p.f.Close()
	}
}

// promptState is what an invocation keeps for its prompts.
type promptState struct {
	_ [0]func() // not comparable: no equality function in the binary

	linesOnce sync.Once
	lines     chan promptLine
}
