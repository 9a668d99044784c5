// Package venue is what both simulated protocols share: one provider's economics, its orders,
// the settlement speed, and the steps every protocol performs the same way (pricing a request,
// opening an order with chain-shaped addresses, evaluating its progress and logging
// transitions). The protocol packages only translate wire formats.
package venue

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strconv"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/chainaddr"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
)

// Route is one endpoint of a protocol; Call names it for faults and stats.
type Route struct {
	// Pattern is a net/http ServeMux pattern relative to the provider's prefix, e.g. "GET /v0/tokens".
	Pattern string
	Call    string
	Handler http.HandlerFunc
}

// Venue is one simulated provider.
type Venue struct {
	Provider market.Provider
	Book     *ledger.Book
	Timing   settlement.Timing
	// DepositWindow is how long after creation a deposit is accepted.
	DepositWindow time.Duration
	// Seed makes addresses and hashes reproducible across runs.
	Seed string
	// Token, when set, is the bearer token the provider requires.
	Token string
	Now   func() time.Time
	Log   *slog.Logger
}

// Price runs the provider's quote for asset keys and an amount string.
func (v *Venue) Price(from, to market.Asset, amount string, exactOutput bool, appFeeBps int64) (market.Result, error) {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok || n.Sign() <= 0 {
		return market.Result{}, fmt.Errorf("amount %q is not a positive integer", amount)
	}
	return v.Provider.Quote(market.Request{From: from, To: to, Amount: n, ExactOutput: exactOutput, AppFeeBps: appFeeBps})
}

// OpenRequest is what a protocol knows when it opens an order.
type OpenRequest struct {
	From, To          market.Asset
	Priced            market.Result
	ExactOutput       bool
	Recipient         string
	RefundTo          string
	RequestedDeadline time.Time
	// Deadline, when set, is the order's deadline as the protocol fixes it, window or not
	// (Relay refunds what is not filled within the quote's ttl).
	Deadline time.Time
	// MinAmountIn, when set (1Click's FLEX_INPUT), makes any deposits adding up to at least
	// this much be swapped whole at the quoted rate.
	MinAmountIn *big.Int
	// SingleDeposit: only the first deposit belongs to the order (Relay's strict addresses).
	SingleDeposit bool
	// Address, when set, is the order's deposit address instead of a fresh one (Relay's open
	// addresses belong to their route).
	Address string
	// ChannelID builds the provider's own reference from the book's sequence number; nil
	// when the protocol identifies orders by deposit address.
	ChannelID func(seq int) string
	// Payload builds protocol data saved with the order, given the order as built.
	Payload func(o ledger.Order) any
}

// Open creates a new order, as the real providers do on every call. The deadline is the
// protocol's own when it fixes one, else the requested one capped by the deposit window.
func (v *Venue) Open(req OpenRequest) ledger.Order {
	return v.Book.Open(v.Provider.ID, func(seq int) ledger.Order {
		now := v.Now()
		deadline := now.Add(v.DepositWindow)
		switch {
		case !req.Deadline.IsZero():
			deadline = req.Deadline
		case !req.RequestedDeadline.IsZero() && req.RequestedDeadline.Before(deadline):
			deadline = req.RequestedDeadline
		}
		// The sequence alone would repeat after a restart of the simulator; the clock keeps
		// addresses of different runs apart.
		salt := "seq:" + strconv.Itoa(seq) + "@" + strconv.FormatInt(now.UnixNano(), 10)
		addr := req.Address
		if addr == "" {
			addr = chainaddr.Address(req.From.Chain, v.Seed, string(v.Provider.ID), salt)
		}
		terms := settlement.Terms{
			ExpectedIn: req.Priced.AmountIn, QuotedOut: req.Priced.AmountOut,
			ExactOutput: req.ExactOutput, Deadline: deadline, SingleDeposit: req.SingleDeposit,
		}
		if m := req.MinAmountIn; m != nil {
			out := new(big.Int).Mul(req.Priced.AmountOut, m)
			terms.ExpectedIn, terms.QuotedOut, terms.KeepExcess = m, out.Quo(out, req.Priced.AmountIn), true
		}
		o := ledger.Order{
			Provider: v.Provider.ID, DepositAddress: addr,
			From: req.From, To: req.To, Recipient: req.Recipient, RefundTo: req.RefundTo, CreatedAt: now,
			Terms:        terms,
			OutTxHash:    chainaddr.TxHash(req.To.Chain, v.Seed, addr, "out"),
			RefundTxHash: chainaddr.TxHash(req.From.Chain, v.Seed, addr, "refund"),
		}
		if req.ChannelID != nil {
			o.ChannelID = req.ChannelID(seq)
		}
		if req.Payload != nil {
			// JSON, so the book can persist it; the protocol's own types always encode.
			o.Payload, _ = json.Marshal(req.Payload(o))
		}
		v.Log.Info("deposit address created", "provider", v.Provider.ID, "recipient", req.Recipient,
			"depositAddress", addr, "from", req.From.Key, "to", req.To.Key,
			"expectedIn", req.Priced.AmountIn.String(), "deadline", deadline.Format(time.RFC3339))
		return o
	})
}

// Progress evaluates the order now and logs a phase it has not logged before.
func (v *Venue) Progress(o ledger.Order) settlement.Progress {
	p := settlement.Evaluate(o.Terms, o.Deposits, v.Now(), v.Timing)
	if v.Book.ObservePhase(o.DepositAddress, p.Phase) {
		v.Log.Info("order progressed", "provider", v.Provider.ID, "depositAddress", o.DepositAddress,
			"phase", p.Phase.String(), "refundReason", p.RefundReason)
	}
	return p
}

// Slippage applies a tolerance in basis points to an amount, rounding down.
func Slippage(amount *big.Int, bps int64) *big.Int {
	bps = min(max(bps, 0), 10000)
	out := new(big.Int).Mul(amount, big.NewInt(10000-bps))
	return out.Quo(out, big.NewInt(10000))
}
