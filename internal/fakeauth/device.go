package fakeauth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// device is one device authorization.
type device struct {
	userCode, scope string
	status          string // pending, approved, denied
	polls           int
}

// deviceAuthorization answers a device authorization request (RFC 8628
// section 3.2) of the registered client.
func (f *Server) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.Mu.Lock()
	defer f.Mu.Unlock()
	if !f.Device || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if r.PostForm.Get("client_id") != "client-1" || r.PostForm.Get("client_secret") != "csecret-"+Leak {
		w.WriteHeader(http.StatusUnauthorized)
		writeJSON(w, map[string]any{"error": "invalid_client"})
		return
	}
	f.n++
	code, user := fmt.Sprintf("dc-%s-%d", Leak, f.n), fmt.Sprintf("BDWP-%04d", f.n)
	if f.UserCode != "" {
		user = f.UserCode
	}
	f.devices[code] = &device{userCode: user, scope: r.PostForm.Get("scope"), status: "pending"}
	f.UserCodes = append(f.UserCodes, user)
	uri := f.URL + "/device"
	if f.VerificationURI != "" {
		uri = f.VerificationURI
	}
	interval, expires := f.DeviceInterval, f.DeviceExpiresIn
	if interval == 0 {
		interval = 1
	}
	if expires == 0 {
		expires = 600
	}
	writeJSON(w, map[string]any{"device_code": code, "user_code": user, "verification_uri": uri,
		"verification_uri_complete": uri + "?user_code=" + url.QueryEscape(user), "expires_in": expires, "interval": interval})
}

// verify is the verification page, as a person's browser posts its
// form: user_code and action (approve or deny).
func (f *Server) verify(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	f.Mu.Lock()
	defer f.Mu.Unlock()
	for _, d := range f.devices {
		if d.userCode == r.PostForm.Get("user_code") && d.status == "pending" {
			switch r.PostForm.Get("action") {
			case "approve":
				d.status = "approved"
			case "deny":
				d.status = "denied"
			}
			fmt.Fprintln(w, "You can go back to your device.")
			return
		}
	}
	http.Error(w, "no such code", http.StatusNotFound)
}

// devicePoll answers a poll of the token endpoint (RFC 8628 section
// 3.5), with f.Mu held: the scopes of an approved code, or the error
// answer written and false.
func (f *Server) devicePoll(w http.ResponseWriter, r *http.Request) ([]string, bool) {
	f.DevicePolls++
	d, ok := f.devices[r.PostForm.Get("device_code")]
	answer := ""
	if ok {
		d.polls++
	}
	switch {
	case !ok:
		answer = "invalid_grant"
	case d.polls == f.SlowDownAt:
		answer = "slow_down"
	case d.status == "pending":
		answer = "authorization_pending"
	case d.status == "denied":
		answer = "access_denied"
	}
	if answer == "authorization_pending" {
		select {
		case f.polled <- struct{}{}:
		default:
		}
	}
	if answer != "" {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": answer})
		return nil, false
	}
	delete(f.devices, r.PostForm.Get("device_code"))
	return strings.Fields(d.scope), true
}

// Polled is told (once, whatever the number since) when a poll of the
// token endpoint was answered authorization_pending: the code is shown
// and login waits for the person.
func (f *Server) Polled() <-chan struct{} { return f.polled }

// Act posts the verification page's form at f as a person's browser
// would, for the last user code handed out: action is approve or deny.
func (f *Server) Act(action string) error {
	f.Mu.Lock()
	var user string
	if n := len(f.UserCodes); n > 0 {
		user = f.UserCodes[n-1]
	}
	f.Mu.Unlock()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.PostForm(f.URL+"/device", url.Values{"user_code": {user}, "action": {action}})
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fakeauth: the verification page answered %d", resp.StatusCode)
	}
	return nil
}
