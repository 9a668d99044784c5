package market

import (
	"errors"
	"math/big"
	"testing"

	"github.com/swaprouter/swaprouter/internal/caip"
)

func amt(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

func must(key string) Asset {
	a, ok := Lookup(key)
	if !ok {
		panic(key)
	}
	return a
}

func TestAssetTable(t *testing.T) {
	chains := map[string]bool{}
	ids := map[string]bool{}
	for _, a := range Assets() {
		chains[a.Chain] = true
		id := a.AssetID()
		if _, err := caip.ParseKnownAssetID(id); err != nil {
			t.Errorf("%s: %v", a.Key, err)
		}
		if ids[id] {
			t.Errorf("%s: duplicate asset id %s", a.Key, id)
		}
		ids[id] = true
		if got, ok := LookupAssetID(id); !ok || got.Key != a.Key {
			t.Errorf("LookupAssetID(%s) = %v, %v", id, got.Key, ok)
		}
		c, _ := caip.LookupChain(a.Chain)
		if a.IsNative() && a.Decimals != c.NativeDecimals {
			t.Errorf("%s: native decimals %d, chain table says %d", a.Key, a.Decimals, c.NativeDecimals)
		}
		_ = a.price() // panics on a bad price
	}
	if len(ids) < 12 || len(chains) < 7 {
		t.Fatalf("%d assets on %d chains; want >= 12 on >= 7", len(ids), len(chains))
	}
	for _, p := range Providers {
		for _, k := range p.Assets {
			if _, ok := Lookup(k); !ok {
				t.Errorf("%s lists unknown asset %s", p.ID, k)
			}
		}
	}
}

func TestCoverageDiffers(t *testing.T) {
	tests := []struct {
		from, to       string
		routeA, routeB bool
	}{
		{"eth:ETH", "sol:SOL", true, true},
		{"base:ETH", "arb:USDC", true, false},
		{"tron:TRX", "eth:USDC", false, true},
		{"doge:DOGE", "near:wNEAR", false, false},
		{"tron:USDT", "btc:BTC", false, true},  // route_A pair exclusion
		{"tron:TRX", "btc:BTC", false, false},  // route_B pair exclusion, route_A does not list TRX
		{"doge:DOGE", "eth:ETH", false, false}, // Dogecoin: neither (Chainflip has no Dogecoin)
		{"eth:ETH", "eth:ETH", false, false},
	}
	for _, tt := range tests {
		if got := RouteA.Routes(tt.from, tt.to); got != tt.routeA {
			t.Errorf("route_A %s>%s = %v", tt.from, tt.to, got)
		}
		if got := RouteB.Routes(tt.from, tt.to); got != tt.routeB {
			t.Errorf("route_B %s>%s = %v", tt.from, tt.to, got)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		name            string
		p               Provider
		from, to        string
		amount          string
		exactOut        bool
		wantIn, wantOut string
		wantMin         string
		wantErr         error
		wantLimit       *LimitError
	}{
		{name: "A usdc 100", p: RouteA, from: "eth:USDC", to: "arb:USDC", amount: "100000000", wantIn: "100000000", wantOut: "99200000", wantMin: "5000000"},
		{name: "relay usdc 100", p: Relay, from: "eth:USDC", to: "arb:USDC", amount: "100000000", wantIn: "100000000", wantOut: "99650000", wantMin: "2000000"},
		{name: "B usdc 100", p: RouteB, from: "eth:USDC", to: "arb:USDC", amount: "100000000", wantIn: "100000000", wantOut: "96850000", wantMin: "20000000"},
		{name: "A eth->sol with spread", p: RouteA, from: "eth:ETH", to: "sol:SOL", amount: "1000000000000000000", wantIn: "1000000000000000000", wantOut: "19856666666", wantMin: "3333333333333334"},
		{name: "B eth->sol", p: RouteB, from: "eth:ETH", to: "sol:SOL", amount: "1000000000000000000", wantIn: "1000000000000000000", wantOut: "19950000000", wantMin: "6666666666666667"},
		{name: "A btc min per pair", p: RouteA, from: "btc:BTC", to: "eth:ETH", amount: "83333", wantLimit: &LimitError{TooLow: true, Limit: amt("83334")}},
		{name: "A btc at min", p: RouteA, from: "btc:BTC", to: "eth:ETH", amount: "83334", wantIn: "83334", wantOut: "16450132933333333", wantMin: "83334"},
		{name: "B above max", p: RouteB, from: "tron:USDT", to: "eth:USDC", amount: "50000000001", wantLimit: &LimitError{TooLow: false, Limit: amt("50000000000")}},
		{name: "A exact output", p: RouteA, from: "eth:USDC", to: "arb:USDC", amount: "99200000", exactOut: true, wantIn: "100000000", wantOut: "99200000", wantMin: "5000000"},
		{name: "A exact output rounds input up", p: RouteA, from: "eth:USDC", to: "arb:USDC", amount: "99200001", exactOut: true, wantIn: "100000002", wantOut: "99200001", wantMin: "5000000"},
		{name: "bsc usdt 18 decimals", p: RouteA, from: "bsc:USDT", to: "eth:USDC", amount: "100000000000000000000", wantIn: "100000000000000000000", wantOut: "99200000", wantMin: "5000000000000000000"},
		{name: "unsupported", p: RouteA, from: "doge:DOGE", to: "eth:ETH", amount: "1", wantErr: ErrUnsupportedPair},
		{name: "flat fee eats all", p: RouteB, from: "eth:USDC", to: "arb:USDC", amount: "2000000", wantLimit: &LimitError{TooLow: true, Limit: amt("20000000")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tt.p.Quote(Request{From: must(tt.from), To: must(tt.to), Amount: amt(tt.amount), ExactOutput: tt.exactOut})
			switch {
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v; want %v", err, tt.wantErr)
				}
				return
			case tt.wantLimit != nil:
				var le *LimitError
				if !errors.As(err, &le) || le.TooLow != tt.wantLimit.TooLow || le.Limit.Cmp(tt.wantLimit.Limit) != 0 {
					t.Fatalf("err = %v; want %v", err, tt.wantLimit)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if res.AmountIn.String() != tt.wantIn || res.AmountOut.String() != tt.wantOut || res.MinIn.String() != tt.wantMin {
				t.Fatalf("in %s out %s min %s; want %s %s %s", res.AmountIn, res.AmountOut, res.MinIn, tt.wantIn, tt.wantOut, tt.wantMin)
			}
		})
	}
}

// The cheaper provider depends on size: route_A's small flat fee wins small swaps, route_B's
// low percentage wins large ones.
func TestBestDiffersBySize(t *testing.T) {
	from, to := must("eth:USDC"), must("arb:USDC")
	for _, tt := range []struct {
		amount string
		winner string
	}{{"100000000", "route_A"}, {"100000000000", "route_B"}} {
		a, errA := RouteA.Quote(Request{From: from, To: to, Amount: amt(tt.amount)})
		b, errB := RouteB.Quote(Request{From: from, To: to, Amount: amt(tt.amount)})
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		got := "route_A"
		if b.AmountOut.Cmp(a.AmountOut) > 0 {
			got = "route_B"
		}
		if got != tt.winner {
			t.Errorf("amount %s: best %s; want %s (A %s, B %s)", tt.amount, got, tt.winner, a.AmountOut, b.AmountOut)
		}
	}
}

// The parsed prices and units are shared between quotes: pricing must leave them as the
// table says, and an asset outside the table is still priced from its own fields.
func TestSharedPricesAndUnitsStayPut(t *testing.T) {
	eth, _ := Lookup("eth:ETH")
	near, _ := Lookup("near:wNEAR")
	for range 2 {
		if got := ValueUSD(big.NewInt(2e18), eth).FloatString(2); got != "6000.00" {
			t.Fatalf("2 ETH = %s USD, want 6000.00", got)
		}
		if got := Convert(big.NewInt(1e18), eth, near).String(); got != "600000000000000000000000000" {
			t.Fatalf("1 ETH = %s yocto-wNEAR, want 600 wNEAR", got)
		}
	}
	if eth.Unit().String() != "1000000000000000000" || eth.price().RatString() != "3000" {
		t.Fatalf("ETH unit %s price %s after pricing", eth.Unit(), eth.price().RatString())
	}
	custom := Asset{Key: "x:Y", Decimals: 30, PriceUSD: "0.5"}
	if got := ValueUSD(new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil), custom).FloatString(1); got != "0.5" {
		t.Fatalf("one whole unit of an asset outside the table = %s USD, want 0.5", got)
	}
	for _, chain := range []string{"eth", "sol", "btc"} {
		if n, ok := Native(chain); !ok || n.Chain != chain || !n.IsNative() {
			t.Errorf("Native(%s) = %v, %v", chain, n.Key, ok)
		}
	}
	if _, ok := Native("nowhere"); ok {
		t.Error("Native of an unknown chain found an asset")
	}
}
