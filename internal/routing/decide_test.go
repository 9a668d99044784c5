package routing

import (
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

const (
	A = swapv1.ProviderRouteA
	B = swapv1.ProviderRouteB
)

func cand(id swapv1.ProviderID, in, out string, secs int64) provider.Quote {
	return provider.Quote{ProviderID: id, AmountIn: in, AmountOut: out, EstimatedTimeSeconds: secs}
}

func TestSelectBest(t *testing.T) {
	tests := []struct {
		name       string
		swapType   swapv1.SwapType
		candidates []provider.Quote
		want       swapv1.ProviderID // "" when none
	}{
		{"none", swapv1.ExactInput, nil, ""},
		{"single", swapv1.ExactInput, []provider.Quote{cand(B, "100", "5", 60)}, B},
		{"exact input: highest amountOut", swapv1.ExactInput,
			[]provider.Quote{cand(A, "100", "90", 10), cand(B, "100", "95", 600)}, B},
		{"empty swap type is exact input", "",
			[]provider.Quote{cand(A, "100", "96", 10), cand(B, "100", "95", 10)}, A},
		{"exact output: lowest amountIn", swapv1.ExactOutput,
			[]provider.Quote{cand(A, "105", "90", 600), cand(B, "110", "90", 10)}, A},
		// As strings "9…" > "1…"; as integers 10^30 is larger.
		{"amounts compared as integers, not strings", swapv1.ExactInput,
			[]provider.Quote{cand(A, "1", "900000000000000000000000000000", 0), cand(B, "1", "1000000000000000000000000000000", 0)}, B},
		// One apart beyond float64 precision.
		{"beyond float64 precision", swapv1.ExactInput,
			[]provider.Quote{cand(A, "1", "123456789012345678901234567890", 0), cand(B, "1", "123456789012345678901234567891", 0)}, B},
		{"tie on amount: faster wins", swapv1.ExactInput,
			[]provider.Quote{cand(A, "100", "95", 120), cand(B, "100", "95", 60)}, B},
		{"tie on amount and time: lower provider id wins", swapv1.ExactInput,
			[]provider.Quote{cand(B, "100", "95", 60), cand(A, "100", "95", 60)}, A},
		{"exact output tie on amount: faster wins", swapv1.ExactOutput,
			[]provider.Quote{cand(A, "100", "95", 60), cand(B, "100", "1", 30)}, B},
		{"malformed amount never wins", swapv1.ExactInput,
			[]provider.Quote{cand(A, "100", "lots", 1), cand(B, "100", "1", 99)}, B},
		{"negative amount never wins", swapv1.ExactOutput,
			[]provider.Quote{cand(A, "-5", "1", 1), cand(B, "100", "1", 99)}, B},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := SelectBest(tt.swapType, tt.candidates)
			var got swapv1.ProviderID
			if i >= 0 {
				got = tt.candidates[i].ProviderID
			}
			if got != tt.want {
				t.Errorf("best = %q (index %d), want %q", got, i, tt.want)
			}
		})
	}
}

func perr(id swapv1.ProviderID, k provider.Kind, limit string) ProviderError {
	return ProviderError{ProviderID: id, Err: &provider.Error{Provider: id, Kind: k, Limit: limit}}
}

func TestFailure(t *testing.T) {
	C := swapv1.ProviderID("route_C")
	tests := []struct {
		name       string
		result     Result
		wantNil    bool
		wantKind   provider.Kind
		wantFrom   swapv1.ProviderID
		wantLimit  string
		wantDetail string
	}{
		{name: "a candidate exists: no failure", wantNil: true,
			result: Result{Candidates: []provider.Quote{cand(A, "1", "1", 1)}, Errors: []ProviderError{perr(B, provider.KindTimeout, "")}}},
		{name: "nobody asked: no provider supports this pair",
			result: Result{}, wantKind: provider.KindUnsupportedPair, wantDetail: NoProviderDetail},
		{name: "too low beats unsupported pair",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindUnsupportedPair, ""), perr(B, provider.KindAmountTooLow, "500")}},
			wantKind: provider.KindAmountTooLow, wantFrom: B, wantLimit: "500"},
		{name: "too high beats timeout",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindTimeout, ""), perr(B, provider.KindAmountTooHigh, "9")}},
			wantKind: provider.KindAmountTooHigh, wantFrom: B, wantLimit: "9"},
		{name: "unsupported pair beats upstream and timeout",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindUpstream, ""), perr(B, provider.KindUnsupportedPair, ""), perr(C, provider.KindTimeout, "")}},
			wantKind: provider.KindUnsupportedPair, wantFrom: B},
		{name: "refusal beats upstream",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindUpstream, ""), perr(B, provider.KindRefused, "")}},
			wantKind: provider.KindRefused, wantFrom: B},
		{name: "upstream beats timeout",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindTimeout, ""), perr(B, provider.KindUpstream, "")}},
			wantKind: provider.KindUpstream, wantFrom: B},
		{name: "too low beats too high",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindAmountTooHigh, "10"), perr(B, provider.KindAmountTooLow, "20")}},
			wantKind: provider.KindAmountTooLow, wantFrom: B, wantLimit: "20"},
		{name: "two minimums: the lowest, compared as integers",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindAmountTooLow, "900"), perr(B, provider.KindAmountTooLow, "1000")}},
			wantKind: provider.KindAmountTooLow, wantFrom: A, wantLimit: "900"},
		{name: "two maximums: the highest, compared as integers",
			result:   Result{Errors: []ProviderError{perr(A, provider.KindAmountTooHigh, "900"), perr(B, provider.KindAmountTooHigh, "1000")}},
			wantKind: provider.KindAmountTooHigh, wantFrom: B, wantLimit: "1000"},
		{name: "a minimum not stated wins: the stated one may not be the lowest, so it is named as another's",
			result: Result{Errors: []ProviderError{perr(A, provider.KindAmountTooLow, "7"), perr(B, provider.KindAmountTooLow, ""),
				perr(C, provider.KindAmountTooLow, "5")}},
			wantKind: provider.KindAmountTooLow, wantFrom: B, wantLimit: "",
			wantDetail: "minimum amount is not stated by route_B; route_C's minimum is 5"},
		{name: "a maximum not stated wins: the stated one may not be the highest, so it is named as another's",
			result: Result{Errors: []ProviderError{perr(A, provider.KindAmountTooHigh, "7"), perr(B, provider.KindAmountTooHigh, ""),
				perr(C, provider.KindUnsupportedPair, "")}},
			wantKind: provider.KindAmountTooHigh, wantFrom: B, wantLimit: "",
			wantDetail: "maximum amount is not stated by route_B; route_A's maximum is 7"},
		{name: "no minimum stated: every provider that did not state it is named, and no number",
			result: Result{Errors: []ProviderError{perr(C, provider.KindAmountTooLow, ""), perr(A, provider.KindTimeout, ""),
				perr(B, provider.KindAmountTooLow, "")}},
			wantKind: provider.KindAmountTooLow, wantFrom: B, wantLimit: "",
			wantDetail: "minimum amount is not stated by route_B, route_C"},
		{name: "same kind: lower provider id",
			result:   Result{Errors: []ProviderError{perr(B, provider.KindTimeout, ""), perr(A, provider.KindTimeout, "")}},
			wantKind: provider.KindTimeout, wantFrom: A},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.result.Failure()
			if tt.wantNil {
				if got != nil {
					t.Fatalf("Failure() = %v, want nil", got)
				}
				return
			}
			if got == nil {
				t.Fatal("Failure() = nil")
			}
			if got.Kind != tt.wantKind || got.Provider != tt.wantFrom || got.Limit != tt.wantLimit || (tt.wantDetail != "" && got.Detail != tt.wantDetail) {
				t.Errorf("Failure() = %+v, want kind %v from %q limit %q detail %q", got, tt.wantKind, tt.wantFrom, tt.wantLimit, tt.wantDetail)
			}
		})
	}
}
