package apiserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// TestOpenAPIDescribesWebhooks builds the deliveries of an order's first and a later
// transition as the service does (payload bytes, signature headers of two active secrets) and
// validates them against webhooks.order.status_changed (kin-openapi), then requires every
// field sent to be documented.
func TestOpenAPIDescribesWebhooks(t *testing.T) {
	doc := loadedOpenAPI(t).T
	item := doc.Webhooks["order.status_changed"]
	if item == nil || item.Post == nil {
		t.Fatal("webhooks.order.status_changed.post is not documented")
	}
	route := &routers.Route{Spec: doc, Path: "order.status_changed", PathItem: item, Method: "POST", Operation: item.Post}
	schema := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value

	order := &swapv1.SwapOrder{}
	order.Name, order.Namespace = "ord-abcdefghijklmnopqrstuvwxyz", testNS
	order.Spec.OrderID, order.Spec.Partner, order.Spec.ProviderID = "ord_abcdefghijklmnopqrstuvwxyz", "acme", swapv1.ProviderRouteB
	order.Spec.ClientReference = "checkout-42"
	order.Status.InTxHashes = []string{"0xin"}
	at := swapv1.NewPreciseTime(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC))
	oldSecret, _ := webhooks.NewSecret()
	newSecret, _ := webhooks.NewSecret()

	for _, tr := range []swapv1.StatusTransition{
		{Seq: 1, Status: swapv1.OrderPending, At: at},
		{Seq: 2, Status: swapv1.OrderProcessing, PreviousStatus: swapv1.OrderPending, At: at},
	} {
		d, err := delivery.NewDelivery(order, delivery.EventFor(order, tr), 0)
		if err != nil {
			t.Fatal(err)
		}
		body := []byte(d.Spec.Payload)
		hr := httptest.NewRequest("POST", "https://hooks.acme.example/swap", bytes.NewReader(body))
		hr.Header.Set("Content-Type", "application/json")
		if err := webhooks.SetHeaders(hr.Header, []string{oldSecret, newSecret}, d.Spec.EventID, at.Time, body); err != nil {
			t.Fatal(err)
		}
		input := &openapi3filter.RequestValidationInput{Request: hr, Route: route, Options: &openapi3filter.Options{MultiError: true}}
		if err := openapi3filter.ValidateRequest(context.Background(), input); err != nil {
			t.Errorf("seq %d: the delivery does not match the document: %v\nheaders %v\nbody %s", tr.Seq, err, hr.Header, body)
		}
		var fields map[string]any
		if err := json.Unmarshal(body, &fields); err != nil {
			t.Fatal(err)
		}
		for k := range fields {
			if schema.Properties[k] == nil {
				t.Errorf("seq %d: the event carries %q, which the document does not describe", tr.Seq, k)
			}
		}
	}
}
