package orderdisplay

import (
	"strings"
	"testing"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
)

const eth, sol, unknown = "eip155:1/slip44:60", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501", "eip155:1/erc20:0xdead"

func lookup(id string) (catalog.Asset, bool) {
	a, ok := map[string]catalog.Asset{
		eth: {AssetID: eth, Chain: "eth", Symbol: "ETH", Decimals: 18},
		sol: {AssetID: sol, Chain: "sol", Symbol: "SOL", Decimals: 9},
	}[id]
	return a, ok
}

func TestCreated(t *testing.T) {
	for _, c := range []struct {
		name string
		spec swapv1.SwapOrderSpec
		want string
	}{
		{"exact input", swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "100000000000000000"}, "0.1 ETH (eth) -> SOL (sol)"},
		{"every digit", swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "123456789012345678"}, "0.123456789012345678 ETH (eth) -> SOL (sol)"},
		{"exact output", swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "2000000000", SwapType: swapv1.ExactOutput}, "ETH (eth) -> 2 SOL (sol)"},
		{"asset not in the catalog", swapv1.SwapOrderSpec{OriginAsset: unknown, DestinationAsset: sol, Amount: "5"}, "5 " + unknown + " -> SOL (sol)"},
	} {
		if got := Created(c.spec, lookup).Swap; got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
	long := swapv1.SwapOrderSpec{OriginAsset: "x", DestinationAsset: strings.Repeat("é", 200), Amount: "1"}
	if got := Created(long, lookup).Swap; len(got) > 256 || !strings.HasPrefix(got, "1 x -> é") || strings.ToValidUTF8(got, "?") != got {
		t.Errorf("long display %q (%d bytes) is not a valid cut to 256 bytes", got, len(got))
	}
}

func TestNow(t *testing.T) {
	exactIn := swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "123456789012345678"}
	exactOut := swapv1.SwapOrderSpec{OriginAsset: eth, DestinationAsset: sol, Amount: "2000000000", SwapType: swapv1.ExactOutput}
	settled := swapv1.SwapOrderStatus{AmountIn: "100900000000000000", AmountOut: "1982345678"}
	with := func(st swapv1.SwapOrderStatus, s swapv1.OrderStatus) swapv1.SwapOrderStatus { st.Status = s; return st }
	unknownSpec := swapv1.SwapOrderSpec{OriginAsset: unknown, DestinationAsset: sol, Amount: "5",
		Display: &swapv1.OrderDisplay{Swap: "as created"}}
	for _, c := range []struct {
		name string
		spec swapv1.SwapOrderSpec
		st   swapv1.SwapOrderStatus
		want string
	}{
		{"pending: the fixed amount, four digits", exactIn, with(swapv1.SwapOrderStatus{}, swapv1.OrderPending), "0.1234 ETH (eth) -> SOL (sol)"},
		{"sending: an amount on its way is not yet received", exactIn, with(settled, swapv1.OrderProcessing), "0.1234 ETH (eth) -> SOL (sol)"},
		{"success: what the recipient received", exactIn, with(settled, swapv1.OrderSuccess), "0.1234 ETH (eth) -> 1.982 SOL (sol)"},
		{"refunded: nothing received", exactIn, with(swapv1.SwapOrderStatus{RefundedAmount: "123456789012345678"}, swapv1.OrderRefunded), "0.1234 ETH (eth) -> SOL (sol)"},
		{"exact output, success: what was spent", exactOut, with(settled, swapv1.OrderSuccess), "0.1009 ETH (eth) -> 2 SOL (sol)"},
		{"exact output, pending", exactOut, with(settled, swapv1.OrderPending), "ETH (eth) -> 2 SOL (sol)"},
		{"an asset the catalog lacks: as created", unknownSpec, with(settled, swapv1.OrderSuccess), "as created"},
		{"an asset the catalog lacks: as shown so far", unknownSpec,
			swapv1.SwapOrderStatus{Status: swapv1.OrderSuccess, Display: &swapv1.OrderDisplay{Swap: "as shown"}}, "as shown"},
	} {
		if got := Now(c.spec, c.st, lookup).Swap; got != c.want {
			t.Errorf("%s: %q; want %q", c.name, got, c.want)
		}
	}
}
