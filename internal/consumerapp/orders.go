package consumerapp

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"

	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/pkg/client"
)

// orderView is an order with what the page says about it.
type orderView struct {
	client.Order
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

func terminal(status client.OrderStatus) bool {
	return status == client.OrderStatusSUCCESS || status == client.OrderStatusREFUNDED || status == client.OrderStatusFAILED
}

// view dresses o for the page; destChain is the destination asset's chain key, realChains
// whether its transactions are on the real chains (see txLinks).
func view(o client.Order, destChain string, realChains bool) orderView {
	v := orderView{Order: o, StatusText: statusText(string(o.Status)), Terminal: terminal(o.Status),
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
	body := client.OrderRequest{OriginAsset: req.OriginAsset, DestinationAsset: req.DestinationAsset, Amount: req.Amount,
		SwapType: new(client.OrderRequestSwapTypeEXACTINPUT), ProviderId: client.ProviderId(req.ProviderID),
		Sender: req.Sender, Recipient: req.Recipient}
	if req.RefundTo != "" {
		body.RefundTo = &req.RefundTo
	}
	key := sha256.Sum256([]byte(sid + "\x00" + req.IdempotencyKey))
	idempotencyKey := "app-" + hex.EncodeToString(key[:16])
	resp, err := s.api.CreateOrderWithResponse(r.Context(), &client.CreateOrderParams{IdempotencyKey: &idempotencyKey}, body)
	if p, status := refused(r.Context(), "POST /v1/order", resp, err); p != nil {
		writeProblem(w, status, *p)
		return
	}
	o := cmp.Or(resp.JSON201, resp.JSON202)
	if o == nil || !orderIDPattern.MatchString(o.Id) {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	v := view(*o, to.Chain, s.opts.ExplorerLinks)
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
	resp, err := s.api.GetOrderWithResponse(ctx, id)
	if p, status := refused(ctx, "GET /v1/order", resp, err); p != nil {
		return orderView{}, p, status
	}
	if resp.JSON200 == nil {
		pr := explain("upstream error", "", http.StatusBadGateway)
		return orderView{}, &pr, http.StatusBadGateway
	}
	to, _ := s.assets.lookup(ctx, resp.JSON200.DestinationAsset)
	return view(*resp.JSON200, to.Chain, s.opts.ExplorerLinks), nil, http.StatusOK
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
	resp, err := s.api.GetOrderReceiptWithResponse(r.Context(), id)
	if p, status := refused(r.Context(), "GET /v1/order/receipt", resp, err); p != nil {
		writeProblem(w, status, *p)
		return
	}
	if resp.JSON200 == nil || resp.JSON200.Receipt == "" {
		writeProblem(w, http.StatusBadGateway, explain("upstream error", "", http.StatusBadGateway))
		return
	}
	w.Header().Set("Content-Type", "application/jose")
	w.Header().Set("Content-Disposition", `attachment; filename="receipt-`+id+`.jws"`)
	_, _ = w.Write([]byte(resp.JSON200.Receipt))
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
	if p, status := s.submitDeposit(r.Context(), id, req.TxHash); p != nil {
		writeProblem(w, status, *p)
		return
	}
	s.feeds.pokeOrder(id)
	writeJSON(w, http.StatusAccepted, map[string]any{"txHash": req.TxHash})
}

// submitDeposit passes the deposit hint txHash of order id on to /v1.
func (s *Server) submitDeposit(ctx context.Context, id, txHash string) (*Problem, int) {
	resp, err := s.api.SubmitDepositWithResponse(ctx, id, client.DepositRequest{TxHash: txHash})
	return refused(ctx, "POST /v1/order/deposit", resp, err)
}
