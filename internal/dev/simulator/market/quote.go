package market

import (
	"errors"
	"fmt"
	"math/big"
)

// ErrUnsupportedPair: the provider does not route the pair.
var ErrUnsupportedPair = errors.New("pair not supported")

// LimitError: the input is outside the pair's limits. Limit is in the input asset's smallest
// units.
type LimitError struct {
	TooLow bool
	Limit  *big.Int
}

func (e *LimitError) Error() string {
	if e.TooLow {
		return fmt.Sprintf("amount below minimum %s", e.Limit)
	}
	return fmt.Sprintf("amount above maximum %s", e.Limit)
}

// Request asks a provider for a price. Amount is the input (exact input) or the output (exact
// output), in smallest units.
type Request struct {
	From, To    Asset
	Amount      *big.Int
	ExactOutput bool
	// AppFeeBps is what integrators take on top (1Click appFees), part of the input.
	AppFeeBps int64
}

// Result is a priced swap. Fees are reported in the asset they are taken from.
type Result struct {
	AmountIn, AmountOut *big.Int
	// ProtocolFee is in From units; NetworkFee in To units.
	ProtocolFee, NetworkFee *big.Int
	// AppFee is the integrators' share of the input (From units).
	AppFee *big.Int
	// MinIn and MaxIn are the pair's limits in From units.
	MinIn, MaxIn     *big.Int
	EstimatedSeconds int64
}

// Quote prices req on provider p. Exact input: out = (in·(1-fee) in USD - flat fee) at the
// output's price, rounded down. Exact output inverts this, rounding the input up.
func (p Provider) Quote(req Request) (Result, error) {
	if !p.Routes(req.From.Key, req.To.Key) {
		return Result{}, ErrUnsupportedPair
	}
	if req.Amount == nil || req.Amount.Sign() <= 0 {
		return Result{}, &LimitError{TooLow: true, Limit: big.NewInt(1)}
	}
	keep := new(big.Rat).SetFrac64(10000-p.FeeBps-p.SpreadBps[req.To.Key]-req.AppFeeBps, 10000)
	flatUSD := USD(p.NetworkFeeUSD)
	minIn, maxIn := p.LimitsIn(req.From, req.To)
	res := Result{
		MinIn:            minIn,
		MaxIn:            maxIn,
		NetworkFee:       ceil(fromUSD(flatUSD, req.To)),
		EstimatedSeconds: p.EstimatedSeconds,
	}
	if req.ExactOutput {
		res.AmountOut = new(big.Int).Set(req.Amount)
		needUSD := new(big.Rat).Add(toUSD(req.Amount, req.To), flatUSD)
		needUSD.Quo(needUSD, keep)
		res.AmountIn = ceil(fromUSD(needUSD, req.From))
	} else {
		res.AmountIn = new(big.Int).Set(req.Amount)
		outUSD := new(big.Rat).Mul(toUSD(req.Amount, req.From), keep)
		outUSD.Sub(outUSD, flatUSD)
		if outUSD.Sign() <= 0 {
			return Result{}, &LimitError{TooLow: true, Limit: res.MinIn}
		}
		res.AmountOut = floor(fromUSD(outUSD, req.To))
	}
	fee := new(big.Rat).SetFrac64(p.FeeBps, 10000)
	res.ProtocolFee = floor(fee.Mul(fee, new(big.Rat).SetInt(res.AmountIn)))
	appFee := new(big.Rat).SetFrac64(req.AppFeeBps, 10000)
	res.AppFee = floor(appFee.Mul(appFee, new(big.Rat).SetInt(res.AmountIn)))
	switch {
	case res.AmountIn.Cmp(res.MinIn) < 0:
		return Result{}, &LimitError{TooLow: true, Limit: res.MinIn}
	case res.AmountIn.Cmp(res.MaxIn) > 0:
		return Result{}, &LimitError{TooLow: false, Limit: res.MaxIn}
	}
	return res, nil
}

// LimitsIn converts the pair's USD limits into the input asset's smallest units (the minimum
// rounded up, the maximum down).
func (p Provider) LimitsIn(from, to Asset) (minIn, maxIn *big.Int) {
	lim := p.Limits(from, to)
	return ceil(fromUSD(USD(lim.Min), from)), floor(fromUSD(USD(lim.Max), from))
}

// Convert prices amount of from in units of to at list prices, without fees, rounded down.
func Convert(amount *big.Int, from, to Asset) *big.Int {
	return floor(fromUSD(toUSD(amount, from), to))
}

// ValueUSD is amount (smallest units) of a at its list price, in US dollars.
func ValueUSD(amount *big.Int, a Asset) *big.Rat { return toUSD(amount, a) }

func toUSD(amount *big.Int, a Asset) *big.Rat {
	r := new(big.Rat).SetFrac(amount, a.Unit())
	return r.Mul(r, a.price())
}

func fromUSD(usd *big.Rat, a Asset) *big.Rat {
	r := new(big.Rat).Quo(usd, a.price())
	return r.Mul(r, new(big.Rat).SetInt(a.Unit()))
}

func floor(r *big.Rat) *big.Int { return new(big.Int).Quo(r.Num(), r.Denom()) }

func ceil(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
