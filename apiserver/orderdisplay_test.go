package apiserver

import (
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
)

func TestOrderDisplay(t *testing.T) {
	const eth, sol, unknown = "eip155:1/slip44:60", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", "eip155:1/erc20:0xdead"
	assets := map[string]catalog.Asset{
		eth: {AssetID: eth, Chain: "eth", Symbol: "ETH", Decimals: 18},
		sol: {AssetID: sol, Chain: "sol", Symbol: "SOL", Decimals: 9},
	}
	lookup := func(id string) (catalog.Asset, bool) { a, ok := assets[id]; return a, ok }
	for _, c := range []struct {
		name string
		spec swapv1.SwapOrderSpec
		want string
	}{
		{"exact input", swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "100000000000000000"}, "0.1 ETH (eth) → SOL (sol)"},
		{"exact output", swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "2000000000", SwapType: swapv1.ExactOutput}, "ETH (eth) → 2 SOL (sol)"},
		{"asset not in the catalog", swapv1.SwapOrderSpec{OriginAsset: unknown, DestinationAsset: sol, Amount: "5"}, "5 " + unknown + " → SOL (sol)"},
	} {
		if got := orderDisplay(c.spec, lookup).Swap; got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
	long := swapv1.SwapOrderSpec{OriginAsset: "x", DestinationAsset: strings.Repeat("é", 200), Amount: "1"}
	if got := orderDisplay(long, lookup).Swap; len(got) > 256 || !strings.HasPrefix(got, "1 x → é") || strings.ToValidUTF8(got, "?") != got {
		t.Errorf("long display %q (%d bytes) is not a valid cut to 256 bytes", got, len(got))
	}
}
