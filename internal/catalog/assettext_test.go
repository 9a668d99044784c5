package catalog

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func TestCleanText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"USDC", "USDC"},
		{"USD Coin", "USD Coin"},
		{"USD₮0", "USD₮0"},
		{"Ether (Arbitrum)", "Ether (Arbitrum)"},
		{"<b>ETH</b>", "bETH/b"},
		{`<img src=x onerror="alert(1)">USDC`, "img src=x onerror=alert(1)USDC"},
		{"USDC\u202eevil", "USDCevil"},
		{"U\u200bS\u200dD\u2060C\ufeff", "USDC"},
		{"\u2066ETH\u2069", "ETH"},
		{"ET\x00H\x07\x1b[31m", "ETH[31m"},
		{"USD\r\nCoin", "USD Coin"},
		{"  Tether \t  USD\u2028 ", "Tether USD"},
		{"so\u00adft", "soft"},
		{"bad \xff utf8", "bad utf8"},
		{"`tick'", "tick"},
	} {
		if got := cleanText(tc.in); got != tc.want {
			t.Errorf("cleanText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestProviderAssetTextIsCleaned: what a provider lists reaches /v1/assets without control,
// bidi, zero-width or markup characters; an asset with no symbol left is refused; each asset
// changed or refused is counted for its provider.
func TestProviderAssetTextIsCleaned(t *testing.T) {
	const pid = swapv1.ProviderID("route_text")
	reg := prometheus.NewRegistry()
	c := New(reg)
	c.SetProviderAssets(pid, []provider.Asset{
		aETH,
		{AssetID: ethUSDC, Chain: "eth", Symbol: "USDC\u202e", Name: "<script>alert(1)</script>USD Coin", Decimals: 6},
		{AssetID: solSOL, Chain: "sol", Symbol: "<>", Name: "Solana", Decimals: 9},
		{AssetID: btcBTC, Chain: "btc", Symbol: "BTC", Name: "\u200b", Decimals: 8},
	})
	got := c.List("", "")
	if len(got) != 3 {
		t.Fatalf("listed %v, want ETH, USDC and BTC (SOL has no symbol left)", ids(got))
	}
	usdc, _ := c.Lookup(ethUSDC)
	if usdc.Symbol != "USDC" || usdc.Name != "scriptalert(1)/scriptUSD Coin" {
		t.Errorf("USDC listed as %q %q", usdc.Symbol, usdc.Name)
	}
	if btc, _ := c.Lookup(btcBTC); btc.Name != "BTC" {
		t.Errorf("an asset without a name is listed as %q, want its symbol", btc.Name)
	}
	for _, a := range got {
		if strings.ContainsAny(a.Symbol+a.Name, "<>\"'`\u202e\u200b") {
			t.Errorf("%s still carries unsafe text: %q %q", a.AssetID, a.Symbol, a.Name)
		}
	}
	if n := testutil.ToFloat64(c.sanitized.WithLabelValues(string(pid))); n != 3 {
		t.Errorf("counted %v sanitized assets, want 3 (USDC, SOL refused, BTC)", n)
	}
	if n, err := testutil.GatherAndCount(reg, "swaprouter_catalog_asset_text_sanitized_total"); err != nil || n == 0 {
		t.Errorf("metric not on the catalog's registry: %d series, %v", n, err)
	}
}
