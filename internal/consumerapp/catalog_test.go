package consumerapp

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

// The page gets the providers' display names with the assets, from /v1/providers, asked once
// for all users; without that endpoint it gets none (and shows the ids).
func TestAssetsCarryProviderNamesAndPrices(t *testing.T) {
	for _, tt := range []struct {
		name      string
		providers string // /v1/providers' answer; "" answers 404
		want      map[string]string
	}{
		{"names from /v1/providers", `{"providers":[{"providerId":"route_A","displayName":"NEAR Intents"},{"providerId":"route_B","displayName":""}]}`,
			map[string]string{"route_A": "NEAR Intents"}},
		{"no /v1/providers", "", map[string]string{}},
	} {
		var providerCalls atomic.Int32
		v1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/assets":
				_, _ = w.Write([]byte(`{"assets":[{"assetId":"eip155:1/slip44:60","chain":"eth","symbol":"ETH","name":"Ether","decimals":18,"priceUsd":2487.61}]}`))
			case "/v1/providers":
				providerCalls.Add(1)
				if tt.providers == "" {
					w.WriteHeader(http.StatusNotFound)
					_, _ = w.Write([]byte(`{"error":"not found"}`))
					return
				}
				_, _ = w.Write([]byte(tt.providers))
			}
		}))
		s, err := New(Options{APIURL: v1.URL, Key: upstream.Key{ID: "key", Secret: "s"}, Log: logr.Discard()})
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Assets        []asset
			ProviderNames map[string]string
		}
		for i := range 3 {
			w := get(s, "/api/assets", "", "10.0.0.1:1000")
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusOK {
				t.Fatalf("%s: %d %s", tt.name, w.Code, w.Body.String())
			}
			if len(body.ProviderNames) != len(tt.want) || body.ProviderNames["route_A"] != tt.want["route_A"] {
				t.Errorf("%s, call %d: providerNames %v, want %v", tt.name, i, body.ProviderNames, tt.want)
			}
		}
		if len(body.Assets) != 1 || body.Assets[0].PriceUSD != 2487.61 {
			t.Errorf("%s: assets %+v, want ETH's USD price", tt.name, body.Assets)
		}
		if n := providerCalls.Load(); n != 1 {
			t.Errorf("%s: /v1/providers asked %d times for 3 page loads, want once", tt.name, n)
		}
		v1.Close()
	}
}
