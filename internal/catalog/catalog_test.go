package catalog

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

const (
	ethETH   = "eip155:1/slip44:60"
	ethUSDC  = "eip155:1/erc20:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"
	arbETH   = "eip155:42161/slip44:60"
	solSOL   = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	tronUSDT = "tron:0x2b6653dc/trc20:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
	btcBTC   = "bip122:000000000019d6689c085ae165831e93/slip44:0"
)

var (
	aETH  = provider.Asset{AssetID: ethETH, Chain: "eth", Symbol: "ETH", Name: "Ether", Decimals: 18}
	aUSDC = provider.Asset{AssetID: ethUSDC, Chain: "eth", Symbol: "USDC", Name: "USD Coin", Decimals: 6}
	aArb  = provider.Asset{AssetID: arbETH, Chain: "arb", Symbol: "ETH", Name: "Ether", Decimals: 18}
	aSOL  = provider.Asset{AssetID: solSOL, Chain: "sol", Symbol: "SOL", Name: "Solana", Decimals: 9}
	aUSDT = provider.Asset{AssetID: tronUSDT, Chain: "tron", Symbol: "USDT", Name: "Tether USD", Decimals: 6}
	aBTC  = provider.Asset{AssetID: btcBTC, Chain: "btc", Symbol: "BTC", Name: "Bitcoin", Decimals: 8}
)

// testCatalog: route_A lists ETH, USDC, SOL, USDT; route_B lists ETH, arbETH, BTC.
func testCatalog() *Catalog {
	c := New(nil)
	c.SetProviderAssets(swapv1.ProviderRouteA, []provider.Asset{aETH, aUSDC, aSOL, aUSDT})
	c.SetProviderAssets(swapv1.ProviderRouteB, []provider.Asset{aBTC, aArb, aETH})
	return c
}

func ids(assets []Asset) []string {
	out := []string{}
	for _, a := range assets {
		out = append(out, a.AssetID)
	}
	return out
}

func TestList(t *testing.T) {
	c := testCatalog()
	tests := []struct {
		name, chain, search string
		want                []string
	}{
		{"all, ordered by chain then symbol", "", "", []string{arbETH, btcBTC, ethETH, ethUSDC, solSOL, tronUSDT}},
		{"chain filter", "eth", "", []string{ethETH, ethUSDC}},
		{"chain filter ignores case and blanks", " ETH ", "", []string{ethETH, ethUSDC}},
		{"unknown chain", "doge", "", []string{}},
		{"search on symbol, any case", "", "usd", []string{ethUSDC, tronUSDT}},
		{"search on name", "", "tether", []string{tronUSDT}},
		{"search on name substring", "", "ether", []string{arbETH, ethETH, tronUSDT}},
		{"chain and search", "eth", "coin", []string{ethUSDC}},
		{"no match", "", "zzz", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ids(c.List(tt.chain, tt.search)); !slices.Equal(got, tt.want) {
				t.Errorf("List(%q, %q) = %v, want %v", tt.chain, tt.search, got, tt.want)
			}
		})
	}
}

func TestLookup(t *testing.T) {
	c := testCatalog()
	tests := []struct {
		id            string
		wantOK        bool
		wantProviders []swapv1.ProviderID
	}{
		{ethETH, true, []swapv1.ProviderID{swapv1.ProviderRouteA, swapv1.ProviderRouteB}},
		{btcBTC, true, []swapv1.ProviderID{swapv1.ProviderRouteB}},
		{solSOL, true, []swapv1.ProviderID{swapv1.ProviderRouteA}},
		{"eip155:1/erc20:0xunknown", false, nil},
		{"", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			a, ok := c.Lookup(tt.id)
			if ok != tt.wantOK || !slices.Equal(a.Providers, tt.wantProviders) {
				t.Errorf("Lookup(%q) = %+v, %v; want providers %v, %v", tt.id, a, ok, tt.wantProviders, tt.wantOK)
			}
			if ok && a.AssetID != tt.id {
				t.Errorf("Lookup(%q).AssetID = %q", tt.id, a.AssetID)
			}
		})
	}
}

func TestSwappableTargets(t *testing.T) {
	c := testCatalog()
	tests := []struct {
		from string
		want []string
	}{
		// ETH is listed by both providers: everything else is reachable.
		{ethETH, []string{btcBTC, ethUSDC, arbETH, solSOL, tronUSDT}},
		// SOL only through route_A.
		{solSOL, []string{ethETH, ethUSDC, tronUSDT}},
		// BTC only through route_B.
		{btcBTC, []string{ethETH, arbETH}},
		{"unknown", nil},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if tt.want == nil {
				want = nil
			}
			got := c.SwappableTargets(tt.from)
			if !slices.Equal(got, want) || (want == nil) != (got == nil) {
				t.Errorf("SwappableTargets(%q) = %v, want %v", tt.from, got, want)
			}
		})
	}
}

func TestProvidersFor(t *testing.T) {
	c := testCatalog()
	A, B := swapv1.ProviderRouteA, swapv1.ProviderRouteB
	tests := []struct {
		name        string
		origin, dst string
		want        []swapv1.ProviderID
	}{
		{"only A lists both", ethETH, solSOL, []swapv1.ProviderID{A}},
		{"only B lists both", btcBTC, ethETH, []swapv1.ProviderID{B}},
		{"no provider lists both", solSOL, btcBTC, nil},
		{"same asset is no swap", ethETH, ethETH, nil},
		{"unknown origin", "x", ethETH, nil},
		{"unknown destination", ethETH, "x", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.ProvidersFor(tt.origin, tt.dst); !slices.Equal(got, tt.want) {
				t.Errorf("ProvidersFor(%q, %q) = %v, want %v", tt.origin, tt.dst, got, tt.want)
			}
		})
	}

	// Both providers route ETH<->arbETH once A also lists arbETH.
	c.SetProviderAssets(A, []provider.Asset{aETH, aArb})
	if got := c.ProvidersFor(ethETH, arbETH); !slices.Equal(got, []swapv1.ProviderID{A, B}) {
		t.Errorf("after A lists arbETH: ProvidersFor = %v, want [A B]", got)
	}
}

func TestWritesReplaceAndRemove(t *testing.T) {
	c := testCatalog()
	// route_A drops SOL: it disappears; ETH stays (route_B lists it).
	c.SetProviderAssets(swapv1.ProviderRouteA, []provider.Asset{aETH, aUSDC, aUSDT})
	if _, ok := c.Lookup(solSOL); ok {
		t.Error("SOL still listed after route_A dropped it")
	}
	c.RemoveProvider(swapv1.ProviderRouteB)
	if got := ids(c.List("", "")); !slices.Equal(got, []string{ethETH, ethUSDC, tronUSDT}) {
		t.Errorf("after removing route_B: %v", got)
	}
	if a, _ := c.Lookup(ethETH); !slices.Equal(a.Providers, []swapv1.ProviderID{swapv1.ProviderRouteA}) {
		t.Errorf("ETH providers after removing route_B = %v", a.Providers)
	}
	c.RemoveProvider(swapv1.ProviderRouteA)
	if got := c.List("", ""); len(got) != 0 {
		t.Errorf("empty catalog lists %v", got)
	}
}

func TestConflictingRecordsResolveToLowestProviderID(t *testing.T) {
	c := New(nil)
	// Written in the "wrong" order on purpose: route_A's record must still win.
	c.SetProviderAssets(swapv1.ProviderRouteB, []provider.Asset{{AssetID: ethETH, Chain: "eth", Symbol: "WETH?", Name: "x", Decimals: 9}})
	c.SetProviderAssets(swapv1.ProviderRouteA, []provider.Asset{aETH})
	a, _ := c.Lookup(ethETH)
	if a.Symbol != "ETH" || a.Decimals != 18 {
		t.Errorf("record = %+v, want route_A's", a)
	}
}

// A price comes from the lowest provider id that gives one: route_B's when route_A gives none.
func TestPriceFromTheFirstProviderGivingOne(t *testing.T) {
	c := New(nil)
	priced := func(a provider.Asset, usd float64) provider.Asset { a.PriceUSD = usd; return a }
	c.SetProviderAssets(swapv1.ProviderRouteB, []provider.Asset{priced(aETH, 3000.5), priced(aBTC, 90000)})
	c.SetProviderAssets(swapv1.ProviderRouteA, []provider.Asset{priced(aETH, 2990.25), aSOL})
	for id, want := range map[string]float64{ethETH: 2990.25, btcBTC: 90000, solSOL: 0} {
		if a, _ := c.Lookup(id); a.PriceUSD != want {
			t.Errorf("%s priceUsd = %v, want %v", id, a.PriceUSD, want)
		}
	}
}

func TestInvalidIDsIgnoredAndChainDerived(t *testing.T) {
	c := New(nil)
	c.SetProviderAssets(swapv1.ProviderRouteA, []provider.Asset{
		{AssetID: "", Symbol: "EMPTY"},
		{AssetID: "nep141:wrap.near", Symbol: "RAW"},      // a provider token id, not CAIP-19
		{AssetID: "eip155:1/slip44:ether", Symbol: "BAD"}, // slip44 needs a coin type number
		{AssetID: solSOL, Symbol: "SOL"},                  // no chain given: derived from the id
	})
	got := c.List("", "")
	if len(got) != 1 || got[0].AssetID != solSOL {
		t.Fatalf("listed %v, want only SOL", ids(got))
	}
	if got[0].Chain != "sol" {
		t.Errorf("derived chain = %q, want sol", got[0].Chain)
	}
}

func TestResultsAreCopies(t *testing.T) {
	c := testCatalog()
	a, _ := c.Lookup(ethETH)
	a.Providers[0] = "mutated"
	c.List("", "")[0].Providers[0] = "mutated"
	if again, _ := c.Lookup(ethETH); again.Providers[0] != swapv1.ProviderRouteA {
		t.Errorf("caller mutation leaked into catalog: %v", again.Providers)
	}
	in := []provider.Asset{aSOL}
	c.SetProviderAssets(swapv1.ProviderRouteA, in)
	in[0].AssetID = "mutated"
	c.SetProviderAssets(swapv1.ProviderRouteB, nil) // rebuild from stored input
	if _, ok := c.Lookup(solSOL); !ok {
		t.Error("catalog kept a reference to the caller's slice")
	}
}

// Run with -race: readers never block on or observe a half-built writer state.
func TestConcurrentReadsAndWrites(t *testing.T) {
	c := testCatalog()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				assets := []provider.Asset{aETH, {AssetID: fmt.Sprintf("eip155:1/erc20:0x%d%d", w, i), Chain: "eth", Symbol: "T"}}
				c.SetProviderAssets(swapv1.ProviderRouteA, assets)
			}
		})
		wg.Go(func() {
			for range 200 {
				for _, a := range c.List("eth", "") {
					if _, ok := c.Lookup(a.AssetID); !ok && a.AssetID == ethETH {
						t.Error("ETH vanished")
					}
				}
				c.SwappableTargets(ethETH)
				c.ProvidersFor(ethETH, arbETH)
			}
		})
	}
	wg.Wait()
}

// A provider whose list fails keeps its last known assets, marked stale; nothing it listed
// before turns unknown. A fresh list clears the mark.
func TestProviderFailedKeepsLastKnownAssets(t *testing.T) {
	c := testCatalog()
	outage := errors.New("route_B: timeout")
	c.ProviderFailed(swapv1.ProviderRouteB, outage)
	a, ok := c.Lookup(btcBTC)
	if !ok || !a.Stale || !slices.Equal(a.Providers, []swapv1.ProviderID{swapv1.ProviderRouteB}) {
		t.Errorf("BTC (only route_B) after route_B failed: %+v, %v; want it kept and stale", a, ok)
	}
	// ETH is confirmed by route_A's last fetch: not stale.
	if a, _ := c.Lookup(ethETH); a.Stale {
		t.Error("ETH is stale although route_A listed it on its last fetch")
	}
	if got := c.ProvidersFor(btcBTC, ethETH); !slices.Equal(got, []swapv1.ProviderID{swapv1.ProviderRouteB}) {
		t.Errorf("ProvidersFor(BTC, ETH) = %v", got)
	}
	if id, err := c.Outage(); err != nil {
		t.Errorf("Outage = %s, %v; assets of route_B are known", id, err)
	}
	c.SetProviderAssets(swapv1.ProviderRouteB, []provider.Asset{aBTC})
	if a, _ := c.Lookup(btcBTC); a.Stale {
		t.Error("BTC still stale after a fresh list")
	}
}

// A provider that failed before ever listing its assets is an outage: Known, and Outage
// names it until its first list arrives.
func TestProviderFailedWithNothingKnown(t *testing.T) {
	c := New(nil)
	if c.Known(swapv1.ProviderRouteA) {
		t.Error("route_A known before anything was heard")
	}
	c.SetProviderAssets(swapv1.ProviderRouteB, []provider.Asset{aETH})
	outage := errors.New("route_A: 503")
	c.ProviderFailed(swapv1.ProviderRouteA, outage)
	if !c.Known(swapv1.ProviderRouteA) {
		t.Error("route_A not known after its failure")
	}
	if id, err := c.Outage(); id != swapv1.ProviderRouteA || err != outage {
		t.Errorf("Outage = %s, %v", id, err)
	}
	c.SetProviderAssets(swapv1.ProviderRouteA, []provider.Asset{aSOL})
	if id, err := c.Outage(); err != nil {
		t.Errorf("Outage after route_A listed = %s, %v", id, err)
	}
	c.RemoveProvider(swapv1.ProviderRouteA)
	if c.Known(swapv1.ProviderRouteA) {
		t.Error("route_A known after removal")
	}
}
