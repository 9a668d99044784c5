// Package orderdisplay renders an order's swap for people (`kubectl get swaporders`): each
// side's amount in its asset's units beside the asset's symbol and chain, from the asset
// catalog.
package orderdisplay

import (
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/units"
)

// Lookup finds an asset of the catalog by its id.
type Lookup func(assetID string) (catalog.Asset, bool)

// tableDigits is how many significant digits the table shows, as the swap page does: the
// exact amounts are in the order's spec and status.
const tableDigits = 4

// maxLen is the CRD's bound on OrderDisplay.Swap.
const maxLen = 256

// arrow joins the two sides. ASCII: kubectl's table writer counts bytes, so a three-byte "→"
// would widen the column by two.
const arrow = " -> "

// Created is the swap as the partner asked for it (spec.display): the fixed amount, every
// digit of it, and the other asset. An asset the catalog lacks shows its id and the amount
// stays in base units.
func Created(spec swapv1.SwapOrderSpec, lookup Lookup) *swapv1.OrderDisplay {
	in, out := fixed(spec)
	return render(spec, in, out, lookup, units.FormatString)
}

// Now is the swap as it stands (status.display, the table's SWAP): the fixed amount, and once
// the order succeeded the settled amount of the other side, what the recipient received (or,
// for an exact output, what was spent), cut to four significant digits. When the catalog
// lacks an asset (not loaded yet after a start, or its provider gone) it is what the order
// showed so far, else Created's text: a restart rewrites nothing.
func Now(spec swapv1.SwapOrderSpec, st swapv1.SwapOrderStatus, lookup Lookup) *swapv1.OrderDisplay {
	_, inKnown := lookup(spec.OriginAsset)
	_, outKnown := lookup(spec.DestinationAsset)
	switch {
	case inKnown && outKnown:
	case st.Display != nil:
		return st.Display.DeepCopy()
	case spec.Display != nil:
		return spec.Display.DeepCopy()
	}
	in, out := fixed(spec)
	if st.Status == swapv1.OrderSuccess {
		if spec.SwapType == swapv1.ExactOutput && st.AmountIn != "" {
			in = st.AmountIn
		}
		if spec.SwapType != swapv1.ExactOutput && st.AmountOut != "" {
			out = st.AmountOut
		}
	}
	return render(spec, in, out, lookup, func(amount string, decimals int) (string, bool) {
		return units.SignificantString(amount, decimals, tableDigits)
	})
}

// fixed is the amount the partner fixed, on its side: the input of an exact input, the
// output of an exact output.
func fixed(spec swapv1.SwapOrderSpec) (in, out string) {
	if spec.SwapType == swapv1.ExactOutput {
		return "", spec.Amount
	}
	return spec.Amount, ""
}

func render(spec swapv1.SwapOrderSpec, in, out string, lookup Lookup, format func(amount string, decimals int) (string, bool)) *swapv1.OrderDisplay {
	side := func(assetID, amount string) string {
		a, ok := lookup(assetID)
		if !ok {
			if amount != "" {
				return amount + " " + assetID
			}
			return assetID
		}
		name := a.Symbol + " (" + a.Chain + ")"
		if amount == "" {
			return name
		}
		if human, ok := format(amount, a.Decimals); ok {
			amount = human
		}
		return amount + " " + name
	}
	swap := side(spec.OriginAsset, in) + arrow + side(spec.DestinationAsset, out)
	if len(swap) > maxLen { // cut on a character boundary
		swap = strings.ToValidUTF8(swap[:maxLen], "")
	}
	return &swapv1.OrderDisplay{Swap: swap}
}
