package isolation

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/apiserver"
	"github.com/swaprouter/swaprouter/internal/dev/localproc/redis"
	"github.com/swaprouter/swaprouter/internal/ratelimit"
	"github.com/swaprouter/swaprouter/internal/ratelimit/redislimit"
)

// Three frontend replicas over the suite's API server and one real Redis, as config/default
// runs them with --redis-url.
var _ = Describe("rate limits shared through Redis", Ordered, func() {
	var server *redis.Server
	var replicas []string

	BeforeAll(func() {
		s, stop, err := redis.StartThrowaway(context.Background(), GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(stop)
		server = s
		// Generous client timeouts: on a loaded one-core machine a slow answer must not be
		// mistaken for an outage (that is what the fallback spec provokes on purpose).
		url := server.URL() + "?dial_timeout=30s&read_timeout=30s&write_timeout=30s&pool_timeout=30s&pool_size=64"

		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		DeferCleanup(func() { cancel(); wg.Wait() })
		for i := range 3 {
			log := ctrl.Log.WithName(fmt.Sprintf("replica-%d", i))
			limiter, err := redislimit.New(url, ratelimit.InProcess{Limiter: ratelimit.New(), Now: time.Now}, log, nil)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(limiter.Close)
			opts := frontendOptions
			opts.Log, opts.RateLimiter = log, limiter
			// 1,000 connections at once on one core: the suite's short slow-client timeouts
			// would close connections still waiting for their first turn.
			opts.ReadHeaderTimeout, opts.ReadTimeout = 30*time.Second, 30*time.Second
			srv, err := apiserver.New(opts)
			Expect(err).NotTo(HaveOccurred())
			wg.Go(func() {
				defer GinkgoRecover()
				Expect(srv.Start(ctx)).To(Succeed())
			})
			Eventually(srv.Addr).ShouldNot(BeEmpty())
			base := "http://" + srv.Addr()
			Eventually(func() int { return sendTo(base, key{}, http.MethodGet, "/readyz", nil).status }).Should(Equal(http.StatusOK))
			replicas = append(replicas, base)
		}
	})

	It("admits exactly the limit out of 1,000 concurrent requests spread over the replicas", func() {
		const limit, concurrent = 300, 1000
		// newPartner's probe goes to the suite's own frontend, not through Redis.
		k := newPartner("shared-burst", swapv1.PartnerSpec{RequestsPerMinute: limit})
		fallbacksBefore := fallbackCount()
		answers, elapsed := burst(concurrent, func(i int) answer {
			return sendTo(replicas[i%len(replicas)], k, http.MethodGet, "/v1/assets", nil)
		})

		counts := map[int]int{}
		for _, a := range answers {
			counts[a.status]++
			Expect(a.header.Get("X-RateLimit-Limit")).To(Equal(strconv.Itoa(limit)))
		}
		// GCRA refills evenly over the minute: what came back during the burst counts.
		refill := int(elapsed.Minutes()*limit) + 1
		AddReportEntry("shared rate limit burst", fmt.Sprintf("%d/%d admitted at %d/min over %d replicas in %v",
			counts[http.StatusOK], concurrent, limit, len(replicas), elapsed))
		Expect(fallbackCount()).To(Equal(fallbacksBefore), "Redis was not asked for every request")
		Expect(counts[http.StatusOK]+counts[http.StatusTooManyRequests]).To(Equal(concurrent), "only 200s and 429s: %v", counts)
		Expect(counts[http.StatusOK]).To(BeNumerically("<=", limit+refill), "admitted beyond the limit")
		Expect(counts[http.StatusOK]).To(BeNumerically(">=", limit), "refused within the limit")
	})

	It("tells the same bucket state on every replica", func() {
		const limit = 3
		k := newPartner("shared-headers", swapv1.PartnerSpec{RequestsPerMinute: limit})
		start := time.Now()
		var got []answer
		for _, base := range append(replicas, replicas[0]) {
			got = append(got, sendTo(base, k, http.MethodGet, "/v1/assets", nil))
		}
		refill := int(time.Since(start).Minutes() * limit)
		for i, a := range got[:limit] {
			Expect(a.status).To(Equal(http.StatusOK), "request %d", i)
			remaining, err := strconv.Atoi(a.header.Get("X-RateLimit-Remaining"))
			Expect(err).NotTo(HaveOccurred())
			Expect(remaining).To(BeNumerically(">=", limit-1-i), "replica %d", i)
			Expect(remaining).To(BeNumerically("<=", limit-1-i+refill), "replica %d counts only its own requests", i)
		}
		if refill == 0 {
			Expect(got[limit].status).To(Equal(http.StatusTooManyRequests), "the fourth request, back on the first replica")
			Expect(got[limit].header.Get("Retry-After")).NotTo(BeEmpty())
		}
		resets := make([]int64, len(got))
		for i, a := range got {
			resets[i], _ = strconv.ParseInt(a.header.Get("X-RateLimit-Reset"), 10, 64)
		}
		Expect(resets[1]).To(BeNumerically(">", resets[0]), "each replica's request moves the shared reset time")
		Expect(resets[2]).To(BeNumerically(">", resets[1]))
	})

	It("keeps answering from per-replica buckets when Redis stops mid-run, and counts it", func() {
		k := newPartner("shared-outage", swapv1.PartnerSpec{RequestsPerMinute: 300})
		fallbacksBefore := fallbackCount()
		// The workers send a bounded number of requests, whatever the machine's speed: 20
		// before Redis stops and 30 after (one token each), far below what one replica's own
		// bucket holds, so the last check below finds every replica admitting.
		tokens := make(chan struct{}, 50)
		grant := func(n int) {
			for range n {
				tokens <- struct{}{}
			}
		}
		grant(20)
		var mu sync.Mutex
		statuses := map[int]int{}
		answered := 0
		answeredCount := func() int {
			mu.Lock()
			defer mu.Unlock()
			return answered
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				defer GinkgoRecover()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-tokens:
					}
					a := sendTo(replicas[(w+i)%len(replicas)], k, http.MethodGet, "/v1/assets", nil)
					mu.Lock()
					statuses[a.status]++
					answered++
					mu.Unlock()
				}
			})
		}
		Eventually(answeredCount).Should(BeNumerically(">=", 20))
		server.Stop()
		grant(30)
		Eventually(fallbackCount).Should(BeNumerically(">", fallbacksBefore), "no fallback counted")
		Eventually(answeredCount).Should(BeNumerically(">=", 50))
		close(stop)
		wg.Wait()

		for status := range statuses {
			Expect(status).To(BeElementOf(http.StatusOK, http.StatusTooManyRequests), "answers during the outage: %v", statuses)
		}
		for _, base := range replicas {
			Expect(sendTo(base, k, http.MethodGet, "/v1/assets", nil).status).To(Equal(http.StatusOK), "a replica stopped admitting")
		}
	})
})

// fallbackCount reads swaprouter_ratelimit_redis_fallback_total from the metrics registry.
func fallbackCount() float64 {
	GinkgoHelper()
	families, err := metrics.Registry.Gather()
	Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() == "swaprouter_ratelimit_redis_fallback_total" {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	return 0
}
