// Package provider defines what the service needs from a routing provider, independent of
// its wire protocol. Adapters (oneclick, channel, relay) implement Provider; the frontend and the
// order reconciler use only this package.
package provider

import (
	"context"
	"net/http"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// Provider is one routing provider reached over its own wire protocol.
// Every method honours ctx's deadline and returns *Error for every failure.
type Provider interface {
	// ID is the provider id partners see (route_A, route_B, relay).
	ID() swapv1.ProviderID
	// Assets lists what the provider routes, with CAIP-19 ids.
	Assets(ctx context.Context) ([]Asset, error)
	// Quote prices a swap without creating anything at the provider.
	Quote(ctx context.Context, req QuoteRequest) (Quote, error)
	// CreateDeposit obtains a deposit address for an order. Whether calling twice for the same
	// order yields the same address is the provider's property, see IdempotentCreate.
	CreateDeposit(ctx context.Context, req DepositRequest) (Deposit, error)
	// IdempotentCreate reports whether a repeated CreateDeposit for the same order returns the
	// same address. When false, every successful call may hand out a new address, and an
	// address whose answer was lost (timeout, failed status write) was never shown to anyone.
	IdempotentCreate() bool
	// Status reports the provider's view of an order.
	Status(ctx context.Context, ref OrderRef) (Status, error)
	// SubmitDeposit forwards the user's deposit transaction hash.
	SubmitDeposit(ctx context.Context, ref OrderRef, hint swapv1.DepositHint) error
}

// Asset is one asset a provider routes.
type Asset struct {
	// AssetID is the CAIP-19 id.
	AssetID string
	// Chain is the short chain key (eth, arb, sol, ...).
	Chain    string
	Symbol   string
	Name     string
	Decimals int
	// ProviderToken is the provider's own id of the asset.
	ProviderToken string
	// PriceUSD is the provider's price of one whole unit in US dollars; 0 when it gives none.
	PriceUSD float64
}

// QuoteRequest asks for a price. Amount is the input (EXACT_INPUT) or output (EXACT_OUTPUT)
// in smallest units, as a positive integer string.
type QuoteRequest struct {
	OriginAsset      string
	DestinationAsset string
	Amount           string
	SwapType         swapv1.SwapType
	// SlippageBps is nil when the provider default applies.
	SlippageBps *int32
	Sender      string
	Recipient   string
	RefundTo    string
	// AppFee is the partner's fee, nil when none. Adapters whose provider can take it pass it
	// on and show it as a fee of type "partner"; the others quote without it (Relay takes it
	// only for an EVM recipient).
	AppFee *AppFee
}

// AppFee is a partner fee in basis points of the input, paid to Recipient (for 1Click a
// NEAR Intents account, for Relay an EVM wallet).
type AppFee struct {
	Bps       int32
	Recipient string
}

// FeeTypePartner is the Fee.Type of a partner fee in a candidate.
const FeeTypePartner = "partner"

// Quote is a provider's price for a QuoteRequest.
type Quote = swapv1.QuoteCandidate

// Fee is one fee of a Quote.
type Fee = swapv1.Fee

// DepositRequest creates a deposit address for an order.
type DepositRequest struct {
	// OrderID is the order's public id (for logs and errors; no real protocol has a field
	// that makes a create idempotent).
	OrderID string
	// MinAmountOut is the minimum output the partner accepted (the candidate the order was
	// created from), empty when none; a provider that takes a price floor never goes below it.
	MinAmountOut string
	QuoteRequest
}

// Deposit is where the user sends funds.
type Deposit struct {
	Quote          Quote
	DepositAddress string
	DepositMemo    string
	// ProviderRef is the provider's own reference (a channel id, a Relay request id, or the
	// deposit address).
	ProviderRef string
	Deadline    time.Time
	// Raw is the provider's own status of the new address, what its status endpoint reports
	// until a deposit is seen ("" when unknown).
	Raw string
	// Signature is the provider's own signature over the quote behind the address, verified
	// by the adapter ("" when the provider signs none).
	Signature string
}

// OrderRef identifies an order at its provider.
type OrderRef struct {
	OrderID        string
	DepositAddress string
	DepositMemo    string
	ProviderRef    string
}

// Outcome is what an adapter's status mapping decides: the normalized status, its substatus
// and a stable CamelCase reason.
type Outcome struct {
	Status    swapv1.OrderStatus
	Substatus swapv1.OrderSubstatus
	Reason    string
}

// Status is the provider's view of an order, already mapped onto the contract's statuses.
type Status struct {
	// Status is the normalized status.
	Status swapv1.OrderStatus
	// Substatus is the normalized detail (what the user should do or expect).
	Substatus swapv1.OrderSubstatus
	// Raw is the provider's own status string.
	Raw string
	// Reason is a stable CamelCase explanation (e.g. "DepositSeen", "IncompleteDeposit").
	Reason      string
	InTxHashes  []string
	OutTxHashes []string
	// DepositedAmount is what arrived at the deposit address, empty when unknown.
	DepositedAmount string
	AmountIn        string
	AmountOut       string
	RefundedAmount  string
}

// Config is what every adapter needs to reach its provider.
type Config struct {
	ID swapv1.ProviderID
	// Endpoint is the provider's base URL (RoutingProvider.spec.endpoint).
	Endpoint string
	// Token is the bearer token from the credentials Secret, empty when none.
	Token string
	// QuoteSigningKey is the key the provider's quote signatures verify with
	// (RoutingProvider.spec.quoteSigningKey, "ed25519:<base58>"); empty: the protocol's
	// published key.
	QuoteSigningKey string
	// Timeout bounds each call.
	Timeout time.Duration
	// HTTPClient is used when set (tests, shared transports); otherwise a default client.
	HTTPClient *http.Client
}
