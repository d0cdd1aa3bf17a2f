package transport

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// helperEnv names the helper a re-executed test binary runs.
const helperEnv = "MCPWIRE_TEST_HELPER"

// helpers are the child processes the tests start: the test binary itself,
// re-executed with MCPWIRE_TEST_HELPER set.
var helpers = map[string]func() int{
	"echo":        helperEcho,
	"jsonecho":    helperJSONEcho,
	"ignore-term": helperIgnoreTerm,
	"mute":        helperMute,
	"grandchild":  helperGrandchild,
	"garbage":     helperGarbage,
	"exit3":       helperExit3,
	"env":         helperEnvDump,
	"wait-stdin":  helperWaitStdin,
	"big":         helperBig,
	"bigline":     helperBigLine,
	"endless":     helperEndless,
}

func TestMain(m *testing.M) {
	if name, ok := os.LookupEnv(helperEnv); ok {
		h := helpers[name]
		if h == nil {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
			os.Exit(2)
		}
		os.Exit(h())
	}
	os.Exit(m.Run())
}

// helperStdio returns a Stdio that runs the named helper with the host
// environment filtered by ChildEnv.
func helperStdio(t testing.TB, name string, env map[string]string) *Stdio {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if env == nil {
		env = map[string]string{}
	}
	env[helperEnv] = name
	// Under -cover the helper (this binary) writes its coverage where
	// GOCOVERDIR says, or warns on stderr, which tests of the stderr
	// tail read: give it a folder (ChildEnv passes no such variable).
	if _, ok := env["GOCOVERDIR"]; !ok {
		env["GOCOVERDIR"] = cmp.Or(os.Getenv("GOCOVERDIR"), t.TempDir())
	}
	return &Stdio{Command: exe, Env: ChildEnv(os.Environ(), env)}
}

func notify(w io.Writer, method string, params any) {
	req, err := jsonrpc.NewRequest(jsonrpc.ID{}, method, params)
	if err != nil {
		panic(err)
	}
	b, _ := jsonrpc.EncodeMessage(req)
	w.Write(append(b, '\n'))
}

// helperEcho echoes lines: the floor of the benchmarks.
func helperEcho() int {
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		w.Write(line)
		if err == bufio.ErrBufferFull {
			continue
		}
		if r.Buffered() == 0 {
			w.Flush()
		}
		if err != nil {
			w.Flush()
			return 0
		}
	}
}

// helperJSONEcho answers each request with its params as result.
func helperJSONEcho() int {
	r := jsonscan.NewLineReader(os.Stdin)
	var out []byte
	for {
		line, err := r.ReadLine()
		if len(line) > 0 {
			msgs, derr := jsonrpc.DecodeMessage(line)
			if derr != nil {
				fmt.Fprintln(os.Stderr, "jsonecho:", derr)
				return 1
			}
			out = out[:0]
			for _, m := range msgs {
				req, ok := m.(*jsonrpc.Request)
				if !ok || req.IsNotification() {
					continue
				}
				result := req.Params
				if result == nil {
					result = json.RawMessage("null")
				}
				out, _ = jsonrpc.AppendMessage(out, &jsonrpc.Response{ID: req.ID, Result: result})
				out = append(out, '\n')
			}
			if _, werr := os.Stdout.Write(out); werr != nil {
				return 1
			}
			if cap(out) > 1<<20 {
				out = nil
			}
		}
		if err != nil {
			return 0
		}
	}
}

// bigText is the size of the text that helperBig answers with.
const bigText = 8 << 20

// helperBig answers each request line with a prebuilt response of an 8 MiB
// text result, splicing in the request's id as it finds it, with no JSON
// work: the floor and the call benchmarks of one 8 MiB result share it.
func helperBig() int {
	head := []byte(`{"jsonrpc":"2.0","id":`)
	tail := []byte(`,"result":{"content":[{"type":"text","text":"`)
	tail = append(tail, bytes.Repeat([]byte("x"), bigText)...)
	tail = append(tail, "\"}]}}\n"...)
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	var out []byte
	for {
		line, err := r.ReadSlice('\n')
		if i := bytes.Index(line, []byte(`"id":`)); i >= 0 && err == nil {
			id := line[i+len(`"id":`):]
			if j := bytes.IndexAny(id, ",}"); j >= 0 {
				id = id[:j]
			}
			out = append(append(out[:0], head...), id...)
			if _, werr := os.Stdout.Write(out); werr != nil {
				return 1
			}
			if _, werr := os.Stdout.Write(tail); werr != nil {
				return 1
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			return 0
		}
	}
}

// helperIgnoreTerm ignores SIGTERM and the end of stdin: only SIGKILL ends it.
func helperIgnoreTerm() int {
	signal.Ignore(syscall.SIGTERM)
	notify(os.Stdout, "ready", map[string]int{"pid": os.Getpid()})
	io.Copy(io.Discard, os.Stdin)
	select {}
}

// helperMute ignores SIGTERM and stdin's end, and never writes: a
// server hanging at its start.
func helperMute() int {
	signal.Ignore(syscall.SIGTERM)
	io.Copy(io.Discard, os.Stdin)
	select {}
}

// helperGrandchild starts a grandchild that ignores SIGTERM, reports its
// pid, and exits by itself when stdin ends, leaving the grandchild behind.
func helperGrandchild() int {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"=ignore-term")
	cmd.Stdout = os.Stdout // its "ready" goes to our client
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// helperGarbage prints lines that are not JSON-RPC around one that is.
func helperGarbage() int {
	fmt.Print("hello, this is not json\n{\"broken\": \n\n")
	notify(os.Stdout, "good", nil)
	fmt.Print("\x1b[31mred\x1b[0m\n")
	return 0
}

// helperExit3 writes 200 KiB of numbered lines to stderr and exits 3.
func helperExit3() int {
	w := bufio.NewWriter(os.Stderr)
	for i := 0; i < 200<<10/20; i++ {
		fmt.Fprintf(w, "line %013d\n", i) // 19+1 bytes
	}
	w.WriteString("\x1b[2Jthe end\n")
	w.Flush()
	return 3
}

// helperEnvDump reports its environment and working directory.
func helperEnvDump() int {
	wd, _ := os.Getwd()
	notify(os.Stdout, "env", map[string]any{"env": os.Environ(), "cwd": wd})
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// helperWaitStdin says nothing and exits when stdin ends.
func helperWaitStdin() int {
	io.Copy(io.Discard, os.Stdin)
	return 0
}
