package consumerapp

import (
	"regexp"
	"strings"
	"unicode"
)

// Problem is an error as the page shows it: what happened and what to do next, in words.
type Problem struct {
	// Code is the /v1 error code (or the app's own) for scripts and tests.
	Code    string `json:"error"`
	Message string `json:"message"`
	Action  string `json:"action"`
	// Field names the input at fault, when there is one.
	Field string `json:"field,omitempty"`
	// Limit is the bound an amount is outside of (amount_too_low, amount_too_high): the page
	// states it at the amount field, in the asset's units when /v1 named the number.
	Limit *amountLimit `json:"limit,omitempty"`
}

// amountLimit is a route's minimum or maximum input, in the source asset's smallest unit.
type amountLimit struct {
	Kind string `json:"kind"` // "minimum" or "maximum"
	// Amount is empty when /v1 named no number as the limit: a route that refused the amount
	// did not state its own, so any number the detail names is not the limit.
	Amount string `json:"amount,omitempty"`
}

// limitDetail is how /v1 states the limit in an amount_too_low/amount_too_high detail.
var limitDetail = regexp.MustCompile(`^(minimum|maximum) amount is ([0-9]+)\b`)

// parseLimit is the limit of kind a /v1 detail states, with no amount when it states none
// ("minimum amount is not stated by relay; route_A's minimum is 3333333333333334").
func parseLimit(kind, detail string) *amountLimit {
	m := limitDetail.FindStringSubmatch(detail)
	if m == nil || m[1] != kind {
		return &amountLimit{Kind: kind}
	}
	return &amountLimit{Kind: kind, Amount: m[2]}
}

// explain turns a /v1 error (code and detail) into words for a person. status is the HTTP
// status it came with, for codes the table does not know.
func explain(code, detail string, status int) Problem {
	p := Problem{Code: code}
	switch code {
	case "amount_too_low":
		p.Message, p.Action = "This amount is below what the route can swap.", "Enter a larger amount."
		p.Field, p.Limit = "amount", parseLimit("minimum", detail)
	case "amount_too_high":
		p.Message, p.Action = "This amount is more than the route can swap right now.", "Enter a smaller amount, or split it into several swaps."
		p.Field, p.Limit = "amount", parseLimit("maximum", detail)
	case "no provider supports this pair":
		p.Message, p.Action = "No route swaps these two assets at the moment.", "Pick another asset to receive."
	case "unknown originAsset/destinationAsset":
		p.Message, p.Action = "One of the assets is no longer offered.", "Reload the page and pick the assets again."
	case "quote expired", "quote changed":
		p.Message, p.Action = "The price changed since the quote.", "Get a new quote and check it before you confirm."
	case "order not found":
		p.Message, p.Action = "We cannot find this swap.", "Check the link, or start a new swap."
	case "order already in terminal state":
		p.Message, p.Action = "This swap has already finished.", "Start a new swap."
	case "rate limit exceeded", "rate_limited", "quota exceeded", "too many requests":
		p.Message, p.Action = "Too many requests right now.", "Wait a few seconds and try again."
	case "upstream timeout", "upstream error", "internal error", "unreachable":
		p.Message, p.Action = "The swap service is not answering right now.", "Try again in a minute; nothing was charged."
	case "invalid address":
		p.Message, p.Action = detail, "Correct the highlighted address."
	case "invalid request":
		p.Message, p.Action = "Something in the form is not right: "+detail, "Check the amount and addresses, then try again."
	case "simulator unavailable":
		p.Message, p.Action = "Simulated deposits are only available in the local dev system.", "Send the deposit from your wallet instead."
	default:
		p.Message, p.Action = "Something went wrong.", "Try again; if it keeps happening, start a new swap."
		if status >= 400 && status < 500 && detail != "" {
			p.Message = detail
		}
	}
	return p
}

// StatusText is a status as a person reads it.
func statusText(status string) string {
	switch status {
	case "PENDING":
		return "Waiting for your deposit"
	case "PROCESSING":
		return "Deposit received, swapping"
	case "SUCCESS":
		return "Swap complete"
	case "REFUNDED":
		return "Refunded"
	case "FAILED":
		return "Swap failed"
	case "UNKNOWN":
		return "Checking with the provider"
	}
	return status
}

// reasonText explains why an order is where it is, and what the user can do.
func reasonText(reason string) string {
	switch reason {
	case "", "DepositAddressIssued", "AwaitingDeposit", "Swapping", "Settled":
		return "" // the status line says it already
	case "DepositSeen":
		return "Your deposit is on its way; it is being confirmed on its chain."
	case "Sending", "Sent":
		return "The swapped funds are being sent to your receiving address."
	case "Refunding":
		return "The deposit is being sent back to your refund address."
	case "FillDelayed":
		return "The provider reports the swap as delayed. Nothing to do: it is still being processed and this page updates by itself."
	case "DepositChannelExpired":
		return "The deposit window has closed. Do not send anything to this address; start a new swap."
	case "IncompleteDeposit":
		return "Less than the quoted amount arrived, so the deposit was sent back to your refund address."
	case "DepositAfterDeadline":
		return "The deposit arrived after the deposit window closed, so it was sent back to your refund address."
	case "DepositExpired":
		return "No deposit arrived before the deadline. Nothing was taken; start a new swap if you still want to swap."
	case "AmountTooLow":
		return "The provider refused the order: the amount is below its minimum. Start a new swap with a larger amount."
	case "AmountTooHigh":
		return "The provider refused the order: the amount is above what it can route. Start a new swap with a smaller amount."
	case "UnsupportedPair":
		return "The provider no longer routes this pair. Start a new swap and pick another asset."
	case "ProviderSignatureInvalid":
		return "The provider's answer could not be verified, so no deposit address was shown. Nothing was taken; start a new swap."
	case "DepositAddressShared":
		return "The provider offered a deposit address that other swaps use too, so it was not shown. Nothing was taken; start a new swap."
	case "ProviderRefused", "ProviderDisabled", "ProviderNotConfigured":
		return "The provider could not take this order. Nothing was taken; start a new swap."
	case "ProviderUnreachable", "OrderNotFoundAtProvider", "ProviderStatusUnmapped", "UnrecognizedProviderStatus", "CompletedWithoutEgress":
		return "We are waiting to hear back from the provider. Your funds are safe; this page updates by itself."
	case "Refunded":
		return "The provider sent the deposit back to your refund address."
	}
	return "The provider reported: " + words(reason) + "."
}

// words splits a CamelCase reason into lower-case words ("SlippageExceeded" → "slippage exceeded").
func words(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
