package consumerapp

import (
	"encoding/json"
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
	resp, err := s.sim.Do(r.Context(), http.MethodPost, "/chain/deposits",
		map[string]string{"depositAddress": *v.DepositAddress, "amount": amount.String()}, nil)
	if err != nil || !resp.OK() {
		writeProblem(w, http.StatusBadGateway, explain("unreachable", "", http.StatusBadGateway))
		return
	}
	var tx struct {
		TxHash string `json:"txHash"`
	}
	_ = json.Unmarshal(resp.Body, &tx)
	if _, p, status := s.call(r.Context(), http.MethodPost, "/v1/order/"+id+"/deposit", map[string]string{"txHash": tx.TxHash}, nil); p != nil {
		writeProblem(w, status, *p)
		return
	}
	s.feeds.pokeOrder(id)
	writeJSON(w, http.StatusAccepted, map[string]string{"txHash": tx.TxHash, "amount": amount.String()})
}
