package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/receipt"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// receiptOf fetches the receipt of order id, verifies it with the published keys and returns
// what it states.
func receiptOf(id string) map[string]any {
	GinkgoHelper()
	answer := partner.Get("/v1/order/" + id + "/receipt")
	Expect(answer.Status).To(Equal(http.StatusOK), "%s", answer.Raw)
	resp, err := http.Get(env.FrontendURL + "/.well-known/jwks.json")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = resp.Body.Close() }()
	var keys jose.JSONWebKeySet
	Expect(json.NewDecoder(resp.Body).Decode(&keys)).To(Succeed())
	raw, err := receipt.Verify(partnerapi.Str(answer.Body, "receipt"), keys)
	Expect(err).NotTo(HaveOccurred())
	var stated map[string]any
	Expect(json.Unmarshal(raw, &stated)).To(Succeed())
	return stated
}

// expectIssuedAtAfterHistory checks a receipt is dated, to the microsecond, no earlier than the
// last history entry it states; at it exactly when final.
func expectIssuedAtAfterHistory(stated map[string]any) {
	GinkgoHelper()
	history := partnerapi.List(stated, "history")
	Expect(history).NotTo(BeEmpty())
	lastAt := partnerapi.Str(history[len(history)-1].(map[string]any), "at")
	issuedAt := partnerapi.Str(stated, "issuedAt")
	last, err := time.Parse(time.RFC3339Nano, lastAt)
	Expect(err).NotTo(HaveOccurred())
	issued, err := time.Parse(time.RFC3339Nano, issuedAt)
	Expect(err).NotTo(HaveOccurred())
	Expect(issued).NotTo(BeTemporally("<", last), "issuedAt %s, last history entry at %s", issuedAt, lastAt)
	Expect(issuedAt).To(MatchRegexp(`\.\d{6}Z$`), "issuedAt has the history's microseconds")
	if stated["final"] == true {
		Expect(issuedAt).To(Equal(lastAt), "a final receipt is dated when the order ended")
	}
}

// eventStream is the partner's GET /v1/events as it arrives on the wire.
type eventStream struct {
	lines *bufio.Reader
	body  io.Closer
}

func openEventStream(ctx context.Context) *eventStream {
	GinkgoHelper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.FrontendURL+"/v1/events", nil)
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("X-Key-Id", env.KeyID)
	req.Header.Set("Authorization", "Bearer "+env.Secret)
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	return &eventStream{lines: bufio.NewReader(resp.Body), body: resp.Body}
}

// next returns the data of the next order.status_changed event for order id (others are
// skipped), as sent.
func (s *eventStream) next(id string) []byte {
	GinkgoHelper()
	var event, data string
	for {
		line, err := s.lines.ReadString('\n')
		Expect(err).NotTo(HaveOccurred(), "the stream ended before an event of %s", id)
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && event == "order.status_changed" && strings.Contains(data, `"orderId":"`+id+`"`):
			return []byte(data)
		case line == "":
			event, data = "", ""
		}
	}
}

var _ = Describe("What a partner is told about an order", func() {
	It("the first event says previousStatus null, as the history does, by webhook and on the event stream; a receipt is never dated before its history", func(ctx SpecContext) {
		streamCtx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		stream := openEventStream(streamCtx)
		defer func() { _ = stream.body.Close() }()

		order := partner.CreateOrder(partnerapi.OrderRequest(swapclient.ProviderId(swapv1.ProviderRouteA)), "")
		Expect(order.History).NotTo(BeEmpty())
		Expect(order.History[0].PreviousStatus).To(BeNil(), "the history's first entry")

		var first map[string]any
		Expect(json.Unmarshal(stream.next(order.Id), &first)).To(Succeed())
		Expect(first).To(And(HaveKeyWithValue("sequence", BeEquivalentTo(1)), HaveKeyWithValue("previousStatus", BeNil())),
			"the event stream's first event of the order")

		var webhook map[string]any
		Eventually(func(g Gomega) {
			events := receiver.EventsFor(order.Id)
			g.Expect(events).NotTo(BeEmpty())
			g.Expect(events[0].Sequence).To(BeEquivalentTo(1))
			g.Expect(json.Unmarshal(receiver.Payload(events[0].ID), &webhook)).To(Succeed())
		}).Should(Succeed())
		Expect(webhook).To(HaveKeyWithValue("previousStatus", BeNil()), "the first webhook")
		Expect(webhook).To(Equal(first), "the stream carries exactly the webhook's payload")

		By("a receipt of the live order is not dated before the history it states")
		expectIssuedAtAfterHistory(receiptOf(order.Id))
	})
})
