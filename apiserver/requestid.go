package apiserver

import (
	"crypto/rand"
	"encoding/hex"
)

// headerRequestID names the request on both sides: a caller's own id is echoed so its logs
// and ours can be joined; otherwise we make one up.
const headerRequestID = "X-Request-Id"

// maxRequestIDLen bounds an echoed id: it lands in every log line of the request.
const maxRequestIDLen = 128

// requestID is the caller's id when it is a sane token (1–128 of [A-Za-z0-9._:-], nothing a
// log or header could be tricked with), else a new random one.
func requestID(fromCaller string) string {
	if saneRequestID(fromCaller) {
		return fromCaller
	}
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on Linux
	return hex.EncodeToString(b[:])
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := range len(id) {
		switch c := id[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9',
			c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}
