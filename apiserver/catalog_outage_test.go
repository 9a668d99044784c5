package apiserver

import (
	"errors"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// While a provider whose assets are not known yet is down, an id missing from the asset list
// may be one it routes: the partner gets the outage (retry with backoff), never `unknown
// originAsset/destinationAsset` ("fix first"), on every route that looks assets up.
func TestUnknownAssetDuringOutage(t *testing.T) {
	missing := "eip155:1/erc20:0x6b175474e89094c44da98b954eedeac495271d0f"
	routes := []req{
		{method: "POST", path: "/v1/order", body: with(orderBody(), "destinationAsset", missing)},
		{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "originAsset", missing)},
		{method: "POST", path: "/v1/rates", body: map[string]any{"from": missing, "amount": "5000", "targets": []string{usdc}}},
		{method: "GET", path: "/v1/swappable-targets?from=" + missing},
	}
	for _, tc := range []struct {
		name   string
		outage error
		want   apierror.Code
	}{
		{"no outage: fix first", nil, apierror.UnknownAsset},
		{"provider answers 503", &provider.Error{Kind: provider.KindUpstream, Upstream: &provider.Upstream{Status: 503, Path: "GET /v0/tokens"}}, apierror.UpstreamError},
		{"provider times out", &provider.Error{Kind: provider.KindTimeout}, apierror.UpstreamTimeout},
		{"credentials missing", errors.New("Secret route-a-token not found"), apierror.UpstreamError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.opts.Catalog.(*fakeCatalog).outage = tc.outage
			for _, r := range routes {
				body := expectError(t, h.do(r), tc.want)
				if tc.outage != nil && body["upstream"] == nil && tc.want == apierror.UpstreamError && provider.AsError(tc.outage).Upstream != nil {
					t.Errorf("%s %s: no upstream info in %v", r.method, r.path, body)
				}
			}
			if n := h.orderCount(); n != 0 {
				t.Errorf("%d orders created", n)
			}
		})
	}
}

// A new replica takes no traffic until its catalog has heard from every enabled provider;
// once loaded it stays ready through later provider outages (the catalog keeps stale assets).
func TestReadyzWaitsForCatalog(t *testing.T) {
	rp := func(name string, id swapv1.ProviderID, enabled bool) *swapv1.RoutingProvider {
		return &swapv1.RoutingProvider{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: name},
			Spec: swapv1.RoutingProviderSpec{ProviderID: id, Enabled: enabled}}
	}
	h := newHarness(t, rp("route-a", swapv1.ProviderRouteA, true), rp("route-b", swapv1.ProviderRouteB, false))
	cat := h.srv.opts.Catalog.(*fakeCatalog)
	cat.unheard = map[swapv1.ProviderID]bool{swapv1.ProviderRouteA: true, swapv1.ProviderRouteB: true}
	readyz := func() int { return h.do(req{method: "GET", path: "/readyz", noAuth: true}).Code }
	if got := readyz(); got != http.StatusServiceUnavailable {
		t.Fatalf("readyz before the first catalog load: %d", got)
	}
	// route_B is disabled: nothing to wait for.
	cat.unheard = map[swapv1.ProviderID]bool{swapv1.ProviderRouteB: true}
	if got := readyz(); got != http.StatusOK {
		t.Fatalf("readyz after route_A was heard from: %d", got)
	}
	cat.unheard = map[swapv1.ProviderID]bool{swapv1.ProviderRouteA: true}
	if got := readyz(); got != http.StatusOK {
		t.Errorf("readyz after the first load: %d, want it to stay ready", got)
	}
}
