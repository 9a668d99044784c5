package routing

import (
	"cmp"
	"fmt"
	"math/big"
	"slices"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// NoProviderDetail is the detail of the error when no enabled provider routes a pair.
const NoProviderDetail = "no provider supports this pair"

// SelectBest returns the index of the best candidate, or -1 when there is none: the highest
// amountOut for EXACT_INPUT, the lowest amountIn for EXACT_OUTPUT (an empty swap type is
// EXACT_INPUT); ties go to the shorter estimated time, then to the lower provider id.
// Amounts are compared as integers of any size; a candidate whose deciding amount is not a
// non-negative integer never wins over one whose amount is.
func SelectBest(swapType swapv1.SwapType, candidates []provider.Quote) int {
	best := -1
	for i := range candidates {
		if best < 0 || compareCandidates(swapType, &candidates[i], &candidates[best]) < 0 {
			best = i
		}
	}
	return best
}

// compareCandidates orders a before b (negative) when a is the better quote.
func compareCandidates(swapType swapv1.SwapType, a, b *provider.Quote) int {
	var byAmount int
	if swapType == swapv1.ExactOutput {
		byAmount = compareAmounts(a.AmountIn, b.AmountIn, false)
	} else {
		byAmount = compareAmounts(a.AmountOut, b.AmountOut, true)
	}
	return cmp.Or(byAmount,
		cmp.Compare(a.EstimatedTimeSeconds, b.EstimatedTimeSeconds),
		cmp.Compare(a.ProviderID, b.ProviderID))
}

// compareAmounts is negative when x is preferred: the larger amount when higherIsBetter, the
// smaller otherwise. Malformed amounts are least preferred.
func compareAmounts(x, y string, higherIsBetter bool) int {
	bx, okx := parseAmount(x)
	by, oky := parseAmount(y)
	switch {
	case !okx && !oky:
		return 0
	case !okx:
		return 1
	case !oky:
		return -1
	}
	if higherIsBetter {
		return by.Cmp(bx)
	}
	return bx.Cmp(by)
}

// parseAmount reads a non-negative integer in smallest units.
func parseAmount(s string) (*big.Int, bool) {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Sign() < 0 {
		return nil, false
	}
	return n, true
}

// Failure is the single error to answer with when no provider gave a candidate, nil when one
// did. It is the most telling of the providers' errors, the one that best tells the caller what
// to do: amount_too_low / amount_too_high (they carry the limit; the caller can fix the amount)
// win over an unsupported pair, which wins over any other refusal, which wins over upstream
// errors and timeouts (retry later). Among amount_too_low errors the lowest minimum wins, among
// amount_too_high the highest maximum: the limit that is easiest to satisfy; a provider that
// does not state its limit wins over any stated one, which it may undercut, and its detail says
// so (see unstatedLimit). Remaining ties go to the lower provider id. With no errors either, no
// provider was asked because none routes the pair: KindUnsupportedPair with NoProviderDetail.
func (r Result) Failure() *provider.Error {
	if r.Best != nil || len(r.Candidates) > 0 {
		return nil
	}
	var chosen *ProviderError
	for i := range r.Errors {
		e := &r.Errors[i]
		if e.Err == nil {
			continue
		}
		if chosen == nil || compareFailures(e, chosen) < 0 {
			chosen = e
		}
	}
	switch {
	case chosen == nil:
		return &provider.Error{Kind: provider.KindUnsupportedPair, Detail: NoProviderDetail}
	case (chosen.Err.Kind == provider.KindAmountTooLow || chosen.Err.Kind == provider.KindAmountTooHigh) && stated(chosen.Err.Limit) == 0:
		return r.unstatedLimit(chosen.Err)
	}
	return chosen.Err
}

// unstatedLimit is the failure when the provider that won it refused the amount without
// stating its limit: no number is the limit then, so the detail names the providers that did
// not state theirs and the easiest limit another provider stated, a bound known to be enough
// ("minimum amount is not stated by relay; route_A's minimum is 3333333333333334") but not
// the limit itself.
func (r Result) unstatedLimit(won *provider.Error) *provider.Error {
	which := "minimum"
	if won.Kind == provider.KindAmountTooHigh {
		which = "maximum"
	}
	var silent []string
	var best *ProviderError
	for i := range r.Errors {
		e := &r.Errors[i]
		switch {
		case e.Err == nil || e.Err.Kind != won.Kind:
		case stated(e.Err.Limit) == 0:
			silent = append(silent, string(e.ProviderID))
		case best == nil || compareFailures(e, best) < 0:
			best = e
		}
	}
	slices.Sort(silent)
	out := *won
	out.Detail = fmt.Sprintf("%s amount is not stated by %s", which, strings.Join(silent, ", "))
	if best != nil {
		out.Detail += fmt.Sprintf("; %s's %s is %s", best.ProviderID, which, best.Err.Limit)
	}
	return &out
}

// failureRank orders kinds by how much they tell the caller; higher is more telling.
func failureRank(k provider.Kind) int {
	switch k {
	case provider.KindAmountTooLow:
		return 6
	case provider.KindAmountTooHigh:
		return 5
	case provider.KindUnsupportedPair:
		return 4
	case provider.KindRefused, provider.KindNotFound:
		return 3
	case provider.KindUpstream:
		// A provider that answered (with a status) tells more than one that stayed silent.
		return 2
	case provider.KindTimeout:
		return 1
	}
	return 0
}

// compareFailures orders a before b (negative) when a is the more telling failure.
func compareFailures(a, b *ProviderError) int {
	if c := cmp.Compare(failureRank(b.Err.Kind), failureRank(a.Err.Kind)); c != 0 {
		return c
	}
	switch a.Err.Kind {
	case provider.KindAmountTooLow, provider.KindAmountTooHigh:
		// A provider that refuses without its limit may accept what the others' limits rule
		// out: naming one of those as the limit would be false, so the unstated limit wins.
		if c := cmp.Compare(stated(a.Err.Limit), stated(b.Err.Limit)); c != 0 {
			return c
		}
		if c := compareAmounts(a.Err.Limit, b.Err.Limit, a.Err.Kind == provider.KindAmountTooHigh); c != 0 {
			return c
		}
	}
	return cmp.Compare(a.ProviderID, b.ProviderID)
}

// stated is 1 for a limit a provider stated (a number), 0 for none.
func stated(limit string) int {
	if _, ok := parseAmount(limit); ok {
		return 1
	}
	return 0
}
