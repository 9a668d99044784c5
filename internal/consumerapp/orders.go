package consumerapp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/swaprouter/swaprouter/internal/address"
)

// order is the /v1 order record (fields the page shows).
type order struct {
	ID               string          `json:"id"`
	Status           string          `json:"status"`
	StatusReason     *string         `json:"statusReason"`
	ProviderID       string          `json:"providerId"`
	OriginAsset      string          `json:"originAsset"`
	DestinationAsset string          `json:"destinationAsset"`
	Amount           string          `json:"amount"`
	Sender           string          `json:"sender"`
	Recipient        string          `json:"recipient"`
	RefundTo         *string         `json:"refundTo"`
	DepositAddress   *string         `json:"depositAddress"`
	DepositMemo      *string         `json:"depositMemo"`
	DepositDeadline  *string         `json:"depositDeadline"`
	Quote            json.RawMessage `json:"quote"`
	InTxHashes       []string        `json:"inTxHashes"`
	OutTxHashes      []string        `json:"outTxHashes"`
	AmountIn         *string         `json:"amountIn"`
	AmountOut        *string         `json:"amountOut"`
	RefundedAmount   *string         `json:"refundedAmount"`
	CreatedAt        string          `json:"createdAt"`
	UpdatedAt        string          `json:"updatedAt"`
	History          []struct {
		Seq    int     `json:"seq"`
		Status string  `json:"status"`
		Reason *string `json:"reason"`
		At     string  `json:"at"`
	} `json:"history"`
}

// orderView is an order with what the page says about it.
type orderView struct {
	order
	StatusText string `json:"statusText"`
	ReasonText string `json:"reasonText"`
	Terminal   bool   `json:"terminal"`
	// OutTxLinks are explorer links of the destination-chain transactions.
	OutTxLinks []txLink `json:"outTxLinks"`
}

type txLink struct {
	Hash string `json:"hash"`
	URL  string `json:"url,omitempty"`
}

func terminal(status string) bool {
	return status == "SUCCESS" || status == "REFUNDED" || status == "FAILED"
}

// view dresses o for the page; destChain is the destination asset's chain key, realChains
// whether its transactions are on the real chains (see txLinks).
func view(o order, destChain string, realChains bool) orderView {
	v := orderView{order: o, StatusText: statusText(o.Status), Terminal: terminal(o.Status),
		OutTxLinks: txLinks(destChain, o.OutTxHashes, realChains)}
	if o.StatusReason != nil {
		v.ReasonText = reasonText(*o.StatusReason)
	}
	return v
}

var orderIDPattern = regexp.MustCompile(`^ord_[a-z2-7]{26}$`)

// POST /api/orders: checks the addresses against their chains, then creates the /v1 order
// with an Idempotency-Key derived from the page's, so a retry (ours or the user's) never
// makes a second deposit address.
func (s *Server) createOrder(w http.ResponseWriter, r *http.Request, sid string) {
	var req struct {
		OriginAsset      string `json:"originAsset"`
		DestinationAsset string `json:"destinationAsset"`
		Amount           string `json:"amount"`
		ProviderID       string `json:"providerId"`
		Sender           string `json:"sender"`
		Recipient        string `json:"recipient"`
		RefundTo         string `json:"refundTo"`
		IdempotencyKey   string `json:"idempotencyKey"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	from, okFrom := s.assets.lookup(r.Context(), req.OriginAsset)
	to, okTo := s.assets.lookup(r.Context(), req.DestinationAsset)
	if !okFrom || !okTo {
		writeProblem(w, http.StatusBadRequest, explain("unknown originAsset/destinationAsset", "", http.StatusBadRequest))
		return
	}
	for _, f := range []struct{ field, chain, addr string }{
		{"sender", from.Chain, req.Sender}, {"recipient", to.Chain, req.Recipient}, {"refundTo", from.Chain, req.RefundTo},
	} {
		if f.field == "refundTo" && f.addr == "" {
			continue // the provider refunds to the sender
		}
		if err := address.Check(f.chain, f.addr); err != nil {
			p := explain("invalid address", err.Error(), http.StatusBadRequest)
			p.Field = f.field
			writeProblem(w, http.StatusBadRequest, p)
			return
		}
	}
	body := map[string]any{
		"originAsset": req.OriginAsset, "destinationAsset": req.DestinationAsset, "amount": req.Amount,
		"swapType": "EXACT_INPUT", "providerId": req.ProviderID, "sender": req.Sender, "recipient": req.Recipient,
	}
	if req.RefundTo != "" {
		body["refundTo"] = req.RefundTo
	}
	key := sha256.Sum256([]byte(sid + "\x00" + req.IdempotencyKey))
	resp, p, status := s.call(r.Context(), http.MethodPost, "/v1/order", body, http.Header{"Idempotency-Key": {"app-" + hex.EncodeToString(key[:16])}})
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	var o order
	if err := json.Unmarshal(resp.Body, &o); err != nil || !orderIDPattern.MatchString(o.ID) {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	v := view(o, to.Chain, s.opts.ExplorerLinks)
	s.recent.add(sid, v)
	writeJSON(w, http.StatusCreated, v)
}

// fetchOrder reads the user's order from /v1 and remembers the latest view.
func (s *Server) fetchOrder(r *http.Request, sid, id string) (orderView, *Problem, int) {
	v, p, status := s.readOrder(r.Context(), id)
	if p == nil {
		s.recent.update(sid, v)
	}
	return v, p, status
}

// readOrder reads an order from /v1 as the page shows it.
func (s *Server) readOrder(ctx context.Context, id string) (orderView, *Problem, int) {
	resp, p, status := s.call(ctx, http.MethodGet, "/v1/order/"+id, nil, nil)
	if p != nil {
		return orderView{}, p, status
	}
	var o order
	if err := json.Unmarshal(resp.Body, &o); err != nil {
		pr := explain("upstream error", "", http.StatusBadGateway)
		return orderView{}, &pr, http.StatusBadGateway
	}
	to, _ := s.assets.lookup(ctx, o.DestinationAsset)
	return view(o, to.Chain, s.opts.ExplorerLinks), nil, http.StatusOK
}

// owned answers 404 for an order this session did not create: ids are unguessable, and this
// keeps one user's swaps away from another's page all the same.
func (s *Server) owned(w http.ResponseWriter, r *http.Request, sid string) (string, bool) {
	id := r.PathValue("id")
	if !orderIDPattern.MatchString(id) || !s.recent.owns(sid, id) {
		writeProblem(w, http.StatusNotFound, explain("order not found", "", http.StatusNotFound))
		return "", false
	}
	return id, true
}

// GET /api/orders/{id}
func (s *Server) getOrder(w http.ResponseWriter, r *http.Request, sid string) {
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	v, p, status := s.fetchOrder(r, sid, id)
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// GET /api/orders/{id}/receipt: the order's signed receipt, the compact JWS /v1 issues, as a
// file the user keeps.
func (s *Server) orderReceipt(w http.ResponseWriter, r *http.Request, sid string) {
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	resp, p, status := s.call(r.Context(), http.MethodGet, "/v1/order/"+id+"/receipt", nil, nil)
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	var body struct {
		Receipt string `json:"receipt"`
	}
	if json.Unmarshal(resp.Body, &body) != nil || body.Receipt == "" {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	w.Header().Set("Content-Type", "application/jose")
	w.Header().Set("Content-Disposition", `attachment; filename="receipt-`+id+`.jws"`)
	_, _ = w.Write([]byte(body.Receipt))
}

// GET /api/orders → {orders}: the session's recent orders, newest first, as last seen.
func (s *Server) listOrders(w http.ResponseWriter, _ *http.Request, sid string) {
	writeJSON(w, http.StatusOK, map[string]any{"orders": s.recent.list(sid)})
}

// POST /api/orders/{id}/deposit {txHash}: the user's deposit hint, passed on to /v1.
func (s *Server) depositHint(w http.ResponseWriter, r *http.Request, sid string) {
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	var req struct {
		TxHash string `json:"txHash"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	if req.TxHash == "" {
		writeProblem(w, http.StatusBadRequest, explain("invalid request", "enter the transaction hash of your deposit", http.StatusBadRequest))
		return
	}
	_, p, status := s.call(r.Context(), http.MethodPost, "/v1/order/"+id+"/deposit", req, nil)
	if p != nil {
		writeProblem(w, status, *p)
		return
	}
	s.feeds.pokeOrder(id)
	writeJSON(w, http.StatusAccepted, map[string]any{"txHash": req.TxHash})
}
