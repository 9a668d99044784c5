package webhooks_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// A partner's receiver: verify the signature on the raw body, then process each webhook-id
// once. Retries and redeliveries reuse the webhook-id, so the dedupe set makes them harmless.
func Example_receiver() {
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // from your partner configuration

	var (
		mu   sync.Mutex
		seen = map[string]bool{} // use a persistent store with a TTL in production
	)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "read error", http.StatusBadRequest)
			return
		}
		if err := webhooks.Verify(secret, r.Header, body, time.Now()); err != nil {
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get(webhooks.HeaderID)
		mu.Lock()
		dup := seen[id]
		seen[id] = true
		mu.Unlock()
		if !dup {
			fmt.Println("processing", id) // decode into webhooks.Event and update the order by OrderID
		}
		w.WriteHeader(http.StatusNoContent) // any 2xx acknowledges, duplicates included
	})

	// Simulate the same event delivered twice (a retry), then a forged one.
	srv := httptest.NewServer(handler)
	defer srv.Close()
	payload := []byte(`{"version":"1","id":"evt_abc","type":"order.status_changed","orderId":"ord_x","status":"PENDING"}`)
	send := func(secrets []string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(string(payload)))
		req.Header.Set("Content-Type", "application/json")
		if err := webhooks.SetHeaders(req.Header, secrets, "evt_abc", time.Now(), payload); err != nil {
			panic(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	fmt.Println(send([]string{secret}))
	fmt.Println(send([]string{secret}))
	forged, _ := webhooks.NewSecret()
	fmt.Println(send([]string{forged}))
	// Output:
	// processing evt_abc
	// 204
	// 204
	// 401
}
