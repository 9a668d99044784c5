package apiserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/screening"
)

// listedAddress is on the sanctions list below (as published: EIP-55 checksummed).
const listedAddress = "0x8589427373d6d84e98730d7795d8f6f8731fda16"

const sanctionsCSV = "25308,\"LAZARUS GROUP\",-0- ,\"DPRK3\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"Digital Currency Address - ETH 0x8589427373D6D84E98730D7795D8f6f8731FDA16; Digital Currency Address - XBT 1AjZPMsnmpdK2Rv9KQNfMurTXinscVro9V\"\r\n"

// screenedHarness is a harness whose frontend screens with the SDN list above; acme's
// policy is policy (nil: the defaults).
func screenedHarness(t *testing.T, policy *swapv1.PartnerScreening) *harness {
	t.Helper()
	return listHarness(t, screening.Published{Present: true, SDN: []byte(sanctionsCSV), Date: "2026-03-01"}, policy)
}

// listHarness is a harness whose frontend screens with the list published.
func listHarness(t *testing.T, published screening.Published, policy *swapv1.PartnerScreening) *harness {
	t.Helper()
	h := newHarness(t)
	list, err := screening.NewSanctions(prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	list.Load(published)
	h.srv.opts.Screener = screening.Sources{list}
	if policy != nil {
		p := &swapv1.Partner{}
		if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: "acme"}, p); err != nil {
			t.Fatal(err)
		}
		p.Spec.Screening = policy
		if err := h.client.Update(context.Background(), p); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestScreeningBlocks(t *testing.T) {
	h := screenedHarness(t, nil)
	tests := []struct {
		name, path, field string
		body              map[string]any
	}{
		{"a listed refundTo", "/v1/order", "refundTo", with(orderBody(), "refundTo", listedAddress)},
		{"a listed sender, in another case", "/v1/order", "sender", with(orderBody(), "sender", "0x8589427373D6D84E98730D7795D8F6F8731FDA16")},
		{"a listed recipient of a dry:false quote", "/v1/quote", "recipient", with(quoteBody(false), "recipient", "0x8589427373D6D84E98730D7795D8f6f8731FDA16")},
		// The same key on Tron: base58check of 0x41 and the listed 20 bytes.
		{"the listed key as a Tron recipient", "/v1/order", "recipient", with(orderBody(), "destinationAsset", trx, "recipient", "TN9HJXyVnHKK2EfX48gzLKrBK5mXqZHkHH")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quotes := h.router.callCount()
			body := expectError(t, h.do(req{method: "POST", path: tt.path, body: tt.body}), apierror.AddressNotAllowed)
			if detail, _ := body["detail"].(string); !strings.HasPrefix(detail, tt.field+":") {
				t.Errorf("detail %q does not name %s", detail, tt.field)
			}
			if h.orderCount() != 0 || h.router.callCount() != quotes {
				t.Errorf("a blocked request created %d orders and asked %d quotes", h.orderCount(), h.router.callCount()-quotes)
			}
		})
	}

	// A dry quote takes placeholders: it is never screened.
	if rec := h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(true), "sender", listedAddress)}); rec.Code != 200 {
		t.Fatalf("dry quote with a listed sender: %d %s", rec.Code, rec.Body)
	}
	// A clean order goes through and keeps the decision: source and list version.
	got := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
	rec := h.order(got.ID).Spec.Screening
	if rec == nil || rec.Outcome != swapv1.ScreeningClear || len(rec.Sources) != 1 || rec.Sources[0].Name != screening.SourceOFAC ||
		!strings.HasPrefix(rec.Sources[0].Version, "2026-03-01 sha256:") || len(rec.Matches) != 0 {
		t.Fatalf("screening record %+v", rec)
	}
}

func TestScreeningHoldsForReview(t *testing.T) {
	h := screenedHarness(t, &swapv1.PartnerScreening{OnMatch: swapv1.ScreeningHoldForReview})
	// The reconciler's answer to a held order: no address, HELD_FOR_REVIEW.
	h.setReconcile(func(o *swapv1.SwapOrder) {
		if o.Spec.Screening != nil && o.Spec.Screening.Outcome == swapv1.ScreeningHeld {
			o.Status.Substatus = swapv1.SubstatusHeldForReview
		}
	})
	rec := h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "refundTo", listedAddress)})
	got := decode[wire.Order](t, rec, 202)
	if got.Status != wire.OrderStatusPENDING || got.Substatus == nil || *got.Substatus != "HELD_FOR_REVIEW" || got.DepositAddress != nil {
		t.Fatalf("held order answered %s", rec.Body)
	}
	if rec.Header().Get("Location") != "/v1/order/"+got.ID {
		t.Errorf("Location %q", rec.Header().Get("Location"))
	}
	held := h.order(got.ID).Spec.Screening
	if held == nil || held.Outcome != swapv1.ScreeningHeld || len(held.Matches) != 1 ||
		held.Matches[0].Field != "refundTo" || !strings.HasPrefix(held.Matches[0].Entry, "SDN 25308 LAZARUS GROUP [DPRK3]") {
		t.Fatalf("screening record %+v", held)
	}
}

// No list, an empty list, a broken list and an incomplete one are each a state in which the
// list cannot clear an order: a fail-closed partner's request is refused with 503 and nothing
// is created, counted or quoted; a fail-open partner's order is created and records why the
// list could not screen it. What an incomplete list does list is still refused.
func TestScreeningWithoutAUsableList(t *testing.T) {
	cut := strings.Repeat("Website example.test; ", 44) + "Digital Currency Address - XBT 1AjZPMsnmpdK2Rv9K"
	for _, tt := range []struct {
		name      string
		published screening.Published
		state     string
	}{
		{"no ConfigMap", screening.Published{Where: "ConfigMap swaprouter-sanctions"}, "missing"},
		{"an empty SDN.CSV", screening.Published{Present: true, SDN: []byte{}}, "empty"},
		{"an error page", screening.Published{Present: true, SDN: []byte("<html>503 Service Unavailable</html>")}, "broken"},
		{"a remark cut with no SDN_COMMENTS.CSV", screening.Published{Present: true, SDN: []byte(sanctionsCSV +
			"30000,\"CUT\",-0- ,\"CYBER2\",-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,-0- ,\"" + cut + "\"\r\n")}, "incomplete"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := listHarness(t, tt.published, nil)
			quotes := h.router.callCount()
			rec := h.do(req{method: "POST", path: "/v1/order", body: orderBody()})
			body := expectError(t, rec, apierror.Unavailable)
			if rec.Header().Get("Retry-After") != "60" || strings.Contains(body["detail"].(string), "ConfigMap") {
				t.Errorf("Retry-After %q, detail %q", rec.Header().Get("Retry-After"), body["detail"])
			}
			expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(false)}), apierror.Unavailable)
			if got := counterSum(t, h.metrics, "swaprouter_screening_decisions_total", map[string]string{"decision": "refused"}); got != 2 {
				t.Errorf("%v refusals counted, want 2", got)
			}
			if h.orderCount() != 0 || h.router.callCount() != quotes {
				t.Errorf("a refused request created %d orders and asked %d quotes", h.orderCount(), h.router.callCount()-quotes)
			}
			if tt.state == "incomplete" {
				expectError(t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "refundTo", listedAddress)}), apierror.AddressNotAllowed)
			}

			p := &swapv1.Partner{}
			if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: "acme"}, p); err != nil {
				t.Fatal(err)
			}
			p.Spec.Screening = &swapv1.PartnerScreening{OnUnavailable: swapv1.ScreeningFailOpen}
			if err := h.client.Update(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			got := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
			sc := h.order(got.ID).Spec.Screening
			if sc == nil || sc.Outcome != swapv1.ScreeningFailedOpen || len(sc.Sources) != 1 ||
				!strings.HasPrefix(sc.Sources[0].Unavailable, "the sanctions list is "+tt.state) {
				t.Fatalf("a fail-open order's screening record %+v", sc)
			}
		})
	}
}
