package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/auth"
)

// eventTokenTTL is how long a POST /v1/events/token token opens streams.
const eventTokenTTL = 5 * time.Minute

// eventToken is what a stream token seals: the key it stands for, until when. Sealed with
// its own purpose, it opens nothing but GET /v1/events.
type eventToken struct {
	KeyID   string `json:"k"`
	Partner string `json:"p"`
	Expires int64  `json:"e"`
}

// POST /v1/events/token → a token for GET /v1/events?token=, for EventSource, which cannot
// send the key's headers.
func (s *Server) issueEventToken(w http.ResponseWriter, r *http.Request) error {
	p := principal(r.Context())
	expires := s.opts.Now().Add(eventTokenTTL).Truncate(time.Second)
	raw, _ := json.Marshal(eventToken{KeyID: p.KeyID, Partner: p.Partner.Name, Expires: expires.Unix()})
	return writeJSON(w, http.StatusOK, wire.EventsToken{Token: s.eventTokens.Seal(raw), ExpiresAt: timestamp(expires)})
}

// tokenHolder is the caller a stream token stands for: auth.ErrUnauthorized when it is not
// one this service issued, has expired, or its key is gone or its partner changed.
func (s *Server) tokenHolder(ctx context.Context, token string) (*auth.Principal, error) {
	raw, err := s.eventTokens.Open(token)
	if err != nil {
		return nil, auth.ErrUnauthorized
	}
	var t eventToken
	if json.Unmarshal(raw, &t) != nil || !s.opts.Now().Before(time.Unix(t.Expires, 0)) {
		return nil, auth.ErrUnauthorized
	}
	p, err := s.auth.Holder(ctx, t.KeyID)
	if err != nil {
		return nil, err
	}
	if p.Partner.Name != t.Partner {
		return nil, auth.ErrUnauthorized
	}
	return p, nil
}
