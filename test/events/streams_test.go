package events

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/orderid"
	"github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// streamPartner is a partner of the suite with its own key: the wire client of the other
// suites (answers checked against openapi.json) and the typed stream reader of pkg/client.
type streamPartner struct {
	name, keyID, secret string
	api                 *partnerapi.Client
}

// newPartner declares a partner of tier with a key, once the frontends' caches know it.
func newPartner(ctx context.Context, name, tier string) streamPartner {
	GinkgoHelper()
	p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: env.Namespace},
		Spec: swapv1.PartnerSpec{Tier: tier, RequestsPerMinute: 3000}}
	Expect(env.Client.Create(ctx, p)).To(Succeed())
	keyID, secret, err := auth.CreateKey(ctx, env.Client, env.Namespace, name)
	Expect(err).NotTo(HaveOccurred())
	sp := streamPartner{name: name, keyID: keyID, secret: secret, api: partnerapi.New(env.FrontendURL, keyID, secret)}
	for _, base := range []string{env.FrontendURL, replicaURL} {
		c := partnerapi.New(base, keyID, secret)
		Eventually(func() int { return c.Get("/v1/usage").Status }).Should(Equal(http.StatusOK), "%s knows the key", base)
	}
	return sp
}

// client is pkg/client for base with the partner's key.
func (p streamPartner) client(base string) *client.Client {
	GinkgoHelper()
	c, err := client.NewClient(base, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Key-Id", p.keyID)
		r.Header.Set("Authorization", "Bearer "+p.secret)
		return nil
	}))
	Expect(err).NotTo(HaveOccurred())
	return c
}

// open opens the partner's stream at base, after position (new stream when empty).
func (p streamPartner) open(ctx context.Context, base, after string, orderID string) *client.EventStream {
	GinkgoHelper()
	params := client.StreamEventsParams{}
	if after != "" {
		params.After = &after
	}
	if orderID != "" {
		params.OrderId = &orderID
	}
	s, err := p.client(base).OpenEvents(ctx, params)
	Expect(err).NotTo(HaveOccurred())
	return s
}

// place creates an order and returns its id and deposit address.
func (p streamPartner) place() (id, address string) {
	GinkgoHelper()
	o := p.api.CreateOrder(partnerapi.OrderRequest("route_A"), "")
	Expect(o.DepositAddress).NotTo(BeNil())
	return o.Id, *o.DepositAddress
}

// placeAndSettle creates n orders from a few workers and deposits each in full; it returns
// their ids once all are placed.
func (p streamPartner) placeAndSettle(n int) []string {
	var mu sync.Mutex
	var ids []string
	var wg sync.WaitGroup
	jobs := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			defer GinkgoRecover()
			for range jobs {
				id, address := p.place()
				partnerapi.Deposit(env, address, partnerapi.PointOneETH)
				mu.Lock()
				ids = append(ids, id)
				mu.Unlock()
			}
		})
	}
	for range n {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	return ids
}

// received is what a client got from the stream, across its connections.
type received struct {
	mu    sync.Mutex
	seqs  map[string][]int64 // by order id, in arrival order
	ids   map[string]int     // event id → times received
	ended map[string]bool    // orders whose terminal event arrived
}

func newReceived() *received {
	return &received{seqs: map[string][]int64{}, ids: map[string]int{}, ended: map[string]bool{}}
}

func (r *received) add(ev client.OrderEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := ev.Event
	r.seqs[e.OrderID] = append(r.seqs[e.OrderID], e.Sequence)
	r.ids[e.ID]++
	if swapv1.OrderStatus(e.Status).IsTerminal() {
		r.ended[e.OrderID] = true
	}
}

func (r *received) allEnded(ids []string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if !r.ended[id] {
			return false
		}
	}
	return true
}

// expectExactlyOnce checks every order's events arrived once each, in seq order, and are all
// the order's transitions as its history shows them.
func (r *received) expectExactlyOnce(p streamPartner, ids []string) {
	GinkgoHelper()
	for id, n := range r.ids {
		Expect(n).To(Equal(1), "event %s arrived %d times", id, n)
	}
	for _, id := range ids {
		var want []int64
		for _, h := range p.api.Order(id).History {
			want = append(want, int64(h.Seq))
		}
		Expect(r.seqs[id]).To(Equal(want), "order %s: the events received, by sequence", id)
	}
}

// readUntil reads s into got until done, or ctx ends.
func readUntil(s *client.EventStream, got *received, done func() bool) {
	GinkgoHelper()
	for !done() {
		ev, err := s.Next()
		Expect(err).NotTo(HaveOccurred())
		got.add(ev)
	}
}

// expectNothingMoreBefore places a marker order and reads s until its first event: anything
// before it is an event sent twice (every other order of the partner has ended).
func expectNothingMoreBefore(s *client.EventStream, p streamPartner) {
	GinkgoHelper()
	marker, _ := p.place()
	ev, err := s.Next()
	Expect(err).NotTo(HaveOccurred())
	Expect(ev.Event.OrderID).To(Equal(marker), "an event after every order ended: %+v", ev.Event)
}

// churn reads the partner's stream while orders run, dropping the connection after a random
// number of events and resuming from the last event's id: at one replica, or at each in turn.
func churn(ctx context.Context, p streamPartner, orders int, alternate bool) {
	rng := rand.New(rand.NewPCG(uint64(GinkgoRandomSeed()), uint64(orders)))
	replicas := []string{env.FrontendURL, replicaURL}
	got := newReceived()
	s := p.open(ctx, replicas[0], "", "")

	placed := make(chan []string, 1)
	go func() {
		defer GinkgoRecover()
		placed <- p.placeAndSettle(orders)
	}()
	var ids []string
	done := func() bool {
		if ids == nil {
			select {
			case ids = <-placed:
			default:
				return false
			}
		}
		return got.allEnded(ids)
	}
	reconnects, replica := 0, 0
	for !done() {
		for n := 1 + rng.IntN(12); n > 0 && !done(); n-- {
			ev, err := s.Next()
			Expect(err).NotTo(HaveOccurred())
			got.add(ev)
		}
		last := s.LastID()
		Expect(s.Close()).To(Succeed())
		if alternate {
			replica = 1 - replica
		}
		s = p.open(ctx, replicas[replica], last, "")
		reconnects++
	}
	By(fmt.Sprintf("%d orders, %d events, %d reconnects", len(ids), len(got.ids), reconnects))
	got.expectExactlyOnce(p, ids)
	expectNothingMoreBefore(s, p)
	Expect(s.Close()).To(Succeed())
}

var _ = Describe("GET /v1/events", func() {
	It("delivers every event of 100 orders exactly once, in order per order, to a client that drops the connection at random points", func(ctx SpecContext) {
		churn(ctx, newPartner(ctx, "churn", ""), 100, false)
	}, SpecTimeout(8*time.Minute))

	It("lets one client be served by two replicas in turn", func(ctx SpecContext) {
		churn(ctx, newPartner(ctx, "alternate", ""), 30, true)
	}, SpecTimeout(5*time.Minute))

	It("resumes after the orders were archived and deleted from etcd", func(ctx SpecContext) {
		p := newPartner(ctx, "resumer", "")
		s := p.open(ctx, env.FrontendURL, "", "")
		var ids, addresses []string
		for range 5 {
			id, address := p.place()
			ids, addresses = append(ids, id), append(addresses, address)
		}
		got := newReceived()
		first, err := s.Next()
		Expect(err).NotTo(HaveOccurred())
		got.add(first)
		Expect(s.Close()).To(Succeed())

		for i, id := range ids {
			partnerapi.Deposit(env, addresses[i], partnerapi.PointOneETH)
			p.api.AwaitStatus(id, "SUCCESS")
		}
		for _, id := range ids {
			Eventually(inEtcd).WithArguments(ctx, id).Should(BeFalse(), "order %s leaves etcd %v after it was archived", id, orderTTL)
		}
		s = p.open(ctx, replicaURL, first.ID, "")
		readUntil(s, got, func() bool { return got.allEnded(ids) })
		got.expectExactlyOnce(p, ids)
		expectNothingMoreBefore(s, p)
		Expect(s.Close()).To(Succeed())
	}, SpecTimeout(3*time.Minute))

	It("never carries another partner's events, and a token opens only its partner's stream", func(ctx SpecContext) {
		x, y := newPartner(ctx, "xcorp", ""), newPartner(ctx, "ycorp", "")
		r, err := y.api.API.CreateEventsTokenWithResponse(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(r.JSON200).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		token := r.JSON200.Token
		// As EventSource does: no key headers, only the token.
		anonymous, err := client.NewClient(env.FrontendURL)
		Expect(err).NotTo(HaveOccurred())
		ys, err := anonymous.OpenEvents(ctx, client.StreamEventsParams{Token: &token})
		Expect(err).NotTo(HaveOccurred())
		xs := x.open(ctx, replicaURL, "", "")

		xid, _ := x.place() // placed first: had y's stream carried it, it would come first
		yid, _ := y.place()
		ev, err := ys.Next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Event.OrderID).To(Equal(yid), "y's stream carried %s", ev.Event.OrderID)
		ev, err = xs.Next()
		Expect(err).NotTo(HaveOccurred())
		Expect(ev.Event.OrderID).To(Equal(xid))

		_, err = y.client(env.FrontendURL).OpenEvents(ctx, client.StreamEventsParams{After: &ev.ID})
		var refused *client.StreamError
		Expect(errors.As(err, &refused)).To(BeTrue(), "y resumed from x's position: %v", err)
		Expect(refused.Status).To(Equal(http.StatusBadRequest))

		resp, err := http.Get(env.FrontendURL + "/v1/orders?token=" + url.QueryEscape(token))
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), "the token opened another endpoint")
		Expect(ys.Close()).To(Succeed())
		Expect(xs.Close()).To(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("caps a partner's concurrent streams by its tier, and keeps idle ones alive with heartbeats", func(ctx SpecContext) {
		p := newPartner(ctx, "freebie", "free") // two streams
		a := p.open(ctx, env.FrontendURL, "", "")
		b := p.open(ctx, replicaURL, "", "")
		_, err := p.client(env.FrontendURL).OpenEvents(ctx, client.StreamEventsParams{})
		var refused *client.StreamError
		Expect(errors.As(err, &refused)).To(BeTrue(), "a third stream opened: %v", err)
		Expect(refused.Status).To(Equal(http.StatusTooManyRequests))
		Expect(string(refused.Body.Error)).To(Equal("rate limit exceeded"))
		Expect(refused.RetryAfter).To(BeNumerically(">", 0))

		Expect(a.Close()).To(Succeed())
		Eventually(func() error {
			c, err := p.client(env.FrontendURL).OpenEvents(ctx, client.StreamEventsParams{})
			if err == nil {
				a = c
			}
			return err
		}).Should(Succeed(), "a closed stream gives its slot back")

		// An idle stream hears a heartbeat comment (every 200 ms in this suite).
		Expect(a.Close()).To(Succeed())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, env.FrontendURL+"/v1/events", nil)
		req.Header.Set("X-Key-Id", p.keyID)
		req.Header.Set("Authorization", "Bearer "+p.secret)
		var resp *http.Response
		Eventually(func() int {
			resp, err = http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			if resp.StatusCode != http.StatusOK {
				resp.Body.Close()
			}
			return resp.StatusCode
		}).Should(Equal(http.StatusOK))
		defer resp.Body.Close()
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal(": heartbeat\n"))
		Expect(b.Close()).To(Succeed())
	}, SpecTimeout(2*time.Minute))
})

var _ = Describe("GET /v1/orders", func() {
	It("lists orders newest first exactly, also within one second", func(ctx SpecContext) {
		p := newPartner(ctx, "lister", "")
		var placed []string
		for range 6 {
			id, _ := p.place()
			placed = append([]string{id}, placed...)
		}
		r := p.api.Get("/v1/orders?limit=6")
		Expect(r.Status).To(Equal(http.StatusOK), "%s", r.Raw)
		var listed, created []string
		for _, o := range partnerapi.List(r.Body, "orders") {
			listed = append(listed, partnerapi.Str(o.(map[string]any), "id"))
			created = append(created, partnerapi.Str(o.(map[string]any), "createdAt"))
		}
		Expect(listed).To(Equal(placed), "newest first; createdAt %v", created)
		for i, at := range created {
			Expect(at).To(MatchRegexp(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$`))
			if i > 0 {
				Expect(at < created[i-1]).To(BeTrue(), "createdAt %s is not before %s", at, created[i-1])
			}
		}
	}, SpecTimeout(2*time.Minute))
})

// inEtcd reports whether order id's SwapOrder still exists.
func inEtcd(ctx context.Context, id string) bool {
	err := env.Client.Get(ctx, ctrlclient.ObjectKey{Namespace: env.Namespace, Name: orderid.ObjectName(id)}, &swapv1.SwapOrder{})
	Expect(ctrlclient.IgnoreNotFound(err)).To(Succeed())
	return !apierrors.IsNotFound(err)
}
