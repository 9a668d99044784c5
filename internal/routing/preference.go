package routing

import (
	"cmp"
	"math/big"
	"slices"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// Preference is what a quote's best candidate is chosen for.
type Preference string

// The preferences of POST /v1/quote.
const (
	// PreferPrice: the most output (EXACT_INPUT) or the least input (EXACT_OUTPUT); SelectBest.
	PreferPrice Preference = "price"
	// PreferSpeed: the price weighed by how fast the provider settled its orders.
	PreferSpeed Preference = "speed"
	// PreferReliability: the price weighed by the share of the provider's orders that succeeded.
	PreferReliability Preference = "reliability"
)

// Preferences lists every preference, the default first.
var Preferences = []Preference{PreferPrice, PreferSpeed, PreferReliability}

// MinSettled is how many settled orders each candidate's provider needs before speed or
// reliability may choose: fewer say too little about a provider to rank it.
const MinSettled = 5

// Record is what this installation measured of one provider's settled orders (orders that
// ended after their deposit was seen) over the last hour.
type Record struct {
	Settled, Succeeded int64
	// SettleP50 is their median time from deposit seen to outcome.
	SettleP50 time.Duration
}

// Choose returns the index of the best candidate for pref (-1 when there is none) and the
// preference that chose it. Price is SelectBest. Speed and reliability score each candidate
// as value × factor and take the highest score, ties going to SelectBest's order:
//
//   - value is the candidate's price against the best price among the candidates:
//     amountOut ÷ the highest amountOut (EXACT_INPUT), the lowest amountIn ÷ amountIn
//     (EXACT_OUTPUT); 1 for the best price;
//   - speed's factor is the fastest median settle time among the candidates' providers ÷
//     this provider's (1 for the fastest);
//   - reliability's factor is the provider's succeeded ÷ settled orders.
//
// Speed and reliability need MinSettled settled orders of every candidate's provider in
// measured; otherwise price chooses, and says so.
func Choose(pref Preference, swapType swapv1.SwapType, candidates []provider.Quote, measured map[swapv1.ProviderID]Record) (int, Preference) {
	if pref != PreferSpeed && pref != PreferReliability || !everyMeasured(candidates, measured) {
		return SelectBest(swapType, candidates), PreferPrice
	}
	values := priceValues(swapType, candidates)
	fastest := time.Duration(0)
	for i := range candidates {
		p50 := settleTime(measured[candidates[i].ProviderID])
		if i == 0 || p50 < fastest {
			fastest = p50
		}
	}
	best, bestScore := -1, 0.0
	for i := range candidates {
		m := measured[candidates[i].ProviderID]
		factor := float64(m.Succeeded) / float64(m.Settled)
		if pref == PreferSpeed {
			factor = float64(fastest) / float64(settleTime(m))
		}
		score := values[i] * factor
		if best < 0 || score > bestScore ||
			score == bestScore && compareCandidates(swapType, &candidates[i], &candidates[best]) < 0 {
			best, bestScore = i, score
		}
	}
	return best, pref
}

// Choose settles r's Best for pref among its candidates, leaving out those of unavailable
// providers: each of those becomes an error of KindUnavailable saying why (the value), so a
// provider this installation reports UNAVAILABLE is never best, and a quote no other provider
// answered fails. measured is as for the function Choose.
func (r *Result) Choose(pref Preference, swapType swapv1.SwapType, unavailable map[swapv1.ProviderID]string, measured map[swapv1.ProviderID]Record) {
	if len(unavailable) > 0 {
		kept := r.Candidates[:0:0]
		for _, c := range r.Candidates {
			why, out := unavailable[c.ProviderID]
			if !out {
				kept = append(kept, c)
				continue
			}
			r.Errors = append(r.Errors, ProviderError{ProviderID: c.ProviderID, Err: &provider.Error{
				Provider: c.ProviderID, Kind: provider.KindUnavailable, Detail: "GET /v1/providers reports it UNAVAILABLE (" + why + ")"}})
		}
		r.Candidates = kept
		slices.SortStableFunc(r.Errors, func(a, b ProviderError) int { return cmp.Compare(a.ProviderID, b.ProviderID) })
	}
	r.Best, r.BestBy = nil, ""
	if i, by := Choose(pref, swapType, r.Candidates, measured); i >= 0 {
		best := r.Candidates[i]
		r.Best, r.BestBy = &best, by
	}
}

// everyMeasured reports whether every candidate's provider settled MinSettled orders.
func everyMeasured(candidates []provider.Quote, measured map[swapv1.ProviderID]Record) bool {
	for i := range candidates {
		if measured[candidates[i].ProviderID].Settled < MinSettled {
			return false
		}
	}
	return len(candidates) > 0
}

// settleTime is m's median settle time, at least a second, so a ratio of two is defined.
func settleTime(m Record) time.Duration { return max(m.SettleP50, time.Second) }

// priceValues is each candidate's price against the best one, in [0, 1]: its amountOut ÷ the
// highest (EXACT_INPUT), the lowest amountIn ÷ its amountIn (EXACT_OUTPUT). A malformed amount
// is worth 0; an amount of 0 among only zeros is worth 1.
func priceValues(swapType swapv1.SwapType, candidates []provider.Quote) []float64 {
	exactOut := swapType == swapv1.ExactOutput
	amounts := make([]*big.Int, len(candidates))
	var ref *big.Int // the best amount
	for i := range candidates {
		s := candidates[i].AmountOut
		if exactOut {
			s = candidates[i].AmountIn
		}
		n, ok := parseAmount(s)
		if !ok {
			continue
		}
		amounts[i] = n
		if ref == nil || (exactOut && n.Cmp(ref) < 0) || (!exactOut && n.Cmp(ref) > 0) {
			ref = n
		}
	}
	out := make([]float64, len(candidates))
	for i, n := range amounts {
		if n == nil {
			continue
		}
		num, den := n, ref
		if exactOut {
			num, den = ref, n
		}
		out[i] = ratio(num, den)
	}
	return out
}

// ratio is num ÷ den as a float, num ≤ den; 0 ÷ 0 is 1 (equal amounts).
func ratio(num, den *big.Int) float64 {
	if den.Sign() == 0 {
		return 1
	}
	f, _ := new(big.Rat).SetFrac(num, den).Float64()
	return f
}
