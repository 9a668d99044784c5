package apiserver

import (
	"fmt"
	"regexp"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/address"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/routing"
)

// Request bodies and their validation. The bodies are the types generated from the OpenAPI
// document (package wire); validation reads their shared swap fields out, checks shapes and
// normalizes the body to the canonical form an Idempotency-Key binds (defaults filled, empty
// optional fields nil). Validation is pure; whether an asset is routable is the catalog's
// question, asked by the handlers.

// swapFields are the fields quote, order and rates requests share, validated.
type swapFields struct {
	OriginAsset          string
	DestinationAsset     string
	Amount               string
	SwapType             swapv1.SwapType
	SlippageToleranceBps *int32
	// FeeBps is the partner fee of this request in basis points, at most Partner.spec.fees'
	// maximum; nil takes the partner's configured fee.
	FeeBps *int32
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

// dryQuote reports whether a quote only previews: dry defaults to true.
func dryQuote(q *wire.QuoteRequest) bool { return q.Dry == nil || *q.Dry }

// validateQuote checks a POST /v1/quote body, normalizes it and returns its swap fields.
func validateQuote(q *wire.QuoteRequest) (swapFields, *apierror.Error) {
	f := swapFields{OriginAsset: q.OriginAsset, DestinationAsset: q.DestinationAsset, Amount: q.Amount,
		SwapType: swapType(q.SwapType), SlippageToleranceBps: q.SlippageToleranceBps, FeeBps: q.FeeBps}
	if err := f.validate(); err != nil {
		return f, err
	}
	q.SwapType = optionalEnum[wire.QuoteRequestSwapType](f.SwapType)
	for _, p := range []**string{&q.Sender, &q.Recipient, &q.RefundTo, &q.ClientReference, &q.QuoteID} {
		*p = optional(deref(*p))
	}
	// A dry quote takes placeholder addresses; an order needs real ones.
	required := !dryQuote(q)
	if q.QuoteID != nil && dryQuote(q) {
		return f, apierror.Invalid("quoteId", "only with dry:false (a dry quote answers new quoteIds)")
	}
	if err := checkQuoteID(deref(q.QuoteID)); err != nil {
		return f, err
	}
	if err := checkText("sender", deref(q.Sender), required, maxAddressLen); err != nil {
		return f, err
	}
	if err := checkText("recipient", deref(q.Recipient), required, maxAddressLen); err != nil {
		return f, err
	}
	if err := checkPreference(&q.Preference); err != nil {
		return f, err
	}
	return f, checkText("refundTo", deref(q.RefundTo), false, maxAddressLen)
}

// checkPreference accepts routing's preferences and leaves price, the default, absent: a
// dry:false retry with or without preference:price is the same request.
func checkPreference(v **wire.Preference) *apierror.Error {
	switch routing.Preference(deref(*v)) {
	case "", routing.PreferPrice:
		*v = nil
	case routing.PreferSpeed, routing.PreferReliability:
	default:
		return apierror.Invalid("preference", "must be price, speed or reliability")
	}
	return nil
}

// preferenceOf is the quote's preference; "" is price.
func preferenceOf(q *wire.QuoteRequest) routing.Preference {
	return routing.Preference(deref(q.Preference))
}

// validateOrder checks a POST /v1/order body, normalizes it and returns its swap fields.
func validateOrder(o *wire.OrderRequest) (swapFields, *apierror.Error) {
	f := swapFields{OriginAsset: o.OriginAsset, DestinationAsset: o.DestinationAsset, Amount: o.Amount,
		SwapType: swapType(o.SwapType), SlippageToleranceBps: o.SlippageToleranceBps, FeeBps: o.FeeBps}
	if err := f.validate(); err != nil {
		return f, err
	}
	o.SwapType = optionalEnum[wire.OrderRequestSwapType](f.SwapType)
	for _, p := range []**string{&o.RefundTo, &o.ClientReference, &o.QuoteID} {
		*p = optional(deref(*p))
	}
	if err := checkQuoteID(deref(o.QuoteID)); err != nil {
		return f, err
	}
	if err := checkText("sender", o.Sender, true, maxAddressLen); err != nil {
		return f, err
	}
	if err := checkText("recipient", o.Recipient, true, maxAddressLen); err != nil {
		return f, err
	}
	if err := checkText("refundTo", deref(o.RefundTo), false, maxAddressLen); err != nil {
		return f, err
	}
	if o.ProviderID != "" && !providerIDPattern.MatchString(o.ProviderID) {
		return f, apierror.Invalid("providerId", "must be the providerId of a candidate from the dry quote")
	}
	return f, nil
}

var providerIDPattern = regexp.MustCompile(swapv1.ProviderIDPattern)

func validateDeposit(d *wire.DepositRequest) *apierror.Error {
	if d.TxHash == "" {
		return apierror.New(apierror.MissingTxHash, "")
	}
	if err := checkText("txHash", d.TxHash, true, maxTxHashLen); err != nil {
		return err
	}
	return checkText("nearSenderAccount", deref(d.NearSenderAccount), false, maxNearAcctLen)
}

// validateRates checks a POST /v1/rates body and returns its swap fields (no destination:
// each target is one).
func validateRates(q *wire.RatesRequest) (swapFields, *apierror.Error) {
	f := swapFields{OriginAsset: q.From, Amount: q.Amount, SwapType: swapType(q.SwapType), FeeBps: q.FeeBps}
	if err := checkAssetID("from", q.From); err != nil {
		return f, err
	}
	if err := checkAmount("amount", q.Amount); err != nil {
		return f, err
	}
	if err := checkSwapType(&f.SwapType); err != nil {
		return f, err
	}
	if b := q.FeeBps; b != nil && (*b < 0 || *b > maxSlippageBps) {
		return f, apierror.Invalid("feeBps", "must be between 0 and 10000")
	}
	if len(q.Targets) < 1 || len(q.Targets) > maxRateTargets {
		return f, apierror.Invalid("targets", "must list 1 to 50 asset ids")
	}
	for _, t := range q.Targets {
		if t == "" {
			return f, apierror.Invalid("targets", "must not contain empty asset ids")
		}
	}
	return f, nil
}

// swapType is a request's optional swapType; "" when absent (checkSwapType fills the default).
func swapType[T ~string](v *T) swapv1.SwapType {
	if v == nil {
		return ""
	}
	return swapv1.SwapType(*v)
}

func deref[T ~string](s *T) T {
	if s == nil {
		return ""
	}
	return *s
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
