package apiserver

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/swaprouter/swaprouter/internal/apierror"
)

// A listing's opaque nextCursor is the list position of the last item of a page, JSON in
// base64url. One codec serves GET /v1/orders and GET /v1/webhooks/deliveries; each defines its
// position type and what makes a decoded one sane (a forged cursor is 400, never a panic).
type cursorPos interface{ valid() bool }

func encodeCursor[P cursorPos](p P) string {
	b, _ := json.Marshal(p)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor[P cursorPos](s string) (P, bool) {
	var p P
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &p) != nil || !p.valid() {
		var zero P
		return zero, false
	}
	return p, true
}

// parsePage reads a listing's limit (1–100, def when absent) and cursor (after, nil when absent).
func parsePage[P cursorPos](v url.Values, def int) (limit int, after *P, _ error) {
	limit = def
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxListLimit {
			return def, nil, apierror.Invalid("limit", "must be an integer from 1 to 100")
		}
		limit = n
	}
	if c := v.Get("cursor"); c != "" {
		pos, ok := decodeCursor[P](c)
		if !ok {
			return limit, nil, apierror.Invalid("cursor", "must be a nextCursor value from an earlier page")
		}
		after = &pos
	}
	return limit, after, nil
}

// sane order ids and delivery order ids are at most 64 bytes (orderid's format).
func validCursorID(id string) bool { return id != "" && len(id) <= 64 }
