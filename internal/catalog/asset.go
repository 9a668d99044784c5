// Package catalog is the union of the providers' asset lists, keyed by CAIP-19 id.
package catalog

import swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"

// Asset is the public asset record of /v1/assets.
type Asset struct {
	AssetID   string              `json:"assetId"`
	Chain     string              `json:"chain"`
	Symbol    string              `json:"symbol"`
	Name      string              `json:"name"`
	Decimals  int                 `json:"decimals"`
	Providers []swapv1.ProviderID `json:"providers"`
	// Stale: every provider listing it failed its last refresh; the record is the last known.
	Stale bool `json:"stale,omitempty"`
	// PriceUSD is one whole unit's price in US dollars as a provider gave it; absent when
	// no provider listing the asset gives prices.
	PriceUSD float64 `json:"priceUsd,omitempty"`
}
