package server

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// TestStdioEOFEndsListenStreams: a modern client that closes its input
// while a subscriptions/listen stream is open owes the server nothing and
// is owed nothing on that stream: the stream ends unanswered at the EOF,
// so the drain of the answers still owed does not wait its whole bound
// for it (every stop of a stdio server of ours, demo, serve and proxy,
// took a second more) and gives nothing up.
func TestStdioEOFEndsListenStreams(t *testing.T) {
	var log bytes.Buffer
	tools := func() map[string]any { return map[string]any{"tools": map[string]any{}} }
	srv := New(Options{Era: EraModern, Capabilities: tools, Log: &log, LogPrefix: "test",
		NewSession: func(s *Session) Handler { return &capsHandler{s: s} }})
	cr, sw := io.Pipe() // the server's output
	sr, cw := io.Pipe() // the server's input
	done := make(chan error, 1)
	go func() {
		err := srv.ServeStdio(context.Background(), sr, sw)
		sw.Close()
		done <- err
	}()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(cr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	if _, err := io.WriteString(cw, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":`+meta+`,"notifications":{"toolsListChanged":true}}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for acked := false; !acked; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the server ended before acknowledging the stream\n%s", log.String())
			}
			acked = strings.Contains(l, "notifications/subscriptions/acknowledged")
		case <-deadline:
			t.Fatal("no acknowledgment")
		}
	}
	cw.Close() // EOF, the stream still open
	var after []string
	for l := range lines {
		after = append(after, l)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-deadline:
		t.Fatal("ServeStdio did not return")
	}
	if strings.Contains(log.String(), "unanswered") {
		t.Errorf("the drain waited for the listen stream:\n%s", log.String())
	}
	for _, l := range after {
		if strings.Contains(l, `"id":1`) {
			t.Errorf("the stream was answered after the EOF: %s", l)
		}
	}
}
