package apiserver

import (
	"slices"
	"strings"
	"testing"

	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/catalog"
)

func TestListAssets(t *testing.T) {
	h := newHarness(t)
	all := decode[map[string][]catalog.Asset](t, h.do(req{method: "GET", path: "/v1/assets"}), 200)["assets"]
	if len(all) != 5 {
		t.Fatalf("%d assets", len(all))
	}
	eth := decode[map[string][]catalog.Asset](t, h.do(req{method: "GET", path: "/v1/assets?chain=eth&search=usd"}), 200)["assets"]
	if len(eth) != 1 || eth[0].Symbol != "USDC" || eth[0].Decimals != 6 || len(eth[0].Providers) != 2 {
		t.Errorf("filtered %+v", eth)
	}
	rec := h.do(req{method: "GET", path: "/v1/assets?chain=btc"})
	if got := rec.Body.String(); !strings.Contains(got, `"assets":[]`) {
		t.Errorf("empty list renders as %s", got)
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/assets?search=" + strings.Repeat("x", 101)}), apierror.InvalidRequest)
}

func TestSwappableTargets(t *testing.T) {
	h := newHarness(t)
	got := decode[struct {
		From    string   `json:"from"`
		Targets []string `json:"targets"`
	}](t, h.do(req{method: "GET", path: "/v1/swappable-targets?from=" + eth}), 200)
	slices.Sort(got.Targets)
	want := []string{usdc, sol, trx}
	slices.Sort(want)
	if got.From != eth || !slices.Equal(got.Targets, want) {
		t.Errorf("got %+v", got)
	}
	if rec := h.do(req{method: "GET", path: "/v1/swappable-targets?from=" + unroutable}); !strings.Contains(rec.Body.String(), `"targets":[]`) {
		t.Errorf("no targets renders as %s", rec.Body)
	}
	body := expectError(t, h.do(req{method: "GET", path: "/v1/swappable-targets"}), apierror.InvalidRequest)
	if !strings.HasPrefix(body["detail"].(string), "from:") {
		t.Errorf("detail %v does not name the field", body["detail"])
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/swappable-targets?from=eip155:1/erc20:0xdead"}), apierror.UnknownAsset)
}
