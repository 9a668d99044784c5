package routing

import (
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestChoose(t *testing.T) {
	const R = swapv1.ProviderID("relay")
	settled := func(n, ok int64, p50 time.Duration) Record { return Record{Settled: n, Succeeded: ok, SettleP50: p50} }
	// route_A pays the most, route_B is slower and pays 1 % less, relay is fastest and pays 2 % less.
	three := []provider.Quote{cand(A, "100", "1000", 600), cand(B, "100", "990", 60), cand(R, "100", "980", 12)}
	measured := map[swapv1.ProviderID]Record{
		A: settled(20, 19, 10*time.Minute), B: settled(20, 20, 5*time.Minute), R: settled(10, 8, 30*time.Second),
	}
	tests := []struct {
		name       string
		pref       Preference
		swapType   swapv1.SwapType
		candidates []provider.Quote
		measured   map[swapv1.ProviderID]Record
		want       swapv1.ProviderID // "" when none
		wantBy     Preference
	}{
		{"none", PreferSpeed, swapv1.ExactInput, nil, measured, "", PreferPrice},
		{"price is SelectBest", PreferPrice, swapv1.ExactInput, three, measured, A, PreferPrice},
		{"empty preference is price", "", swapv1.ExactInput, three, measured, A, PreferPrice},
		// 0.98 × (30 s ÷ 30 s) beats 1.00 × (30 s ÷ 10 min) and 0.99 × (30 s ÷ 5 min).
		{"speed: the fastest unless the price is far off", PreferSpeed, swapv1.ExactInput, three, measured, R, PreferSpeed},
		// 0.99 × 20/20 beats 1.00 × 19/20 and 0.98 × 8/10.
		{"reliability: the price times the success rate", PreferReliability, swapv1.ExactInput, three, measured, B, PreferReliability},
		{"speed loses to a price twice as good", PreferSpeed, swapv1.ExactInput,
			[]provider.Quote{cand(A, "100", "1000", 600), cand(R, "100", "400", 12)},
			map[swapv1.ProviderID]Record{A: settled(5, 5, time.Minute), R: settled(5, 5, 30*time.Second)}, A, PreferSpeed},
		{"reliability: expected amount, exact output compares amountIn", PreferReliability, swapv1.ExactOutput,
			[]provider.Quote{cand(A, "100", "50", 60), cand(B, "101", "50", 60)},
			map[swapv1.ProviderID]Record{A: settled(10, 8, time.Minute), B: settled(10, 10, time.Minute)}, B, PreferReliability},
		{"speed: exact output compares amountIn", PreferSpeed, swapv1.ExactOutput,
			[]provider.Quote{cand(A, "100", "50", 60), cand(B, "250", "50", 60)},
			map[swapv1.ProviderID]Record{A: settled(10, 10, 2*time.Minute), B: settled(10, 10, time.Minute)}, A, PreferSpeed},
		{"equal scores: SelectBest's order decides", PreferReliability, swapv1.ExactInput,
			[]provider.Quote{cand(B, "100", "1000", 60), cand(A, "100", "1000", 60)},
			map[swapv1.ProviderID]Record{A: settled(10, 10, time.Minute), B: settled(10, 10, time.Minute)}, A, PreferReliability},
		{"no data for one candidate: price chooses", PreferSpeed, swapv1.ExactInput, three,
			map[swapv1.ProviderID]Record{A: settled(20, 19, 10*time.Minute), B: settled(20, 20, 5*time.Minute)}, A, PreferPrice},
		{"too few settled orders: price chooses", PreferReliability, swapv1.ExactInput, three,
			map[swapv1.ProviderID]Record{A: settled(20, 10, time.Minute), B: settled(20, 20, time.Minute), R: settled(MinSettled-1, MinSettled-1, time.Minute)}, A, PreferPrice},
		{"no measurements at all: price chooses", PreferSpeed, swapv1.ExactInput, three, nil, A, PreferPrice},
		{"a malformed amount is worth nothing", PreferReliability, swapv1.ExactInput,
			[]provider.Quote{cand(A, "100", "lots", 60), cand(B, "100", "1", 60)},
			map[swapv1.ProviderID]Record{A: settled(10, 10, time.Minute), B: settled(10, 5, time.Minute)}, B, PreferReliability},
		{"amounts beyond float64 precision still rank", PreferReliability, swapv1.ExactInput,
			[]provider.Quote{cand(A, "1", "123456789012345678901234567890", 0), cand(B, "1", "123456789012345678901234567891", 0)},
			map[swapv1.ProviderID]Record{A: settled(10, 10, time.Minute), B: settled(10, 10, time.Minute)}, B, PreferReliability},
		{"zero amounts everywhere: equal value", PreferSpeed, swapv1.ExactInput,
			[]provider.Quote{cand(A, "1", "0", 0), cand(B, "1", "0", 0)},
			map[swapv1.ProviderID]Record{A: settled(10, 10, 2*time.Minute), B: settled(10, 10, time.Minute)}, B, PreferSpeed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i, by := Choose(tt.pref, tt.swapType, tt.candidates, tt.measured)
			var got swapv1.ProviderID
			if i >= 0 {
				got = tt.candidates[i].ProviderID
			}
			if got != tt.want || by != tt.wantBy {
				t.Errorf("Choose = %q by %q, want %q by %q", got, by, tt.want, tt.wantBy)
			}
		})
	}
}

func TestResultChooseNeverPicksAnUnavailableProvider(t *testing.T) {
	res := Result{
		Candidates: []provider.Quote{cand(A, "100", "1000", 60), cand(B, "100", "900", 60)},
		Errors:     []ProviderError{perr("relay", provider.KindTimeout, "")},
	}
	res.Choose(PreferPrice, swapv1.ExactInput, nil, nil)
	if res.Best == nil || res.Best.ProviderID != A || res.BestBy != PreferPrice {
		t.Fatalf("with every provider available: best %+v by %q, want route_A by price", res.Best, res.BestBy)
	}

	res.Choose(PreferPrice, swapv1.ExactInput, map[swapv1.ProviderID]string{A: "ProviderFailing"}, nil)
	if res.Best == nil || res.Best.ProviderID != B || len(res.Candidates) != 1 {
		t.Fatalf("route_A unavailable: best %+v among %+v, want route_B alone", res.Best, res.Candidates)
	}
	if len(res.Errors) != 2 || res.Errors[0].ProviderID != "relay" || res.Errors[1].ProviderID != A || res.Errors[1].Err.Kind != provider.KindUnavailable ||
		res.Errors[1].Err.Detail != "GET /v1/providers reports it UNAVAILABLE (ProviderFailing)" {
		t.Errorf("errors %+v, want relay's timeout then route_A's unavailability, by provider id", res.Errors)
	}

	res.Choose(PreferSpeed, swapv1.ExactInput, map[swapv1.ProviderID]string{B: "NotProbedYet"}, nil)
	if res.Best != nil || len(res.Candidates) != 0 {
		t.Fatalf("no provider available: best %+v, want none", res.Best)
	}
	if f := res.Failure(); f == nil || f.Kind != provider.KindUnavailable && f.Kind != provider.KindTimeout {
		t.Errorf("failure %+v, want one of the providers' errors", f)
	}
}
