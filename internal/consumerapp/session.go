package consumerapp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
)

// sessionCookie names the end user's session: it keys their throttle bucket and their recent
// orders. It carries no authority towards /v1 (the partner key stays on the server).
const sessionCookie = "swapapp_session"

// csrfHeader carries the token a POST must present; only script of this origin can read it.
const csrfHeader = "X-CSRF-Token"

// session returns the request's session id, issuing a new cookie when it has none.
func session(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil && validSessionID(c.Value) {
		return c.Value
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
		SameSite: http.SameSiteStrictMode, MaxAge: 30 * 24 * 3600,
	})
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: id})
	return id
}

func validSessionID(s string) bool {
	if len(s) != 32 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// csrfToken binds a token to the session with the server's key (HMAC), so it needs no storage.
func csrfToken(key []byte, sid string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("csrf:" + sid))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// sameOrigin decides whether a state-changing request comes from this app's own page: the
// token must match, and a browser's Origin and Sec-Fetch-Site, when sent, must name this host.
func sameOrigin(origin, fetchSite, host, token, want string) bool {
	if token == "" || !hmac.Equal([]byte(token), []byte(want)) {
		return false
	}
	if fetchSite != "" && fetchSite != "same-origin" {
		return false
	}
	if origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Host != host {
			return false
		}
	}
	return true
}
