package oauth

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// deviceState is one device authorization at the fake server.
type deviceState struct {
	userCode, clientID, scope, resource string
	status                              string // pending, approved, denied, expired
	polls                               int
}

// deviceAuthorization answers a device authorization request (RFC 8628
// section 3.2).
func (f *fakeAS) deviceAuthorization(w http.ResponseWriter, r *http.Request) {
	if r.ParseForm() != nil || r.Method != http.MethodPost {
		tokenErr(w, 400, "invalid_request")
		return
	}
	f.deviceReq = append(f.deviceReq, r.PostForm)
	if f.o.deviceRefuse {
		tokenErr(w, 400, "unauthorized_client")
		return
	}
	clientID := r.PostForm.Get("client_id")
	if id, _, ok := r.BasicAuth(); ok {
		clientID, _ = url.QueryUnescape(id)
	}
	if _, ok := f.clients[clientID]; !ok {
		tokenErr(w, 401, "invalid_client")
		return
	}
	code := f.next("devcode")
	user := fmt.Sprintf("WDJB-%04d", f.n)
	f.devices[code] = &deviceState{userCode: user, clientID: clientID, scope: r.PostForm.Get("scope"), resource: r.PostForm.Get("resource"), status: "pending"}
	uri := f.base + f.ep() + "/device"
	if f.o.deviceURI != "" {
		uri = f.o.deviceURI
	}
	complete := uri + "?user_code=" + user
	if f.o.deviceComplete != "" {
		complete = f.o.deviceComplete
	}
	expires := 600
	if f.o.deviceExpires != 0 {
		expires = f.o.deviceExpires
	}
	resp := map[string]any{"device_code": code, "user_code": user, "verification_uri": uri,
		"verification_uri_complete": complete, "expires_in": expires}
	if f.o.deviceInterval != 0 {
		resp["interval"] = f.o.deviceInterval
	}
	writeJSON(w, 200, resp)
}

// deviceVerify is the verification page, as a person's browser posts
// its form: user_code and action (approve, deny, expire).
func (f *fakeAS) deviceVerify(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	for _, d := range f.devices {
		if d.userCode == r.Form.Get("user_code") {
			switch r.Form.Get("action") {
			case "approve":
				d.status = "approved"
			case "deny":
				d.status = "denied"
			case "expire":
				d.status = "expired"
			}
			fmt.Fprint(w, "done")
			return
		}
	}
	http.Error(w, "no such code", 404)
}

// deviceToken answers a poll of the token endpoint (RFC 8628 section 3.5).
func (f *fakeAS) deviceToken(w http.ResponseWriter, r *http.Request, clientID string) {
	d, ok := f.devices[r.PostForm.Get("device_code")]
	if !ok || d.clientID != clientID || d.resource != r.PostForm.Get("resource") {
		tokenErr(w, 400, "invalid_grant")
		return
	}
	d.polls++
	switch {
	case d.polls == f.o.unavailableAt:
		http.Error(w, "busy", http.StatusServiceUnavailable)
	case d.polls == f.o.slowDownAt:
		tokenErr(w, 400, "slow_down")
	case d.status == "pending":
		tokenErr(w, 400, "authorization_pending")
	case d.status == "denied":
		tokenErr(w, 400, "access_denied")
	case d.status == "expired":
		tokenErr(w, 400, "expired_token")
	default:
		delete(f.devices, r.PostForm.Get("device_code"))
		f.issue(w, strings.Fields(d.scope))
	}
}
