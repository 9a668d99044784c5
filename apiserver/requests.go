package apiserver

import (
	"fmt"
	"regexp"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// Request bodies and their validation. Validation is pure: it checks shapes and fills
// defaults; whether an asset is routable is the catalog's question, asked by the handlers.

// swapFields are the fields quote, order and rates requests share.
type swapFields struct {
	OriginAsset          string          `json:"originAsset"`
	DestinationAsset     string          `json:"destinationAsset"`
	Amount               string          `json:"amount"`
	SwapType             swapv1.SwapType `json:"swapType,omitempty"`
	SlippageToleranceBps *int32          `json:"slippageToleranceBps,omitempty"`
	// FeeBps is the partner fee of this request in basis points, at most Partner.spec.fees'
	// maximum; nil takes the partner's configured fee.
	FeeBps *int32 `json:"feeBps,omitempty"`
	// appFee is the fee resolved against the Partner (resolveFee), nil when none.
	appFee *provider.AppFee
}

// feeBps is the request's partner fee (0: none).
func (f swapFields) feeBps() int32 {
	if f.FeeBps == nil {
		return 0
	}
	return *f.FeeBps
}

// orderSpec is the SwapOrder spec these fields describe for a partner's order; the provider
// is left to the caller (named in POST /v1/order, chosen by the quote for dry:false).
func (f swapFields) orderSpec(partner, sender, recipient, refundTo string) swapv1.SwapOrderSpec {
	return swapv1.SwapOrderSpec{
		Partner:              partner,
		OriginAsset:          f.OriginAsset,
		DestinationAsset:     f.DestinationAsset,
		Amount:               f.Amount,
		SwapType:             f.SwapType,
		SlippageToleranceBps: f.SlippageToleranceBps,
		Sender:               sender,
		Recipient:            recipient,
		RefundTo:             refundTo,
		PartnerFee:           orderFee(f.appFee),
	}
}

func orderFee(f *provider.AppFee) *swapv1.OrderFee {
	if f == nil {
		return nil
	}
	return &swapv1.OrderFee{Bps: f.Bps, Recipient: f.Recipient}
}

// resolveFee settles the request's partner fee against the partner's fees: feeBps up to
// their maximum, else their default. FeeBps is left holding the fee charged (what a quoteId
// binds).
func (f *swapFields) resolveFee(fees *swapv1.PartnerFees) *apierror.Error {
	bps := int32(0)
	if fees != nil {
		bps = fees.Bps
	}
	if f.FeeBps != nil {
		if *f.FeeBps > fees.Max() {
			return apierror.Invalid("feeBps", fmt.Sprintf("at most %d for this partner (Partner.spec.fees)", fees.Max()))
		}
		bps = *f.FeeBps
	}
	f.FeeBps, f.appFee = nil, nil
	if bps > 0 {
		f.FeeBps = &bps
		f.appFee = &provider.AppFee{Bps: bps, Recipient: fees.Recipient}
	}
	return nil
}

// quoteRequest is the body of POST /v1/quote. refundTo is accepted because dry:false creates
// an order, whose body has it.
type quoteRequest struct {
	swapFields
	Sender    string `json:"sender,omitempty"`
	Recipient string `json:"recipient,omitempty"`
	RefundTo  string `json:"refundTo,omitempty"`
	// Dry defaults to true: without an explicit false the request only previews.
	Dry *bool `json:"dry,omitempty"`
	// ClientReference is the partner's own id of the order dry:false creates.
	ClientReference string `json:"clientReference,omitempty"`
	// QuoteID binds dry:false to a candidate of an earlier dry quote (its provider and bound).
	QuoteID string `json:"quoteId,omitempty"`
	// Preference is what best is chosen for; "" (price) when absent or price.
	Preference routing.Preference `json:"preference,omitempty"`
}

// orderRequest is the body of POST /v1/order.
type orderRequest struct {
	swapFields
	Sender     string            `json:"sender"`
	Recipient  string            `json:"recipient"`
	RefundTo   string            `json:"refundTo,omitempty"`
	ProviderID swapv1.ProviderID `json:"providerId"`
	// ClientReference is the partner's own id for the order, unique per partner.
	ClientReference string `json:"clientReference,omitempty"`
	// QuoteID binds the order to the dry quote's candidate the user accepted.
	QuoteID string `json:"quoteId,omitempty"`
}

// depositRequest is the body of POST /v1/order/{id}/deposit.
type depositRequest struct {
	TxHash            string `json:"txHash"`
	NearSenderAccount string `json:"nearSenderAccount,omitempty"`
}

// ratesRequest is the body of POST /v1/rates.
type ratesRequest struct {
	From     string          `json:"from"`
	Amount   string          `json:"amount"`
	Targets  []string        `json:"targets"`
	SwapType swapv1.SwapType `json:"swapType,omitempty"`
	FeeBps   *int32          `json:"feeBps,omitempty"`
}

const (
	maxRateTargets  = 50
	maxAddressLen   = 256
	maxAssetIDLen   = 256
	maxTxHashLen    = 256
	maxNearAcctLen  = 128
	maxSlippageBps  = 10000
	maxIdemKeyLen   = 255
	maxSearchLength = 100
	maxClientRefLen = 64
)

// amountPattern: a positive integer in smallest units without leading zeros, at most 78
// digits (a uint256).
var amountPattern = regexp.MustCompile(`^[1-9][0-9]{0,77}$`)

func checkAmount(field, v string) *apierror.Error {
	if v == "" {
		return apierror.Invalid(field, "required")
	}
	if !amountPattern.MatchString(v) {
		return apierror.Invalid(field, "must be a positive integer string in the smallest unit")
	}
	return nil
}

func checkSwapType(v *swapv1.SwapType) *apierror.Error {
	switch *v {
	case "":
		*v = swapv1.ExactInput
	case swapv1.ExactInput, swapv1.ExactOutput:
	default:
		return apierror.Invalid("swapType", "must be EXACT_INPUT or EXACT_OUTPUT")
	}
	return nil
}

func checkAssetID(field, v string) *apierror.Error {
	switch {
	case v == "":
		return apierror.Invalid(field, "required")
	case len(v) > maxAssetIDLen || !visibleASCII(v):
		return apierror.New(apierror.UnknownAsset, field+" is not a CAIP-19 id from the asset list")
	}
	return nil
}

// checkText is the one check of every free-text field: present when required, at most
// maxLen bytes, and only visible ASCII. No hash, account, address, key or reference has a
// space, a control, zero-width or bidi character or a letter outside ASCII, and those make
// one value look like another.
func checkText(field, v string, required bool, maxLen int) *apierror.Error {
	switch {
	case v == "" && required:
		return apierror.Invalid(field, "required")
	case len(v) > maxLen:
		return apierror.Invalid(field, "too long")
	case !visibleASCII(v):
		return apierror.Invalid(field, "must be visible ASCII: no spaces, control, zero-width or bidi characters")
	}
	return nil
}

// checkAddresses checks an order's addresses against the chains of its assets: sender and
// refundTo send on the origin chain, recipient receives on the destination chain.
func checkAddresses(originChain, destinationChain, sender, recipient, refundTo string) *apierror.Error {
	for _, a := range []struct{ field, chain, addr string }{
		{"sender", originChain, sender},
		{"recipient", destinationChain, recipient},
		{"refundTo", originChain, refundTo},
	} {
		if a.addr == "" && a.field == "refundTo" {
			continue
		}
		if err := address.Check(a.chain, a.addr); err != nil {
			return apierror.Invalid(a.field, fmt.Sprintf("not a %s address: %s", a.chain, err))
		}
	}
	return nil
}

func (f *swapFields) validate() *apierror.Error {
	if err := checkAssetID("originAsset", f.OriginAsset); err != nil {
		return err
	}
	if err := checkAssetID("destinationAsset", f.DestinationAsset); err != nil {
		return err
	}
	if err := checkAmount("amount", f.Amount); err != nil {
		return err
	}
	if err := checkSwapType(&f.SwapType); err != nil {
		return err
	}
	if s := f.SlippageToleranceBps; s != nil && (*s < 0 || *s > maxSlippageBps) {
		return apierror.Invalid("slippageToleranceBps", "must be between 0 and 10000")
	}
	if b := f.FeeBps; b != nil && (*b < 0 || *b > maxSlippageBps) {
		return apierror.Invalid("feeBps", "must be between 0 and 10000")
	}
	return nil
}

// dry reports whether the quote only previews.
func (q *quoteRequest) dry() bool { return q.Dry == nil || *q.Dry }

func (q *quoteRequest) validate() *apierror.Error {
	if err := q.swapFields.validate(); err != nil {
		return err
	}
	// A dry quote takes placeholder addresses; an order needs real ones.
	required := !q.dry()
	if q.QuoteID != "" && q.dry() {
		return apierror.Invalid("quoteId", "only with dry:false (a dry quote answers new quoteIds)")
	}
	if err := checkQuoteID(q.QuoteID); err != nil {
		return err
	}
	if err := checkText("sender", q.Sender, required, maxAddressLen); err != nil {
		return err
	}
	if err := checkText("recipient", q.Recipient, required, maxAddressLen); err != nil {
		return err
	}
	if err := checkPreference(&q.Preference); err != nil {
		return err
	}
	return checkText("refundTo", q.RefundTo, false, maxAddressLen)
}

// checkPreference accepts routing's preferences and leaves price, the default, as "": a
// dry:false retry with or without preference:price is the same request.
func checkPreference(v *routing.Preference) *apierror.Error {
	switch *v {
	case "", routing.PreferPrice:
		*v = ""
	case routing.PreferSpeed, routing.PreferReliability:
	default:
		return apierror.Invalid("preference", "must be price, speed or reliability")
	}
	return nil
}

func (o *orderRequest) validate() *apierror.Error {
	if err := o.swapFields.validate(); err != nil {
		return err
	}
	if err := checkQuoteID(o.QuoteID); err != nil {
		return err
	}
	if err := checkText("sender", o.Sender, true, maxAddressLen); err != nil {
		return err
	}
	if err := checkText("recipient", o.Recipient, true, maxAddressLen); err != nil {
		return err
	}
	if err := checkText("refundTo", o.RefundTo, false, maxAddressLen); err != nil {
		return err
	}
	if o.ProviderID != "" && !providerIDPattern.MatchString(string(o.ProviderID)) {
		return apierror.Invalid("providerId", "must be the providerId of a candidate from the dry quote")
	}
	return nil
}

var providerIDPattern = regexp.MustCompile(swapv1.ProviderIDPattern)

func (d *depositRequest) validate() *apierror.Error {
	if d.TxHash == "" {
		return apierror.New(apierror.MissingTxHash, "")
	}
	if err := checkText("txHash", d.TxHash, true, maxTxHashLen); err != nil {
		return err
	}
	return checkText("nearSenderAccount", d.NearSenderAccount, false, maxNearAcctLen)
}

func (q *ratesRequest) validate() *apierror.Error {
	if err := checkAssetID("from", q.From); err != nil {
		return err
	}
	if err := checkAmount("amount", q.Amount); err != nil {
		return err
	}
	if err := checkSwapType(&q.SwapType); err != nil {
		return err
	}
	if b := q.FeeBps; b != nil && (*b < 0 || *b > maxSlippageBps) {
		return apierror.Invalid("feeBps", "must be between 0 and 10000")
	}
	if len(q.Targets) < 1 || len(q.Targets) > maxRateTargets {
		return apierror.Invalid("targets", "must list 1 to 50 asset ids")
	}
	for _, t := range q.Targets {
		if t == "" {
			return apierror.Invalid("targets", "must not contain empty asset ids")
		}
	}
	return nil
}

// maxQuoteIDLen bounds quoteId (the CRD's bound on quote.quoteId).
const maxQuoteIDLen = 1024

func checkQuoteID(v string) *apierror.Error { return checkText("quoteId", v, false, maxQuoteIDLen) }

// checkClientReference validates an optional clientReference (the CRD's bound and characters).
func checkClientReference(v string) *apierror.Error {
	return checkText("clientReference", v, false, maxClientRefLen)
}

// checkIdempotencyKey validates the Idempotency-Key header ("" when absent).
func checkIdempotencyKey(v string) *apierror.Error {
	return checkText("Idempotency-Key", v, false, maxIdemKeyLen)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// providerRequest is the provider-side view of the shared fields.
func (f swapFields) providerRequest(sender, recipient, refundTo string) provider.QuoteRequest {
	return provider.QuoteRequest{
		OriginAsset:      f.OriginAsset,
		DestinationAsset: f.DestinationAsset,
		Amount:           f.Amount,
		SwapType:         f.SwapType,
		SlippageBps:      f.SlippageToleranceBps,
		Sender:           sender,
		Recipient:        recipient,
		RefundTo:         refundTo,
		AppFee:           f.appFee,
	}
}
