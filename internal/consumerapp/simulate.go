package consumerapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
)

// POST /api/orders/{id}/simulate-deposit {part: "full"|"partial"}: in the dev system, sends
// the deposit on the simulated chain (half the amount for "partial", which the provider
// refunds) and passes its hash on to /v1 as a deposit hint, so a person can walk a whole swap
// in the browser.
func (s *Server) simulateDeposit(w http.ResponseWriter, r *http.Request, sid string) {
	if s.opts.SimulatorURL == "" {
		writeProblem(w, http.StatusNotFound, explain("simulator unavailable", "", http.StatusNotFound))
		return
	}
	id, ok := s.owned(w, r, sid)
	if !ok {
		return
	}
	var req struct {
		Part string `json:"part"`
	}
	if !decodeBody(w, r, &req) {
		return
	}
	v, _ := s.recent.get(sid, id)
	amount, ok := new(big.Int).SetString(v.Amount, 10)
	if !ok || v.DepositAddress == nil {
		writeProblem(w, http.StatusConflict, Problem{Code: "no deposit address", Message: "This swap has no deposit address yet.", Action: "Wait a moment and try again."})
		return
	}
	if req.Part == "partial" {
		amount.Div(amount, big.NewInt(2))
	}
	txHash, err := s.chainDeposit(r.Context(), *v.DepositAddress, amount.String())
	if err != nil {
		writeProblem(w, http.StatusBadGateway, explain("unreachable", "", http.StatusBadGateway))
		return
	}
	if p, status := s.submitDeposit(r.Context(), id, txHash); p != nil {
		writeProblem(w, status, *p)
		return
	}
	s.feeds.pokeOrder(id)
	writeJSON(w, http.StatusAccepted, map[string]string{"txHash": txHash, "amount": amount.String()})
}

// chainDeposit sends amount to depositAddress on the simulated chain (not /v1: no partner
// key), and returns the transaction's hash.
func (s *Server) chainDeposit(ctx context.Context, depositAddress, amount string) (string, error) {
	body, _ := json.Marshal(map[string]string{"depositAddress": depositAddress, "amount": amount})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.opts.SimulatorURL+"/chain/deposits", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := s.retrier.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return "", fmt.Errorf("POST /chain/deposits: status %d", resp.StatusCode)
	}
	var tx struct {
		TxHash string `json:"txHash"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&tx)
	return tx.TxHash, nil
}
