package apiserver

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// A listing's opaque nextCursor is the list position of the last item of a page, JSON sealed
// with the service's keys (internal/tokenkeys): a partner can neither read nor forge one, so only
// positions this service wrote reach a query, and every replica opens every replica's
// cursors. One codec serves GET /v1/orders and GET /v1/webhooks/deliveries; each defines its
// position type and what makes a decoded one sane, checked again after opening.
type cursorPos interface{ valid() bool }

func encodeCursor[P cursorPos](c *tokenkeys.Tokens, p P) string {
	b, _ := json.Marshal(p)
	return c.Seal(b)
}

func decodeCursor[P cursorPos](c *tokenkeys.Tokens, s string) (P, bool) {
	var p P
	b, err := c.Open(s)
	if err != nil {
		return p, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if dec.Decode(&p) != nil || !p.valid() {
		var zero P
		return zero, false
	}
	return p, true
}

// parsePage reads a listing's limit (1–100, def when absent) and cursor (after, nil when
// absent), opened with c.
func parsePage[P cursorPos](c *tokenkeys.Tokens, v url.Values, def int) (limit int, after *P, _ error) {
	limit = def
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxListLimit {
			return def, nil, apierror.Invalid("limit", "must be an integer from 1 to 100")
		}
		limit = n
	}
	if s := v.Get("cursor"); s != "" {
		pos, ok := decodeCursor[P](c, s)
		if !ok {
			return limit, nil, apierror.Invalid("cursor", "must be a nextCursor value from an earlier page")
		}
		after = &pos
	}
	return limit, after, nil
}

// sane order ids and delivery order ids are at most 64 visible ASCII bytes (orderid's format).
func validCursorID(id string) bool { return id != "" && len(id) <= 64 && visibleASCII(id) }
