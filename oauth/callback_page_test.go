package oauth

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mcpwire/mcpwire/internal/hostile"
)

// TestEscaperCallbackPage: the page the loopback callback answers with
// shows an authorization error's words (which whoever sends the browser
// there chooses) as text: no tag, comment, entity or control of theirs
// (issue 20, item 4: the HTML sink).
func TestEscaperCallbackPage(t *testing.T) {
	const head, tail = `<!doctype html><html><head><meta charset="utf-8"><title>mcpwire</title></head><body><p>`, `</p></body></html>`
	for _, h := range hostile.Strings {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		q := url.Values{"state": {"st"}, "error": {"access_denied " + h.S}, "error_description": {h.S}}
		page := make(chan string, 1)
		open := func() error {
			go func() {
				resp, err := http.Get("http://" + ln.Addr().String() + "/callback?" + q.Encode())
				if err != nil {
					page <- err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				page <- string(b)
			}()
			return nil
		}
		_, err = waitCallback(context.Background(), ln, time.Minute, open, callbackCheck{state: "st"})
		if err == nil {
			t.Fatalf("%s: the callback took an error response as a code", h.Name)
		}
		got := <-page
		body, ok := strings.CutPrefix(got, head)
		body, ok2 := strings.CutSuffix(body, tail)
		if !ok || !ok2 {
			t.Fatalf("%s: not the page: %q", h.Name, got)
		}
		if h.Name == "script" && !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("the page does not show the error's words: %q", body)
		}
		if strings.ContainsAny(body, `<>"'`) {
			t.Errorf("%s: markup of the sender's on the page: %q", h.Name, body)
		}
		for _, r := range body {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Errorf("%s: %U on the page: %q", h.Name, r, body)
				break
			}
		}
	}
}

// TestCallbackPathOnly: the loopback listener answers /callback only; a
// request for another path (a browser's /favicon.ico, a probe) gets 404
// and does not end the wait, and the callback after it delivers its code.
func TestCallbackPathOnly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	statuses := make(chan int, 3)
	get := func(u string) {
		resp, err := http.Get(u)
		if err != nil {
			statuses <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		statuses <- resp.StatusCode
	}
	open := func() error {
		go func() {
			get(base + "/favicon.ico")
			get(base + "/callback/x?code=c1&state=st")
			get(base + "/callback?code=c2&state=st")
		}()
		return nil
	}
	code, err := waitCallback(context.Background(), ln, time.Minute, open, callbackCheck{state: "st"})
	if err != nil || code != "c2" {
		t.Fatalf("code %q, %v", code, err)
	}
	for i, want := range []int{http.StatusNotFound, http.StatusNotFound, http.StatusOK} {
		if got := <-statuses; got != want {
			t.Errorf("request %d: status %d, want %d", i, got, want)
		}
	}
}
