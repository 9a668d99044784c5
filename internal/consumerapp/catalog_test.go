package consumerapp

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/pkg/client"
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
			w.Header().Set("Content-Type", "application/json")
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
			Assets        []struct{ PriceUsd float64 }
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
		if len(body.Assets) != 1 || body.Assets[0].PriceUsd != 2487.61 {
			t.Errorf("%s: assets %+v, want ETH's USD price", tt.name, body.Assets)
		}
		if n := providerCalls.Load(); n != 1 {
			t.Errorf("%s: /v1/providers asked %d times for 3 page loads, want once", tt.name, n)
		}
		v1.Close()
	}
}

func TestProviderNotice(t *testing.T) {
	for _, tt := range []struct{ status, want string }{
		{"AVAILABLE", ""},
		{"DEGRADED", "Chainflip is slow right now"},
		{"UNAVAILABLE", "Chainflip is unavailable right now"},
		{"", ""},
	} {
		if got := providerNotice("Chainflip", client.ProviderHealthStatus(tt.status)); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.status, got, tt.want)
		}
	}
}

// A quote answer tells the page the routes' display names, a provider's that was applied
// after the page loaded too, and which providers this installation measures as slow or down.
func TestQuoteCarriesProviderNamesAndNotices(t *testing.T) {
	v1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/quote":
			_, _ = w.Write([]byte(`{"candidates":[],"errors":[]}`))
		case "/v1/providers":
			_, _ = w.Write([]byte(`{"providers":[{"providerId":"route_A","displayName":"NEAR Intents","status":"AVAILABLE"},` +
				`{"providerId":"route_B","displayName":"Chainflip","status":"DEGRADED"},` +
				`{"providerId":"oneclick_b","displayName":"NEAR Intents (second account)","status":"AVAILABLE"}]}`))
		}
	}))
	defer v1.Close()
	s, err := New(Options{APIURL: v1.URL, Key: upstream.Key{ID: "key", Secret: "s"}, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	w := pagePost(s, "/api/quote", `{"originAsset":"a","destinationAsset":"b","amount":"1"}`)
	var body struct {
		Candidates      []json.RawMessage
		ProviderNames   map[string]string
		ProviderNotices []string
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || w.Code != http.StatusOK {
		t.Fatalf("%d %s", w.Code, w.Body.String())
	}
	if len(body.ProviderNotices) != 1 || body.ProviderNotices[0] != "Chainflip is slow right now" {
		t.Errorf("providerNotices %q, want only Chainflip's", body.ProviderNotices)
	}
	want := map[string]string{"route_A": "NEAR Intents", "route_B": "Chainflip", "oneclick_b": "NEAR Intents (second account)"}
	if !maps.Equal(body.ProviderNames, want) {
		t.Errorf("providerNames %v, want %v", body.ProviderNames, want)
	}
}

// pagePost is a POST the page sends: with its session cookie and CSRF token, from its origin.
func pagePost(s *Server, path, body string) *httptest.ResponseRecorder {
	session := get(s, "/api/session", "", "10.0.0.1:1000")
	var info struct{ CSRFToken string }
	_ = json.Unmarshal(session.Body.Bytes(), &info)
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.RemoteAddr = "10.0.0.1:1000"
	r.AddCookie(session.Result().Cookies()[0])
	r.Header.Set("Origin", "http://example.com")
	r.Header.Set(csrfHeader, info.CSRFToken)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}
