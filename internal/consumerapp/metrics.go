package consumerapp

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics count what the page asks of the app, per route pattern (never per path: order ids
// would make a series per order) and answer code: 429s show the throttle at work, 502s an
// unhappy /v1.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "swaprouter_app_requests_total", Help: "Requests the swap app answered, by route and HTTP code.",
		}, []string{"route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "swaprouter_app_request_duration_seconds", Help: "Time to answer a swap app request (a live status stream counts until it ends).",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 8),
		}, []string{"route"}),
	}
	if reg != nil {
		reg.MustRegister(m.requests, m.duration)
	}
	return m
}

// observe records one answered request; route is the pattern that served it ("" when none did).
func (m *metrics) observe(route string, code int, took time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	m.duration.WithLabelValues(route).Observe(took.Seconds())
}

// routeOf is the ServeMux pattern that served r, set on r by the mux.
func routeOf(r *http.Request) string { return r.Pattern }
