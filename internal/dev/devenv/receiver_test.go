package devenv

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// The receiver prints every verified delivery: a new event once, and a redelivery of it (the
// same webhook-id) as a redelivery, never silently.
func TestReceiverPrintsEventsAndRedeliveries(t *testing.T) {
	secret, err := webhooks.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &Receiver{Out: &out}
	r.SetSecret(secret)
	const id = "evt_aaaaaaaaaaaaaaaaaaaaaaaaaa"
	body := []byte(`{"type":"order.status_changed","id":"` + id + `","orderId":"ord_bbbbbbbbbbbbbbbbbbbbbbbbbb","status":"PENDING","sequence":1}`)
	deliver := func() int {
		req := httptest.NewRequest(http.MethodPost, "/webhooks", bytes.NewReader(body))
		if err := webhooks.SetHeaders(req.Header, []string{secret}, id, time.Now(), body); err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Code
	}
	for range 2 {
		if code := deliver(); code != http.StatusNoContent {
			t.Fatalf("delivery answered %d", code)
		}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 ||
		lines[0] != "webhook "+id+": order ord_bbbbbbbbbbbbbbbbbbbbbbbbbb (new) -> PENDING (seq 1, verified)" ||
		lines[1] != "webhook "+id+": redelivery of order ord_bbbbbbbbbbbbbbbbbbbbbbbbbb seq 1 (verified; already processed, acknowledged)" {
		t.Errorf("printed:\n%s", out.String())
	}
	if n := len(r.Events()); n != 1 {
		t.Errorf("%d events processed, want the one", n)
	}
}
