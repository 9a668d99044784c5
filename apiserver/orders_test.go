package apiserver

import (
	"context"
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/internal/orders"
)

func clientKey(name string) client.ObjectKey {
	return client.ObjectKey{Namespace: testNS, Name: name}
}

func (h *harness) order(id string) *swapv1.SwapOrder {
	h.t.Helper()
	o := &swapv1.SwapOrder{}
	if err := h.client.Get(context.Background(), client.ObjectKey{Namespace: testNS, Name: orderid.ObjectName(id)}, o); err != nil {
		h.t.Fatal(err)
	}
	return o
}

func (h *harness) orderCount() int {
	var list swapv1.SwapOrderList
	if err := h.client.List(context.Background(), &list); err != nil {
		h.t.Fatal(err)
	}
	return len(list.Items)
}

func TestCreateOrder(t *testing.T) {
	h := newHarness(t)
	rec := h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "slippageToleranceBps", 50)})
	if rec.Code != 201 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	// Every field of design.md's order record is present.
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	fields := []string{"id", "status", "statusReason", "substatus", "providerStatus", "providerId", "originAsset", "destinationAsset", "amount", "swapType",
		"slippageToleranceBps", "sender", "recipient", "refundTo", "depositAddress", "depositMemo", "quote", "depositDeadline",
		"inTxHashes", "outTxHashes", "amountIn", "amountOut", "depositedAmount", "refundedAmount", "createdAt", "updatedAt", "history",
		"clientReference"}
	for _, f := range fields {
		if _, ok := raw[f]; !ok {
			t.Errorf("order record lacks %q", f)
		}
	}
	if len(raw) != len(fields) {
		t.Errorf("order record has %d fields, want %d: %s", len(raw), len(fields), rec.Body)
	}
	var got wire.Order
	_ = json.Unmarshal(rec.Body.Bytes(), &got)
	if !orderid.Valid(got.ID) || got.Status != wire.OrderStatusPENDING || got.DepositAddress == nil || got.ProviderID != "route_B" ||
		*got.SlippageToleranceBps != 50 || got.SwapType != wire.OrderSwapTypeEXACTINPUT || got.RefundTo != nil ||
		*got.DepositDeadline != "2026-03-10T13:00:00Z" || got.UpdatedAt != "2026-03-10T12:00:05.000000Z" || got.CreatedAt != "2026-03-10T12:00:00.000000Z" || len(got.History) != 1 {
		t.Errorf("record %s", rec.Body)
	}
	o := h.order(got.ID)
	if o.Spec.Partner != "acme" || o.Spec.OrderID != got.ID || o.Spec.Quote != nil || o.Spec.IdempotencyKeyHash != "" ||
		o.Labels["swap.swaprouter.dev/partner"] != "acme" || o.Annotations[swapv1.AnnotationCreatedAt] != "2026-03-10T12:00:00.000000Z" {
		t.Errorf("SwapOrder %+v %v", o.Spec, o.Labels)
	}
	if raw["inTxHashes"] == nil || string(raw["inTxHashes"]) != "[]" {
		t.Errorf("inTxHashes %s", raw["inTxHashes"])
	}
}

func TestCreateOrderRefusals(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		body map[string]any
		code apierror.Code
	}{
		{"no providerId", with(orderBody(), "providerId", nil), apierror.ProviderIDRequired},
		{"empty providerId", with(orderBody(), "providerId", ""), apierror.ProviderIDRequired},
		{"a provider this installation does not have", with(orderBody(), "providerId", "route_C"), apierror.UnsupportedPair},
		{"a providerId no installation can have", with(orderBody(), "providerId", "route C!"), apierror.InvalidRequest},
		{"no sender", with(orderBody(), "sender", nil), apierror.InvalidRequest},
		{"sender with spaces", with(orderBody(), "sender", "0x a"), apierror.InvalidRequest},
		{"no recipient", with(orderBody(), "recipient", nil), apierror.InvalidRequest},
		{"sender of another chain", with(orderBody(), "sender", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"), apierror.InvalidRequest},
		{"recipient with a checksum typo", with(orderBody(), "recipient", "0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed"), apierror.InvalidRequest},
		{"recipient with a zero-width space", with(orderBody(), "recipient", "0x22222222222222222222\u200b222222222222222222222"), apierror.InvalidRequest},
		{"refundTo with a bidi override", with(orderBody(), "refundTo", "\u202e0x1111111111111111111111111111111111111111"), apierror.InvalidRequest},
		{"EVM recipient for a Solana asset", with(orderBody(), "destinationAsset", sol, "providerId", "route_A"), apierror.InvalidRequest},
		{"dry is not an order field", with(orderBody(), "dry", false), apierror.InvalidRequest},
		{"unknown origin", with(orderBody(), "originAsset", "eip155:1/erc20:0xdead"), apierror.UnknownAsset},
		{"unknown destination", with(orderBody(), "destinationAsset", "eip155:1/erc20:0xdead"), apierror.UnknownAsset},
		{"provider does not route the pair", with(orderBody(), "destinationAsset", trx, "providerId", "route_A"), apierror.UnsupportedPair},
		{"nobody routes the pair", with(orderBody(), "originAsset", usdc, "destinationAsset", eth), apierror.UnsupportedPair},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectError(t, h.do(req{method: "POST", path: "/v1/order", body: tt.body}), tt.code)
		})
	}
	if n := h.orderCount(); n != 0 {
		t.Errorf("refused requests created %d orders", n)
	}
	expectError(t, h.do(req{method: "POST", path: "/v1/order", body: orderBody(),
		headers: map[string]string{"Idempotency-Key": "has space"}}), apierror.InvalidRequest)
}

// An installation of three providers names them all in the providerId-required code, and the
// document (which every answer is validated against) allows it.
func TestCreateOrderWithoutProviderListsTheInstallations(t *testing.T) {
	h := newHarness(t, routingProvider("route_A"), routingProvider("route_B"), routingProvider("relay"))
	expectError(t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), "providerId", nil)}),
		"providerId required (relay | route_A | route_B)")
}

func TestCreateOrderFailedByProvider(t *testing.T) {
	tests := []struct {
		reason string
		code   apierror.Code
		detail string
	}{
		{orders.ReasonAmountTooLow, apierror.AmountTooLow, "below the provider's minimum"},
		{orders.ReasonAmountTooHigh, apierror.AmountTooHigh, "above the provider's maximum"},
		{orders.ReasonUnsupportedPair, apierror.UnsupportedPair, "route_B cannot route this pair"},
		{orders.ReasonProviderDisabled, apierror.UnsupportedPair, "route_B cannot route this pair"},
		{orders.ReasonProviderRefused, apierror.InvalidRequest, "the provider refused the order"},
		{"SomethingNew", apierror.UpstreamError, "failed: SomethingNew"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			h := newHarness(t)
			h.setReconcile(func(o *swapv1.SwapOrder) {
				o.Status.Status, o.Status.StatusReason = swapv1.OrderFailed, tt.reason
			})
			body := expectError(t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), tt.code)
			if !strings.Contains(body["detail"].(string), tt.detail) || !strings.Contains(body["detail"].(string), "ord_") {
				t.Errorf("detail %q", body["detail"])
			}
		})
	}
}

func TestCreateOrderFailedNamesQuoteLimit(t *testing.T) {
	h := newHarness(t)
	h.setReconcile(func(o *swapv1.SwapOrder) {
		o.Status.Status, o.Status.StatusReason = swapv1.OrderFailed, orders.ReasonAmountTooLow
	})
	body := expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: quoteBody(false)}), apierror.AmountTooLow)
	if !strings.HasPrefix(body["detail"].(string), "minimum amount is 1000") {
		t.Errorf("detail %q", body["detail"])
	}
}

func TestCreateOrderIdempotency(t *testing.T) {
	h := newHarness(t)
	withKey := func(body map[string]any) req {
		return req{method: "POST", path: "/v1/order", body: body, headers: map[string]string{"Idempotency-Key": "k-1"}}
	}
	first := decode[wire.Order](t, h.do(withKey(orderBody())), 201)
	if first.ID != orderid.ForIdempotencyKey(testNS, "acme", "k-1") {
		t.Errorf("id %s is not derived from the key", first.ID)
	}
	// Same body, differently encoded: same order.
	reordered := `{"recipient":"0x2222222222222222222222222222222222222222","providerId":"route_B","amount":"5000","sender":"0x1111111111111111111111111111111111111111",` +
		`"destinationAsset":"` + usdc + `","originAsset":"` + eth + `", "swapType":"EXACT_INPUT"}`
	again := decode[wire.Order](t, h.do(withKey(map[string]any{}).withBody(reordered)), 201)
	if again.ID != first.ID || *again.DepositAddress != *first.DepositAddress {
		t.Errorf("retry got %s, first %s", again.ID, first.ID)
	}
	expectError(t, h.do(withKey(with(orderBody(), "amount", "5001"))), apierror.IdempotencyKeyReused)
	// The same key of another partner is another order.
	other := withKey(orderBody())
	other.keyID, other.secret = globexKey, globexSec
	if o := decode[wire.Order](t, h.do(other), 201); o.ID == first.ID {
		t.Error("partners share idempotency keys")
	}
	if n := h.orderCount(); n != 2 {
		t.Errorf("%d orders, want 2", n)
	}
}

func (r req) withBody(b string) req { r.body = b; return r }

// contractClient posts like a client following the contract's retry strategy (section 7):
// 5xx and upstream failures are retried, at most 4 times (the backoff delays do not change
// what is created, so they are left out). It returns the last answer.
func contractClient(h *harness, r req) *httptest.ResponseRecorder {
	rec := h.do(r)
	for retry := 0; retry < 4 && rec.Code >= 500; retry++ {
		rec = h.do(r)
	}
	return rec
}

// The bounded wait for the deposit address ends: the partner gets the order it created (202,
// no address yet, a Location to poll), never an error inviting a retry into a second order.
func TestCreateOrderWaitEndsWith202(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers map[string]string
	}{
		{"without Idempotency-Key", nil},
		{"with Idempotency-Key", map[string]string{"Idempotency-Key": "slow"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.setReconcile(nil) // the provider has not issued an address
			rec := contractClient(h, req{method: "POST", path: "/v1/order", body: orderBody(), headers: tc.headers})
			got := decode[wire.Order](t, rec, 202)
			if got.DepositAddress != nil || got.Status != wire.OrderStatusPENDING || !orderid.Valid(got.ID) {
				t.Errorf("202 body: %+v", got)
			}
			if loc := rec.Header().Get("Location"); loc != "/v1/order/"+got.ID {
				t.Errorf("Location %q, want /v1/order/%s", loc, got.ID)
			}
			if tc.headers != nil && got.ID != orderid.ForIdempotencyKey(testNS, "acme", "slow") {
				t.Errorf("id %s is not the key's", got.ID)
			}
			if n := h.orderCount(); n != 1 {
				t.Fatalf("%d SwapOrders after a contract-following client, want 1", n)
			}
			// Polling the Location shows the address once the reconciler answers.
			h.writeStatus(orderid.ObjectName(got.ID), issueAddress)
			polled := decode[wire.Order](t, h.do(req{method: "GET", path: rec.Header().Get("Location")}), 200)
			if polled.DepositAddress == nil {
				t.Errorf("polled order has no address: %+v", polled)
			}
			// A retry with the same key returns the same order, now 201 with its address.
			if tc.headers != nil {
				again := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody(), headers: tc.headers}), 201)
				if again.ID != got.ID || again.DepositAddress == nil || h.orderCount() != 1 {
					t.Errorf("retry: %+v, %d orders", again, h.orderCount())
				}
			}
		})
	}
}

// A dry:false quote whose order waits past the bound answers 202 {order, quote} as well.
func TestQuoteOrderWaitEndsWith202(t *testing.T) {
	h := newHarness(t)
	h.setReconcile(nil)
	rec := contractClient(h, req{method: "POST", path: "/v1/quote", body: quoteBody(false)})
	got := decode[struct {
		Order wire.Order             `json:"order"`
		Quote *swapv1.QuoteCandidate `json:"quote"`
	}](t, rec, 202)
	if got.Order.DepositAddress != nil || got.Quote == nil || rec.Header().Get("Location") != "/v1/order/"+got.Order.ID {
		t.Errorf("202: %+v, Location %q", got, rec.Header().Get("Location"))
	}
	if n := h.orderCount(); n != 1 {
		t.Errorf("%d SwapOrders, want 1", n)
	}
}

func TestCreateOrderWakesOnStatus(t *testing.T) {
	h := newHarness(t)
	h.srv.opts.WaitTimeout = 30 * time.Second // the status write must end the wait, not the timeout
	h.setReconcile(nil)
	h.created = make(chan string, 1)
	done := make(chan wire.Order)
	go func() {
		done <- decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
	}()
	// Play the reconciler once the order exists.
	h.writeStatus(<-h.created, issueAddress)
	if got := <-done; got.DepositAddress == nil {
		t.Errorf("got %+v", got)
	}
}

func TestCreateOrderInternalError(t *testing.T) {
	h := newHarness(t)
	h.failCreate = true
	body := expectError(t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), apierror.Internal)
	if body["detail"] != nil {
		t.Errorf("internal details leaked: %v", body["detail"])
	}
}

// A kube-apiserver that cannot be reached (restarting, overloaded) is a moment to come back
// after, not an internal error: 503 with Retry-After, so partners back off.
func TestCreateOrderAPIServerUnavailable(t *testing.T) {
	for name, err := range map[string]error{
		"connection refused": &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}},
		"503 from it":        apierrors.NewServiceUnavailable("etcd is restarting"),
		"timeout":            apierrors.NewTimeoutError("request did not complete", 1),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			h.failCreate, h.createErr = true, err
			resp := h.do(req{method: "POST", path: "/v1/order", body: orderBody()})
			expectError(t, resp, apierror.Unavailable)
			if resp.Header().Get("Retry-After") != "1" {
				t.Errorf("Retry-After %q", resp.Header().Get("Retry-After"))
			}
		})
	}
}

func TestGetOrder(t *testing.T) {
	h := newHarness(t)
	created := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
	got := decode[wire.Order](t, h.do(req{method: "GET", path: "/v1/order/" + created.ID}), 200)
	if got.ID != created.ID || *got.DepositAddress != *created.DepositAddress {
		t.Errorf("got %+v", got)
	}
	missing := h.do(req{method: "GET", path: "/v1/order/" + orderid.New()})
	expectError(t, missing, apierror.OrderNotFound)
	others := h.do(req{method: "GET", path: "/v1/order/" + created.ID, keyID: globexKey, secret: globexSec})
	expectError(t, others, apierror.OrderNotFound)
	if others.Body.String() != missing.Body.String() {
		t.Errorf("another partner's order (%s) is distinguishable from a missing one (%s)", others.Body, missing.Body)
	}
	for _, bad := range []string{"ord-" + created.ID[4:], "nope", strings.ToUpper(created.ID), created.ID + "a"} {
		expectError(t, h.do(req{method: "GET", path: "/v1/order/" + bad}), apierror.OrderNotFound)
	}
}

func TestSubmitDeposit(t *testing.T) {
	h := newHarness(t)
	created := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
	path := "/v1/order/" + created.ID + "/deposit"

	expectError(t, h.do(req{method: "POST", path: path, body: map[string]any{}}), apierror.MissingTxHash)
	expectError(t, h.do(req{method: "POST", path: path, body: map[string]any{"txHash": ""}}), apierror.MissingTxHash)
	expectError(t, h.do(req{method: "POST", path: path, body: map[string]any{"txHash": "0xabc", "memo": "x"}}), apierror.InvalidRequest)
	expectError(t, h.do(req{method: "POST", path: path, body: map[string]any{"txHash": "0xabc"}, keyID: globexKey, secret: globexSec}),
		apierror.OrderNotFound)
	expectError(t, h.do(req{method: "POST", path: "/v1/order/" + orderid.New() + "/deposit", body: map[string]any{"txHash": "0xabc"}}),
		apierror.OrderNotFound)

	got := decode[wire.Order](t, h.do(req{method: "POST", path: path, body: map[string]any{"txHash": "0xabc", "nearSenderAccount": "alice.near"}}), 202)
	if got.ID != created.ID {
		t.Errorf("got %+v", got)
	}
	if hint := h.order(created.ID).Spec.DepositHint; hint == nil || hint.TxHash != "0xabc" || hint.NearSenderAccount != "alice.near" {
		t.Errorf("hint %+v", hint)
	}

	for _, terminal := range []swapv1.OrderStatus{swapv1.OrderSuccess, swapv1.OrderRefunded, swapv1.OrderFailed} {
		h.writeStatus(orderid.ObjectName(created.ID), func(o *swapv1.SwapOrder) { o.Status.Status = terminal })
		body := expectError(t, h.do(req{method: "POST", path: path, body: map[string]any{"txHash": "0xdef"}}), apierror.OrderTerminal)
		if !strings.Contains(body["detail"].(string), string(terminal)) {
			t.Errorf("detail %v", body["detail"])
		}
	}
	if hint := h.order(created.ID).Spec.DepositHint; hint.TxHash != "0xabc" {
		t.Errorf("terminal order's hint changed to %s", hint.TxHash)
	}
}

func TestOrderRecordHistory(t *testing.T) {
	h := newHarness(t)
	created := decode[wire.Order](t, h.do(req{method: "POST", path: "/v1/order", body: orderBody()}), 201)
	h.writeStatus(orderid.ObjectName(created.ID), func(o *swapv1.SwapOrder) {
		o.Status.Status = swapv1.OrderSuccess
		o.Status.InTxHashes, o.Status.OutTxHashes = []string{"0xin"}, []string{"0xout"}
		o.Status.AmountIn, o.Status.AmountOut = "5000", "949"
		o.Status.History = append(o.Status.History,
			swapv1.StatusTransition{Seq: 2, Status: swapv1.OrderSuccess, PreviousStatus: swapv1.OrderPending, Reason: "Settled",
				At: o.Status.History[0].At})
	})
	got := decode[wire.Order](t, h.do(req{method: "GET", path: "/v1/order/" + created.ID}), 200)
	if got.Status != wire.OrderStatusSUCCESS || !slices.Equal(got.InTxHashes, []string{"0xin"}) || *got.AmountOut != "949" ||
		len(got.History) != 2 || *got.History[1].PreviousStatus != "PENDING" || got.History[0].PreviousStatus != nil {
		t.Errorf("record %+v", got)
	}
}

// POST /v1/order and POST /v1/quote with dry:false create orders through one path: every
// order they refuse, they refuse with the same answer, before any order or quote.
func TestOrderAndDryFalseQuoteRefuseAlike(t *testing.T) {
	h := screenedHarness(t, nil)
	const solAddress = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	tests := []struct {
		name    string
		change  []any
		headers map[string]string
		code    apierror.Code
	}{
		{"unknown origin", []any{"originAsset", "eip155:1/erc20:0xdead"}, nil, apierror.UnknownAsset},
		{"sender of another chain", []any{"sender", solAddress}, nil, apierror.InvalidRequest},
		{"recipient with a checksum typo", []any{"recipient", "0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed"}, nil, apierror.InvalidRequest},
		{"refundTo of another chain", []any{"refundTo", solAddress}, nil, apierror.InvalidRequest},
		{"refundTo with a bidi override", []any{"refundTo", "\u202e0x1111111111111111111111111111111111111111"}, nil, apierror.InvalidRequest},
		{"Idempotency-Key with a space", nil, map[string]string{"Idempotency-Key": "has space"}, apierror.InvalidRequest},
		{"Idempotency-Key too long", nil, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}, apierror.InvalidRequest},
		{"clientReference too long", []any{"clientReference", strings.Repeat("r", 65)}, nil, apierror.InvalidRequest},
		{"clientReference with a space", []any{"clientReference", "my order"}, nil, apierror.InvalidRequest},
		{"feeBps above the partner's maximum", []any{"feeBps", 5}, nil, apierror.InvalidRequest},
		{"a quoteId not ours", []any{"quoteId", "not-a-quote-id"}, nil, apierror.QuoteMismatch},
		{"a listed sender", []any{"sender", "0x8589427373D6D84E98730D7795D8f6f8731FDA16"}, nil, apierror.AddressNotAllowed},
		{"a listed refundTo", []any{"refundTo", listedAddress}, nil, apierror.AddressNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			quotes := h.router.callCount()
			order := expectError(t, h.do(req{method: "POST", path: "/v1/order", body: with(orderBody(), tt.change...), headers: tt.headers}), tt.code)
			quote := expectError(t, h.do(req{method: "POST", path: "/v1/quote", body: with(quoteBody(false), tt.change...), headers: tt.headers}), tt.code)
			if order["detail"] != quote["detail"] {
				t.Errorf("POST /v1/order answers %q, dry:false %q", order["detail"], quote["detail"])
			}
			if h.orderCount() != 0 || h.router.callCount() != quotes {
				t.Errorf("a refused request created %d orders and asked %d quotes", h.orderCount(), h.router.callCount()-quotes)
			}
		})
	}
}
