package simulator_test

import (
	"math/big"
	"net/url"
	"testing"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/simtest"
)

type swapStatus struct {
	State  string
	SwapID string
	Swap   *struct {
		SwappedInputAmount string
		Dca                *struct {
			ExecutedChunks    int64
			LastExecutedChunk *struct{ InputAmount, OutputAmount string }
		}
	}
}

// settled opens a channel with body, deposits its amount and returns the completed status.
func settled(t *testing.T, base string, body map[string]any) swapStatus {
	t.Helper()
	var open struct{ DepositAddress, ID string }
	if code := do(t, "POST", base+"/route_B/api/openSwapDepositChannel", body, &open); code != 201 {
		t.Fatalf("open channel: %d", code)
	}
	if code := do(t, "POST", base+"/chain/deposits", map[string]string{"depositAddress": open.DepositAddress, "amount": body["amount"].(string)}, nil); code != 200 {
		t.Fatalf("deposit: %d", code)
	}
	var st swapStatus
	simtest.Eventually(t, "COMPLETED", func() bool {
		do(t, "GET", base+"/route_B/v2/swaps/"+open.ID, nil, &st)
		return st.State == "COMPLETED"
	})
	return st
}

// Channels opened one right after the other (in one source-chain block) number their swaps
// apart, as Chainflip's swap ids are unique.
func TestChannelsOfOneBlockHaveTheirOwnSwapIDs(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	a, b := settled(t, base, openBody("0")), settled(t, base, openBody("0"))
	if a.SwapID == "" || a.SwapID == b.SwapID {
		t.Errorf("two channels' swaps share swap id %q / %q", a.SwapID, b.SwapID)
	}
}

// A DCA swap reports its last executed chunk, a part of the input, not the whole.
func TestDCAChunksArePartsOfTheSwap(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	body := openBody("0")
	body["dcaParams"] = map[string]any{"numberOfChunks": 3, "chunkIntervalBlocks": 2}
	st := settled(t, base, body)
	if st.Swap == nil || st.Swap.Dca == nil || st.Swap.Dca.LastExecutedChunk == nil {
		t.Fatalf("no DCA progress: %+v", st.Swap)
	}
	swapped, _ := new(big.Int).SetString(st.Swap.SwappedInputAmount, 10)
	chunk, _ := new(big.Int).SetString(st.Swap.Dca.LastExecutedChunk.InputAmount, 10)
	n := big.NewInt(st.Swap.Dca.ExecutedChunks)
	low := new(big.Int).Quo(swapped, n)
	if chunk == nil || swapped == nil || chunk.Cmp(low) < 0 || chunk.Cmp(new(big.Int).Add(low, n)) >= 0 {
		t.Errorf("last chunk input %s of %s swapped in %s chunks; want about 1/%s of it", chunk, swapped, n, n)
	}
}

// A client that allows DCA (the SDK's dcaEnabled) is offered the DCA quote beside REGULAR.
func TestDCAEnabledQuotesBoth(t *testing.T) {
	_, base := simtest.Start(t, simtest.FastOptions())
	q := url.Values{"srcChain": {"Ethereum"}, "srcAsset": {"ETH"}, "destChain": {"Solana"}, "destAsset": {"SOL"},
		"amount": {"1000000000000000000"}, "dcaEnabled": {"true"}}
	var quotes []struct{ Type string }
	if code := do(t, "GET", base+"/route_B/v2/quote?"+q.Encode(), nil, &quotes); code != 200 || len(quotes) != 2 || quotes[0].Type != "REGULAR" || quotes[1].Type != "DCA" {
		t.Errorf("dcaEnabled=true: %d %+v; want REGULAR and DCA", code, quotes)
	}
	q.Set("dcaEnabled", "false")
	if code := do(t, "GET", base+"/route_B/v2/quote?"+q.Encode(), nil, &quotes); code != 200 || len(quotes) != 1 {
		t.Errorf("dcaEnabled=false: %d %+v; want REGULAR only", code, quotes)
	}
	q.Set("dcaEnabled", "maybe")
	if code := do(t, "GET", base+"/route_B/v2/quote?"+q.Encode(), nil, nil); code != 400 {
		t.Errorf("dcaEnabled=maybe: %d; want 400", code)
	}
}
