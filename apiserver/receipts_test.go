package apiserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/receipt"
)

// receiptHarness is the archive harness whose frontend Secret holds one receipt key.
func receiptHarness(t *testing.T) (*harness, *memArchive) {
	h, arch := archiveHarness(t)
	if _, err := receipt.RotateSecret(context.Background(), h.client, testNS); err != nil {
		t.Fatal(err)
	}
	return h, arch
}

type receiptAnswer struct {
	Receipt string `json:"receipt"`
}

func (h *harness) receipt(id string) string {
	h.t.Helper()
	return decode[receiptAnswer](h.t, h.do(req{method: "GET", path: "/v1/order/" + id + "/receipt"}), http.StatusOK).Receipt
}

// verified checks r against the published key set (fetched without a key) and returns its
// payload and kid.
func (h *harness) verified(r string) (wire.ReceiptPayload, string) {
	h.t.Helper()
	set := decode[jose.JSONWebKeySet](h.t, h.do(req{method: "GET", path: "/.well-known/jwks.json", noAuth: true}), http.StatusOK)
	raw, err := receipt.Verify(r, set)
	if err != nil {
		h.t.Fatalf("the receipt does not verify with the published keys: %v", err)
	}
	var p wire.ReceiptPayload
	if err := json.Unmarshal(raw, &p); err != nil {
		h.t.Fatal(err)
	}
	jws, _ := jose.ParseSignedCompact(r, []jose.SignatureAlgorithm{jose.EdDSA})
	return p, jws.Signatures[0].Header.KeyID
}

// settle plays the provider finishing the order: SUCCESS with its settlement.
func settle(o *swapv1.SwapOrder) {
	o.Status.Status, o.Status.AmountOut, o.Status.DepositedAmount = swapv1.OrderSuccess, "4900", "5000"
	o.Status.InTxHashes, o.Status.OutTxHashes = []string{"0xin"}, []string{"0xout"}
	o.Status.LastSeq++
	o.Status.History = append(o.Status.History, swapv1.StatusTransition{Seq: o.Status.LastSeq, Status: swapv1.OrderSuccess,
		PreviousStatus: swapv1.OrderPending, At: swapv1.NewPreciseTime(time.Date(2026, 3, 10, 12, 4, 0, 123456000, time.UTC))})
}

func TestReceiptOfALiveOrderVerifiesAndStatesIt(t *testing.T) {
	h, _ := receiptHarness(t)
	o := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)

	p, _ := h.verified(h.receipt(o.ID))
	if p.OrderID != o.ID || p.Partner != "acme" || p.ProviderID != "route_B" || p.Amount != "5000" ||
		p.DepositAddress == nil || *p.DepositAddress != *o.DepositAddress || p.Status != "PENDING" || p.Final {
		t.Errorf("receipt payload %+v does not state the live order %+v", p, o)
	}
	// The controllers recorded its PENDING 5 s after this frontend's now: never dated before it.
	if last := p.History[len(p.History)-1].At; p.IssuedAt != last {
		t.Errorf("a live order's receipt is issued %s, before its last transition at %s", p.IssuedAt, last)
	}
	h.now = h.now.Add(time.Minute + 1500*time.Microsecond)
	if p, _ = h.verified(h.receipt(o.ID)); p.IssuedAt != "2026-03-10T12:01:00.001500Z" {
		t.Errorf("a live order's receipt asked later is issued %s, want now to the microsecond", p.IssuedAt)
	}
}

func TestFinalReceiptIsTheSameBytesAlsoFromTheArchive(t *testing.T) {
	h, arch := receiptHarness(t)
	o := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	h.writeStatus(orderid.ObjectName(o.ID), settle)

	first := h.receipt(o.ID)
	h.now = h.now.Add(time.Hour)
	if again := h.receipt(o.ID); again != first {
		t.Fatalf("the final receipt changed an hour later:\n%s\n%s", first, again)
	}
	live := h.order(o.ID)
	arch.put(live)
	if err := h.client.Delete(context.Background(), live); err != nil {
		t.Fatal(err)
	}
	if archived := h.receipt(o.ID); archived != first {
		t.Fatalf("the archived order's receipt differs from the live one:\n%s\n%s", first, archived)
	}
	p, _ := h.verified(first)
	if !p.Final || p.Status != "SUCCESS" || *p.AmountOut != "4900" || p.IssuedAt != "2026-03-10T12:04:00.123456Z" || len(p.OutTxHashes) != 1 {
		t.Errorf("final receipt payload %+v", p)
	}
}

func TestReceiptOfAnotherPartnersOrderIsNotFound(t *testing.T) {
	h, _ := receiptHarness(t)
	o := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	expectError(t, h.do(req{method: "GET", path: "/v1/order/" + o.ID + "/receipt", keyID: globexKey, secret: globexSec}),
		apierror.OrderNotFound)
	expectError(t, h.do(req{method: "GET", path: "/v1/order/ord_aaaaaaaaaaaaaaaaaaaaaaaaaa/receipt"}), apierror.OrderNotFound)
}

func TestRotatedReceiptKeySignsWhileTheOldOneStillVerifies(t *testing.T) {
	h, _ := receiptHarness(t)
	o := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	before := h.receipt(o.ID)
	_, oldKid := h.verified(before)

	newKid, err := receipt.RotateSecret(context.Background(), h.client, testNS)
	if err != nil {
		t.Fatal(err)
	}
	if _, kid := h.verified(before); kid != oldKid {
		t.Fatalf("kid changed: %s", kid)
	}
	if _, kid := h.verified(h.receipt(o.ID)); kid != newKid || kid == oldKid {
		t.Errorf("after rotation the receipt is signed by %s, want the new key %s", kid, newKid)
	}
}

func TestReceiptWithoutSigningKeysIsUnavailable(t *testing.T) {
	h, _ := archiveHarness(t)
	o := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), http.StatusCreated)
	expectError(t, h.do(req{method: "GET", path: "/v1/order/" + o.ID + "/receipt"}), apierror.Unavailable)
	keys := decode[jose.JSONWebKeySet](t, h.do(req{method: "GET", path: "/.well-known/jwks.json", noAuth: true}), http.StatusOK)
	if len(keys.Keys) != 0 {
		t.Errorf("keys published without a Secret: %+v", keys)
	}
	var s corev1.Secret
	if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: auth.FrontendSecret}, &s); err == nil {
		t.Errorf("serving a receipt created the Secret")
	}
}
