package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/tiers"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// Scenario 13, latency: one GET /v1/events stream of the bench partner is read with
// pkg/client's reader while orders are created through the frontend and fully deposited.
// Each status change is timed from the reconciler's transition Event (recorded right after
// the status write, as for the webhooks) to the event's arrival at the reader; p99 ÷ the mean
// poll interval.
//
// Scenario 13, streams: each round measures dry quotes at concurrency 16 (50 ms providers, as
// the quote latency scenario), opens S idle streams on the one frontend replica, measures
// again with them open and closes them; the figure is quote p99 with ÷ without. Memory per
// stream is the growth of the process's anonymous RSS (and of the Go runtime's heap and
// stacks in use) from before opening to after, both after a GC that returns freed memory to
// the OS, ÷ S. The streams are opened and read by a stream holder, a child process, so
// the growth is the server's side only.

// streamTier is the tier the scenario moves the bench partner to: the built-in tiers cap
// concurrent streams at 100, below what the scenario holds open.
const (
	streamTier        = "bench-streams"
	maxBenchStreams   = 1000
	streamConcurrency = 16
)

// writeStreamTiers writes the built-in tier table plus streamTier to a temporary file for the
// manager's --tiers-file; the caller removes it once the manager has loaded it.
func writeStreamTiers() (string, error) {
	t := tiers.Default()
	t[streamTier] = tiers.Limits{RequestsPerMinute: benchRPM, EventStreams: maxBenchStreams}
	raw, err := yaml.Marshal(t)
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "swaprouter-bench-tiers-*.yaml")
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Write(raw); err != nil {
		return "", err
	}
	return f.Name(), f.Close()
}

func (h *harness) eventStream(ctx context.Context, s *Scenario) error {
	if err := h.raiseStreamCap(ctx); err != nil {
		return err
	}
	if err := h.streamLatency(ctx, s); err != nil {
		return err
	}
	return h.manyStreams(ctx, s)
}

// raiseStreamCap moves the bench partner to streamTier (its own requestsPerMinute stays) and
// waits until its status shows the tier: the frontend reads the Partner from the same cache.
func (h *harness) raiseStreamCap(ctx context.Context) error {
	p := &swapv1.Partner{}
	key := client.ObjectKey{Namespace: benchNamespace, Name: h.env.Partner}
	if err := h.env.Client.Get(ctx, key, p); err != nil {
		return err
	}
	base := p.DeepCopy()
	p.Spec.Tier = streamTier
	if err := h.env.Client.Patch(ctx, p, client.MergeFrom(base)); err != nil {
		return fmt.Errorf("moving the bench partner to the %s tier: %w", streamTier, err)
	}
	applied := waitFor(ctx, 30*time.Second, 100*time.Millisecond, func() bool {
		return h.env.Client.Get(ctx, key, p) == nil && p.Status.Limits != nil && p.Status.Limits.Tier == streamTier
	})
	if !applied {
		return fmt.Errorf("the bench partner's status did not show the %s tier within 30 s", streamTier)
	}
	return nil
}

// streamClient is pkg/client for the key keyID with secret, on its own transport without a
// timeout (a timeout would cut the streams).
func streamClient(base, keyID, secret string) (*swapclient.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return swapclient.NewClient(base, swapclient.WithHTTPClient(&http.Client{Transport: tr}),
		swapclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Key-Id", keyID)
			r.Header.Set("Authorization", "Bearer "+secret)
			return nil
		}))
}

// streamArrivals records when each (order, seq) first arrived on a stream.
type streamArrivals struct {
	mu sync.Mutex
	at map[string]map[int64]time.Time
}

func (a *streamArrivals) record(orderID string, seq int64, t time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at[orderID] == nil {
		a.at[orderID] = map[int64]time.Time{}
	}
	if _, ok := a.at[orderID][seq]; !ok {
		a.at[orderID][seq] = t
	}
}

func (a *streamArrivals) arrivedAt(orderID string, seq int64) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.at[orderID][seq]
	return t, ok
}

func (h *harness) streamLatency(ctx context.Context, s *Scenario) error {
	c, err := streamClient(h.api.Base, h.api.KeyID, h.api.Secret)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.OpenEvents(sctx, swapclient.StreamEventsParams{})
	if err != nil {
		return fmt.Errorf("opening the event stream: %w", err)
	}
	arrivals := &streamArrivals{at: map[string]map[int64]time.Time{}}
	read := make(chan error, 1)
	go func() {
		for {
			ev, err := stream.Next()
			if err != nil {
				read <- err
				return
			}
			arrivals.record(ev.Event.OrderID, ev.Event.Sequence, time.Now())
		}
	}()
	lat, orders, err := h.measureTransitionLatency(ctx, s, "its event on the stream", arrivals.arrivedAt)
	cancel()
	if rerr := <-read; !errors.Is(rerr, context.Canceled) {
		s.note("the stream reader stopped early: %v", rerr)
	}
	_ = stream.Close()
	h.addTransitionLatency(s, lat, "event on the stream", "", 0.05)
	s.Setup = fmt.Sprintf("latency: one stream read with pkg/client's reader; %d orders created through the frontend and fully deposited, %d status changes timed from the reconciler's transition Event to the event's arrival at the reader (pooled percentiles; the poll interval is the configured mean %s)",
		orders, len(lat), h.pollMean())
	return err
}

// memSample is the process's anonymous RSS and the Go runtime's heap and stacks in use, after
// a GC that returns freed memory to the OS.
type memSample struct {
	rssAnon, runtimeInUse int64
	goroutines            int
}

func sampleMemory() memSample {
	debug.FreeOSMemory()
	proc, _ := ReadProc("self")
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return memSample{rssAnon: proc.RSSAnon, runtimeInUse: int64(ms.HeapInuse + ms.StackInuse), goroutines: runtime.NumGoroutine()}
}

func (h *harness) manyStreams(ctx context.Context, s *Scenario) error {
	n := h.cfg.count(maxBenchStreams, 50)
	h.setQuoteLatency(injectedLatency)
	defer h.setQuoteLatency(0)
	dur := h.cfg.sized(5*time.Second, 500*time.Millisecond)
	// A first opening, not measured, grows the pools and buffers every later one reuses.
	warm, err := h.holdStreams(ctx, n)
	if err != nil {
		return err
	}
	if err := h.releaseStreams(ctx, warm); err != nil {
		return err
	}
	closed := func() bool { return h.eventStreamsOpen() == 0 }
	waitFor(ctx, h.cfg.budget(30*time.Second), 50*time.Millisecond, closed)
	s.Setup += fmt.Sprintf("; streams: after one unmeasured opening and closing of the streams, %d rounds of %s of dry quotes at concurrency %d (injected latency %s on every provider's quote call) without streams, then with %d idle streams of the bench partner open on the one frontend replica, opened and each read by pkg/client's reader in a child process (the bench process holds only the server's side of each stream, as a frontend whose clients are other machines does; the memory and goroutines per stream are that side's; the CPU profile covers the first round's quotes with the streams open)",
		h.cfg.Rounds, dur, streamConcurrency, injectedLatency, n)
	var ratio, without99, with99, rssPer, runtimePer, goroutinesPer []float64
	for r := 0; r < h.cfg.Rounds && ctx.Err() == nil; r++ {
		// Both quote runs follow a memory sample: each starts right after a GC that returned
		// freed memory to the OS.
		before := sampleMemory()
		without := Closed(ctx, streamConcurrency, dur, 0, h.frontendQuote)
		holder, err := h.holdStreams(ctx, n)
		if err != nil {
			return err
		}
		after := sampleMemory()
		stopProfile := func() Shares { return nil }
		if r == 0 {
			stopProfile = h.profile(s, "scenario13")
		}
		with := Closed(ctx, streamConcurrency, dur, 0, h.frontendQuote)
		stopProfile()
		open := h.eventStreamsOpen()
		if err := h.releaseStreams(ctx, holder); err != nil {
			return err
		}
		if open != float64(n) {
			s.note("round %d: the frontend counted %.0f open streams, not %d", r+1, open, n)
		}
		for _, note := range []string{errNote("quotes without streams", without), errNote("quotes with streams", with)} {
			if note != "" {
				s.note("round %d: %s", r+1, note)
			}
		}
		w99, s99 := PercentileMs(without.Latencies, 99), PercentileMs(with.Latencies, 99)
		ratio = append(ratio, Ratio(s99, w99))
		without99, with99 = append(without99, w99), append(with99, s99)
		rssPer = append(rssPer, Ratio(float64(after.rssAnon-before.rssAnon)/1024, float64(n)))
		runtimePer = append(runtimePer, Ratio(float64(after.runtimeInUse-before.runtimeInUse)/1024, float64(n)))
		goroutinesPer = append(goroutinesPer, Ratio(float64(after.goroutines-before.goroutines), float64(n)))
		if !waitFor(ctx, h.cfg.budget(30*time.Second), 50*time.Millisecond, closed) {
			s.note("round %d: the frontend still counted %.0f open streams after they were closed", r+1, h.eventStreamsOpen())
		}
	}
	if n != maxBenchStreams {
		s.note("S is scaled to %d (%d in the full run)", n, maxBenchStreams)
	}
	s.add(fmt.Sprintf("quote p99 with %d streams open ÷ without (c=%d)", n, streamConcurrency), ratio, AtMost(1.1))
	s.info("quote p99 without / with the streams", fmt.Sprintf("ms (with %.1f ms)", Median(with99)), without99)
	s.info("memory per stream, server side: frontend process anonymous RSS growth ÷ streams", "KiB", rssPer)
	s.info("memory per stream, server side: Go heap and stacks in use growth ÷ streams", "KiB", runtimePer)
	s.info("goroutines per stream, server side", "", goroutinesPer)
	return ctx.Err()
}

// holdStreams starts a stream holder with n streams of the bench partner and returns once
// they are all open.
func (h *harness) holdStreams(ctx context.Context, n int) (*streamHolder, error) {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.budget(2*time.Minute))
	defer cancel()
	return startStreamHolder(ctx, holdRequest{Base: h.api.Base, KeyID: h.api.KeyID, Secret: h.api.Secret, Streams: n})
}

// releaseStreams stops the holder, which closes its streams.
func (h *harness) releaseStreams(ctx context.Context, holder *streamHolder) error {
	ctx, cancel := context.WithTimeout(ctx, h.cfg.budget(30*time.Second))
	defer cancel()
	return holder.stop(ctx)
}

// eventStreamsOpen is the frontend's count of open streams (swaprouter_event_streams).
func (h *harness) eventStreamsOpen() float64 {
	return metricSum(h.metrics, "swaprouter_event_streams", nil)
}
