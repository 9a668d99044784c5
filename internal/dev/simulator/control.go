package simulator

import (
	"net/http"
	"slices"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/fault"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
)

type depositRequest struct {
	DepositAddress string `json:"depositAddress"`
	Amount         string `json:"amount"`
	TxHash         string `json:"txHash,omitempty"`
}

// handleDeposit is POST /chain/deposits.
func (s *Simulator) handleDeposit(w http.ResponseWriter, r *http.Request) {
	var req depositRequest
	if !wire.Decode(w, r, &req) {
		return
	}
	if req.DepositAddress == "" {
		wire.Error(w, http.StatusBadRequest, "depositAddress is required")
		return
	}
	hash, err := s.DepositTx(req.DepositAddress, req.Amount, req.TxHash)
	switch {
	case isUnknown(err):
		wire.Error(w, http.StatusNotFound, err.Error())
	case err != nil:
		wire.Error(w, http.StatusBadRequest, err.Error())
	default:
		wire.JSON(w, http.StatusOK, map[string]string{"txHash": hash})
	}
}

type faultEntry struct {
	fault.Key
	Fault Fault `json:"fault"`
}

type forgetRequest struct {
	Provider       swapv1.ProviderID `json:"provider"`
	DepositAddress string            `json:"depositAddress"`
}

type unfilledRequest struct {
	Provider       swapv1.ProviderID `json:"provider"`
	DepositAddress string            `json:"depositAddress"`
	// UnfilledBps is the share of the input refunded instead of swapped (10000: all).
	UnfilledBps int64 `json:"unfilledBps"`
}

type delayedRequest struct {
	Provider       swapv1.ProviderID `json:"provider"`
	DepositAddress string            `json:"depositAddress"`
	// Steps is how many settlement steps the swap stalls.
	Steps int `json:"steps"`
}

type dcaRequest struct {
	Mode DCAMode `json:"mode"`
}

// mountControl serves:
//
//	GET    /control/stats                      -> Stats
//	GET    /control/quote-signing-key          -> {publicKey} (every 1Click account's, "ed25519:<base58>")
//	GET    /control/faults                     -> [{provider, call, fault}]
//	PUT    /control/faults/{provider}/{call}   body Fault -> 204 (call "*" = every call)
//	DELETE /control/faults/{provider}/{call}   -> 204
//	DELETE /control/faults                     -> 204
//	POST   /control/forget  {provider, depositAddress} -> 204, 404 when unknown
//	POST   /control/restore {provider, depositAddress} -> 204, 404 when not forgotten
//	POST   /control/unfilled {provider, depositAddress, unfilledBps} -> 204, 404 when unknown
//	POST   /control/delayed {provider, depositAddress, steps} -> 204, 404 when unknown
//	PUT    /control/dca {mode: "" | "also" | "only"}   -> 204 (route_B's quote types)
func (s *Simulator) mountControl(mux *http.ServeMux) {
	mux.HandleFunc("GET /control/stats", func(w http.ResponseWriter, _ *http.Request) {
		wire.JSON(w, http.StatusOK, s.Stats())
	})
	mux.HandleFunc("GET /control/quote-signing-key", func(w http.ResponseWriter, _ *http.Request) {
		wire.JSON(w, http.StatusOK, map[string]string{"publicKey": s.QuotePublicKey()})
	})
	mux.HandleFunc("GET /control/faults", func(w http.ResponseWriter, _ *http.Request) {
		out := []faultEntry{}
		for k, f := range s.Faults() {
			out = append(out, faultEntry{Key: k, Fault: f})
		}
		slices.SortFunc(out, func(a, b faultEntry) int {
			if a.Provider != b.Provider {
				return strings.Compare(string(a.Provider), string(b.Provider))
			}
			return strings.Compare(a.Call, b.Call)
		})
		wire.JSON(w, http.StatusOK, out)
	})
	mux.HandleFunc("PUT /control/faults/{provider}/{call}", func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.providerParam(w, r)
		if !ok {
			return
		}
		var f Fault
		if !wire.Decode(w, r, &f) {
			return
		}
		s.SetFault(p, r.PathValue("call"), f)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /control/faults/{provider}/{call}", func(w http.ResponseWriter, r *http.Request) {
		p, ok := s.providerParam(w, r)
		if !ok {
			return
		}
		s.SetFault(p, r.PathValue("call"), Fault{})
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("DELETE /control/faults", func(w http.ResponseWriter, _ *http.Request) {
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /control/forget", func(w http.ResponseWriter, r *http.Request) {
		var req forgetRequest
		if !wire.Decode(w, r, &req) {
			return
		}
		if !s.Forget(req.Provider, req.DepositAddress) {
			wire.Error(w, http.StatusNotFound, "provider does not know this deposit address")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /control/unfilled", func(w http.ResponseWriter, r *http.Request) {
		var req unfilledRequest
		if !wire.Decode(w, r, &req) {
			return
		}
		if req.UnfilledBps < 0 || req.UnfilledBps > 10000 {
			wire.Error(w, http.StatusBadRequest, "unfilledBps must be within 0..10000")
			return
		}
		if !s.SetUnfilled(req.Provider, req.DepositAddress, req.UnfilledBps) {
			wire.Error(w, http.StatusNotFound, "provider does not know this deposit address")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /control/delayed", func(w http.ResponseWriter, r *http.Request) {
		var req delayedRequest
		if !wire.Decode(w, r, &req) {
			return
		}
		if req.Steps < 0 || req.Steps > 1000 {
			wire.Error(w, http.StatusBadRequest, "steps must be within 0..1000")
			return
		}
		if !s.SetDelayed(req.Provider, req.DepositAddress, req.Steps) {
			wire.Error(w, http.StatusNotFound, "provider does not know this deposit address")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("PUT /control/dca", func(w http.ResponseWriter, r *http.Request) {
		var req dcaRequest
		if !wire.Decode(w, r, &req) {
			return
		}
		if !slices.Contains([]DCAMode{DCANone, DCAAlso, DCAOnly}, req.Mode) {
			wire.Error(w, http.StatusBadRequest, `mode must be "", "also" or "only"`)
			return
		}
		s.SetDCA(req.Mode)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /control/restore", func(w http.ResponseWriter, r *http.Request) {
		var req forgetRequest
		if !wire.Decode(w, r, &req) {
			return
		}
		if !s.Restore(req.Provider, req.DepositAddress) {
			wire.Error(w, http.StatusNotFound, "provider has no forgotten order at this deposit address")
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

func (s *Simulator) providerParam(w http.ResponseWriter, r *http.Request) (swapv1.ProviderID, bool) {
	p := swapv1.ProviderID(r.PathValue("provider"))
	if !slices.Contains(s.providers, p) {
		wire.Error(w, http.StatusNotFound, "unknown provider")
		return "", false
	}
	return p, true
}
