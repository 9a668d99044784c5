package apiserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver/internal/wire"
	"github.com/swaprouter/swaprouter/internal/apierror"
)

func TestRedeliveryWait(t *testing.T) {
	now := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	at := func(redelivery int32, ago time.Duration) swapv1.WebhookDelivery {
		d := swapv1.WebhookDelivery{Spec: swapv1.WebhookDeliverySpec{Redelivery: redelivery}}
		d.CreationTimestamp = metav1.NewTime(now.Add(-ago))
		return d
	}
	original := at(0, 2*time.Minute)
	for _, tc := range []struct {
		name string
		in   []swapv1.WebhookDelivery
		want time.Duration
	}{
		{"never redelivered", []swapv1.WebhookDelivery{original}, 0},
		{"four within the hour", []swapv1.WebhookDelivery{original, at(1, 50*time.Minute), at(2, 40*time.Minute), at(3, 3*time.Minute), at(4, time.Minute)}, 0},
		{"five within the hour: wait for the oldest to leave it",
			[]swapv1.WebhookDelivery{original, at(1, 50*time.Minute), at(2, 40*time.Minute), at(3, 3*time.Minute), at(4, time.Minute), at(5, 0)}, 10 * time.Minute},
		{"older redeliveries do not count",
			[]swapv1.WebhookDelivery{original, at(1, 3*time.Hour), at(2, 2*time.Hour), at(3, 61*time.Minute), at(4, time.Minute), at(5, 0)}, 0},
		{"six within the hour: the second oldest decides",
			[]swapv1.WebhookDelivery{at(6, 55*time.Minute), at(1, 50*time.Minute), at(2, 40*time.Minute), at(3, 3*time.Minute), at(4, time.Minute), at(5, 0)}, 10 * time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := redeliveryWait(tc.in, now); got != tc.want {
				t.Fatalf("wait %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseDeliveryPage(t *testing.T) {
	for _, bad := range []string{"limit=0", "limit=101", "limit=x", "cursor=!!!", "cursor=bm90LWpzb24", "cursor=e30"} {
		v, _ := url.ParseQuery(bad)
		if _, err := parseDeliveryPage(v, testCursors); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	q, err := parseDeliveryPage(url.Values{}, testCursors)
	if err != nil || q.limit != 100 || q.after != nil {
		t.Fatalf("defaults: %+v %v", q, err)
	}
}

// TestDeliveryPaging: walking the pages with nextCursor yields every delivery once, in order,
// and the last page has no cursor.
func TestDeliveryPaging(t *testing.T) {
	h := newHarness(t)
	for i := range 7 {
		d := storedDelivery("acme", fmt.Sprintf("ord_page%02d0000", i/3), int64(i%3+1))
		if err := h.client.Create(t.Context(), d); err != nil {
			t.Fatal(err)
		}
	}
	type page struct {
		Deliveries []wire.Delivery `json:"deliveries"`
		NextCursor *string         `json:"nextCursor"`
	}
	var seen []string
	path := "/v1/webhooks/deliveries?limit=3"
	for pages := 0; ; pages++ {
		if pages > 3 {
			t.Fatalf("more pages than 7 deliveries need: %v", seen)
		}
		p := decode[page](t, h.do(req{method: "GET", path: path}), http.StatusOK)
		for _, d := range p.Deliveries {
			seen = append(seen, fmt.Sprintf("%s/%d", d.OrderID, d.Sequence))
		}
		if p.NextCursor == nil {
			break
		}
		if len(p.Deliveries) != 3 {
			t.Fatalf("a page before the last has %d deliveries", len(p.Deliveries))
		}
		path = "/v1/webhooks/deliveries?limit=3&cursor=" + url.QueryEscape(*p.NextCursor)
	}
	want := []string{"ord_page000000/1", "ord_page000000/2", "ord_page000000/3", "ord_page010000/1", "ord_page010000/2", "ord_page010000/3", "ord_page020000/1"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("paged through %v, want %v", seen, want)
	}
	expectError(t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?limit=500"}), apierror.InvalidRequest)
	expectError(t, h.do(req{method: "GET", path: "/v1/webhooks/deliveries?cursor=garbage"}), apierror.InvalidRequest)
}

// TestRedeliveriesPerMinute: a partner's redeliveries, all events together, stop at the
// per-minute limit with 429 and Retry-After.
func TestRedeliveriesPerMinute(t *testing.T) {
	h := newHarness(t)
	var events []string
	for i := range redeliveriesPerMinute/maxRedeliveriesPerEvent + 1 {
		d := storedDelivery("acme", fmt.Sprintf("ord_redeliv%02d0", i), 1)
		if err := h.client.Create(t.Context(), d); err != nil {
			t.Fatal(err)
		}
		events = append(events, d.Spec.EventID)
	}
	redeliver := func(event string) *httptest.ResponseRecorder {
		return h.do(req{method: "POST", path: "/v1/webhooks/deliveries/" + event + "/redeliver"})
	}
	for n := range redeliveriesPerMinute {
		if rec := redeliver(events[n/maxRedeliveriesPerEvent]); rec.Code != http.StatusAccepted {
			t.Fatalf("redelivery %d: %d %s", n+1, rec.Code, rec.Body)
		}
	}
	rec := redeliver(events[len(events)-1])
	expectError(t, rec, apierror.RateLimitExceeded)
	if rec.Header().Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}
