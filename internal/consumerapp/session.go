package consumerapp

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// sessionCookie names the end user's session: it keys their throttle bucket and their recent
// orders. It carries no authority towards /v1 (the partner key stays on the server).
const sessionCookie = "swapapp_session"

// csrfHeader carries the token a POST must present; only script of this origin can read it.
const csrfHeader = "X-CSRF-Token"

// session returns the request's session id: the one its cookie carries when this server
// issued it (the cookie is id.mac), else a new one in a new cookie. An id the server did not
// sign is never adopted, so nobody can plant a known id on a browser (fixation).
func (s *Server) session(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if id, ok := openSession(s.key, c.Value); ok {
			return id
		}
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	id := hex.EncodeToString(b)
	_, https := s.proxies.client(r)
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: sealSession(s.key, id), Path: "/", HttpOnly: true, Secure: https,
		SameSite: http.SameSiteStrictMode, MaxAge: 30 * 24 * 3600,
	})
	return id
}

// sealSession is the cookie value of session id: the id and its HMAC under the server's key.
func sealSession(key []byte, id string) string {
	return id + "." + mac(key, "session:"+id)
}

// openSession returns the id of a cookie value sealSession made with key.
func openSession(key []byte, value string) (string, bool) {
	id, sum, ok := strings.Cut(value, ".")
	if !ok || len(id) != 32 {
		return "", false
	}
	if _, err := hex.DecodeString(id); err != nil || !hmac.Equal([]byte(sum), []byte(mac(key, "session:"+id))) {
		return "", false
	}
	return id, true
}

func mac(key []byte, msg string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msg))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrfToken binds a token to the session with the server's key (HMAC), so it needs no storage.
func csrfToken(key []byte, sid string) string { return mac(key, "csrf:"+sid) }

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
