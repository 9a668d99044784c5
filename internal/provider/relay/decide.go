package relay

import (
	"strconv"
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/caip"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// statusWaiting is Relay's status of a request whose deposit has not been confirmed.
const statusWaiting = "waiting"

// MapStatus maps a status of Relay's /intents/status/v3 onto the contract's statuses. waiting
// is PENDING, with DEPOSIT_SEEN once Relay names the deposit transaction (so nobody sends it
// twice); depositing, pending and submitted are PROCESSING; delayed is PROCESSING with a
// substatus of its own (the fill is late, nothing is asked of the user); refund is REFUNDED
// and failure, a request Relay neither filled nor refunded, FAILED.
func MapStatus(raw string, depositSeen bool) provider.Outcome {
	switch raw {
	case statusWaiting:
		if depositSeen {
			return provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}
		}
		return provider.Outcome{Status: swapv1.OrderPending, Substatus: swapv1.SubstatusAwaitingDeposit, Reason: "AwaitingDeposit"}
	case "depositing":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDepositSeen, Reason: "DepositSeen"}
	case "pending":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSwapping, Reason: "Swapping"}
	case "submitted":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusSending, Reason: "Sending"}
	case "delayed":
		return provider.Outcome{Status: swapv1.OrderProcessing, Substatus: swapv1.SubstatusDelayed, Reason: "FillDelayed"}
	case "success":
		return provider.Outcome{Status: swapv1.OrderSuccess, Substatus: swapv1.SubstatusSettled, Reason: "Settled"}
	case "refund":
		return provider.Outcome{Status: swapv1.OrderRefunded, Substatus: swapv1.SubstatusRefunded, Reason: "Refunded"}
	case "failure":
		return provider.Outcome{Status: swapv1.OrderFailed, Substatus: swapv1.SubstatusProviderFailed, Reason: "ProviderFailed"}
	}
	return provider.Outcome{Status: swapv1.OrderUnknown, Reason: "UnrecognizedProviderStatus"}
}

// ErrorKind classifies one of Relay's error codes; ok is false for codes that say nothing
// beyond their HTTP status (invalid addresses, sanctions: refusals of this request).
func ErrorKind(code string) (kind provider.Kind, ok bool) {
	switch code {
	case "AMOUNT_TOO_LOW":
		return provider.KindAmountTooLow, true
	case "INSUFFICIENT_LIQUIDITY", "SWAP_IMPACT_TOO_HIGH":
		return provider.KindAmountTooHigh, true
	case "NO_SWAP_ROUTES_FOUND", "NO_INTERNAL_SWAP_ROUTES_FOUND", "NO_QUOTES", "UNSUPPORTED_ROUTE", "UNSUPPORTED_CHAIN",
		"UNSUPPORTED_CURRENCY", "INVALID_INPUT_CURRENCY", "INVALID_OUTPUT_CURRENCY", "CHAIN_DISABLED", "ROUTE_TEMPORARILY_RESTRICTED":
		return provider.KindUnsupportedPair, true
	case "PRICE_FETCH_FAILED", "REQUEST_TIMED_OUT", "RPC_HTTP_ERROR", "SERVICE_UNAVAILABLE":
		// Relay's own word: transient, retry with backoff (some come as 400).
		return provider.KindUpstream, true
	case "UNAUTHORIZED", "FORBIDDEN":
		return provider.KindCredentials, true
	}
	return 0, false
}

// Bound reports whether a deposit-address lookup shows the address bound to the request alone:
// strict, and created for that very request. An open address, or one created for another
// request, may be holding another order's deposit.
func Bound(lookup depositAddressResponse, vm, address, requestID string) bool {
	return lookup.Type == "strict" && lookup.RequestID == requestID && sameAddress(vm, lookup.DepositAddress, address)
}

// relayChainKeys are Relay's own ids of chains without an EVM chain id.
var relayChainKeys = map[int64]string{792703809: "sol", 8253038: "btc", 728126428: "tron"}

// ChainKey maps a Relay chain onto the chain table's short key: an EVM chain by its chain id,
// the others by the ids Relay assigned them.
func ChainKey(id int64, vm string) (string, bool) {
	if vm == "evm" {
		return caip.ChainKey("eip155:" + strconv.FormatInt(id, 10))
	}
	key, ok := relayChainKeys[id]
	return key, ok
}

// knownChain is a Relay chain the chain table has.
type knownChain struct {
	// Key is the chain table's short key.
	Key string
	VM  string
	// Native is Relay's address of the chain's native currency.
	Native string
}

// AssetID maps a Relay currency on a known chain onto CAIP-19: the chain's native currency
// (Relay's metadata says so, or its address is the chain's native address) is the slip44
// asset, any other a token by its address.
func AssetID(ch knownChain, c currency) (string, bool) {
	if c.Metadata.IsNative || sameAddress(ch.VM, c.Address, ch.Native) {
		id, ok := caip.NativeAsset(ch.Key)
		return id.String(), ok
	}
	id, err := caip.TokenAsset(ch.Key, c.Address)
	return id.String(), err == nil
}

// sameAddress compares two addresses of a chain: EVM addresses in any case, the others
// exactly (base58 is case-sensitive).
func sameAddress(vm, x, y string) bool {
	if vm == "evm" {
		return strings.EqualFold(x, y)
	}
	return x == y
}
