package apiserver

import (
	"strings"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/units"
)

// orderDisplay renders spec's swap for people: the fixed amount in its asset's units beside
// that asset, and the other asset. An asset the catalog lacks shows its id and the amount
// stays in base units.
func orderDisplay(spec swapv1.SwapOrderSpec, lookup func(assetID string) (catalog.Asset, bool)) *swapv1.OrderDisplay {
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
		if human, ok := units.FormatString(amount, a.Decimals); ok {
			amount = human
		}
		return amount + " " + name
	}
	inAmount, outAmount := spec.Amount, ""
	if spec.SwapType == swapv1.ExactOutput {
		inAmount, outAmount = "", spec.Amount
	}
	swap := side(spec.OriginAsset, inAmount) + " → " + side(spec.DestinationAsset, outAmount)
	if len(swap) > 256 { // the CRD's bound; cut on a character boundary
		swap = strings.ToValidUTF8(swap[:256], "")
	}
	return &swapv1.OrderDisplay{Swap: swap}
}
