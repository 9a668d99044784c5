package apiserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
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
	h := newHarness(t)
	list, err := screening.NewSanctions(prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	if err := list.Load([]byte(sanctionsCSV), "2026-03-01"); err != nil {
		t.Fatal(err)
	}
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
	got := decode[orderRecord](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
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
	got := decode[orderRecord](t, rec, 202)
	if got.Status != swapv1.OrderPending || got.Substatus == nil || *got.Substatus != "HELD_FOR_REVIEW" || got.DepositAddress != nil {
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
