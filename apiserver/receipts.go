package apiserver

import (
	"encoding/json"
	"errors"
	"net/http"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/receipt"
)

// GET /v1/order/{id}/receipt → {"receipt": "<compact JWS>"}: the caller's order, live or
// archived, signed with the first receipt key. A terminal order's receipt is the same bytes
// on every call.
func (s *Server) orderReceipt(w http.ResponseWriter, r *http.Request) error {
	o, err := s.findOrder(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	keys, err := receipt.Load(r.Context(), s.opts.Client, s.opts.Namespace)
	if errors.Is(err, receipt.ErrNoKeys) {
		return apierror.New(apierror.Unavailable, "receipts cannot be signed: the service has no receipt signing key yet")
	}
	if err != nil {
		return err
	}
	signed, err := keys.Sign(newReceiptPayload(o, s.opts.Now()))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, wire.Receipt{Receipt: signed})
}

// GET /.well-known/jwks.json → the public keys receipts verify with (empty before the first
// key is made). Verifiers may cache it briefly: a rotated-in key signs receipts at once.
func (s *Server) receiptKeys(w http.ResponseWriter, r *http.Request) error {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{}}
	keys, err := receipt.Load(r.Context(), s.opts.Client, s.opts.Namespace)
	switch {
	case err == nil:
		set = keys.Public()
	case !errors.Is(err, receipt.ErrNoKeys):
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=60")
	return json.NewEncoder(w).Encode(set)
}
