package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/consumerapp"
	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
)

// Scenario 11: one abusive client of the swap app. The app holds a key of its own Partner on
// the enterprise tier, as config/app recommends, with its default end-user limits. One client
// address plays every trick at once for the window: a fresh cookie for every request, quotes
// and rates in a loop, orders created and then followed by as many status streams as the app
// lets it open. The figure is the busiest minute of /v1 calls the app made meanwhile, as a
// share of the key's per-minute budget.
const (
	appPartner = "bench-app"
	appTier    = "enterprise"
	abusers    = 8
)

func (h *harness) appAbuse(ctx context.Context, s *Scenario) error {
	window := h.cfg.sized(3*time.Minute, 10*time.Second)
	keyID, secret, budget, err := h.appKey(ctx)
	if err != nil {
		return err
	}
	calls := &callLog{next: http.DefaultTransport}
	app, err := consumerapp.New(consumerapp.Options{
		APIURL: h.env.FrontendURL, Key: upstream.Key{ID: keyID, Secret: secret},
		HTTPClient: &http.Client{Transport: calls, Timeout: 45 * time.Second}, Log: logr.Discard(),
	})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	appCtx, stopApp := context.WithCancel(ctx)
	defer stopApp()
	go func() { _ = app.Serve(appCtx, ln) }()
	base := "http://" + ln.Addr().String()

	s.Setup = fmt.Sprintf("the app's Partner on tier %s (%d requests/min); the app's default end-user limits; "+
		"%d workers from one address for %s: a fresh cookie per request, quotes, rates, asset lists, orders, "+
		"and status streams held open on every order created", appTier, budget, abusers, window)
	runCtx, stop := context.WithTimeout(ctx, window)
	defer stop()
	started := time.Now()
	ab := &abuser{base: base, http: NewHTTPClient(time.Minute)}
	var wg sync.WaitGroup
	for w := range abusers {
		wg.Go(func() { ab.run(runCtx, w) })
	}
	wg.Wait()
	elapsed := time.Since(started)
	stopApp()

	span := min(elapsed, time.Minute)
	perMinute := float64(calls.busiest(span)) * float64(time.Minute) / float64(span)
	s.add("busiest minute of /v1 calls for one abusive app client ÷ the app key's per-minute budget",
		[]float64{perMinute / float64(budget)}, AtMost(0.02))
	s.info("/v1 calls the app made", "calls", []float64{float64(calls.count())})
	s.info("requests the client sent", "requests", []float64{float64(ab.sent.Load())})
	s.info("requests the app refused with 429", "requests", []float64{float64(ab.refused.Load())})
	s.info("status streams the app let the client open", "streams", []float64{float64(ab.streams.Load())})
	s.info("orders the client created", "orders", []float64{float64(ab.orders.Load())})
	return ctx.Err()
}

// appKey creates the app's Partner and a key, and waits until the frontend takes the key; it
// returns the key and its per-minute budget as the frontend states it.
func (h *harness) appKey(ctx context.Context) (keyID, secret string, budget int, err error) {
	p := &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: appPartner, Namespace: benchNamespace},
		Spec:       swapv1.PartnerSpec{DisplayName: "Bench swap app", Tier: appTier},
	}
	if err := h.env.Client.Create(ctx, p); client.IgnoreAlreadyExists(err) != nil {
		return "", "", 0, err
	}
	keyID, secret, err = auth.CreateKey(ctx, h.env.Client, benchNamespace, appPartner)
	if err != nil {
		return "", "", 0, err
	}
	c, err := NewAPIClient(h.env.FrontendURL, keyID, secret, h.api.HTTP)
	if err != nil {
		return "", "", 0, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if limit, ok := c.rateLimit(ctx); ok {
			return keyID, secret, limit, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", "", 0, fmt.Errorf("the frontend did not take the app's key within 30 s")
}

// callLog is the app's transport to /v1: it notes when each call was sent.
type callLog struct {
	next http.RoundTripper
	mu   sync.Mutex
	at   []time.Time
}

func (l *callLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.at = append(l.at, time.Now())
	l.mu.Unlock()
	return l.next.RoundTrip(r)
}

func (l *callLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.at)
}

// busiest is the most calls sent within any span.
func (l *callLog) busiest(span time.Duration) int {
	l.mu.Lock()
	at := slices.Clone(l.at)
	l.mu.Unlock()
	return mostWithin(at, span)
}

// mostWithin is the largest number of the sorted times that fall within one span.
func mostWithin(at []time.Time, span time.Duration) int {
	best, lo := 0, 0
	for hi := range at {
		for at[hi].Sub(at[lo]) >= span {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// abuser is one client address of the app doing everything it can.
type abuser struct {
	base                           string
	http                           *http.Client
	sent, refused, streams, orders atomic.Int64
	mu                             sync.Mutex
	followed                       []appSession // sessions that own an order, with its id
}

// appSession is a cookie the app issued, its CSRF token, and the order it created, if any.
type appSession struct {
	cookie, csrf, order string
}

// run spends whatever the app lets it spend: it takes a fresh cookie (a fresh session
// bucket) before its session's budget runs out, spends every other request on calls that
// reach /v1, and pauses briefly after a refusal rather than spinning on the app's CPU.
func (a *abuser) run(ctx context.Context, worker int) {
	var sess appSession
	uses := 0
	for i := worker; ctx.Err() == nil; i++ {
		var status int
		switch {
		case sess.cookie == "" || uses >= consumerapp.DefaultPerSession-2:
			if sess, status = a.session(ctx); status == http.StatusOK {
				uses = 1
			}
		case i%4 == 0:
			status = a.send(ctx, sess, http.MethodPost, "/api/quote", map[string]any{"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH}).status
		case i%4 == 1:
			status = a.send(ctx, sess, http.MethodPost, "/api/rates", map[string]any{"from": ethETH, "amount": pointOneETH, "targets": []string{solSOL}}).status
		case i%4 == 2:
			status = a.createOrder(ctx, sess)
		default:
			status = a.follow(ctx)
		}
		if status == http.StatusTooManyRequests {
			select {
			case <-ctx.Done():
			case <-time.After(50 * time.Millisecond):
			}
		} else if status != 0 {
			uses++
		}
	}
}

// session asks for a fresh session, as a client that drops its cookie.
func (a *abuser) session(ctx context.Context) (appSession, int) {
	resp := a.send(ctx, appSession{}, http.MethodGet, "/api/session", nil)
	var body struct {
		CSRFToken string `json:"csrfToken"`
	}
	if resp.status != http.StatusOK || json.Unmarshal(resp.body, &body) != nil || len(resp.cookies) == 0 {
		return appSession{}, resp.status
	}
	return appSession{cookie: resp.cookies[0].Name + "=" + resp.cookies[0].Value, csrf: body.CSRFToken}, resp.status
}

func (a *abuser) createOrder(ctx context.Context, sess appSession) int {
	resp := a.send(ctx, sess, http.MethodPost, "/api/orders", map[string]any{
		"originAsset": ethETH, "destinationAsset": solSOL, "amount": pointOneETH, "providerId": string(swapv1.ProviderRouteA),
		"sender": sender, "recipient": solDest, "refundTo": sender,
		"idempotencyKey": fmt.Sprintf("abuse-%d", time.Now().UnixNano()),
	})
	var order struct {
		ID string `json:"id"`
	}
	if resp.status >= 300 || json.Unmarshal(resp.body, &order) != nil || order.ID == "" {
		return resp.status
	}
	a.orders.Add(1)
	sess.order = order.ID
	a.mu.Lock()
	a.followed = append(a.followed, sess)
	a.mu.Unlock()
	return resp.status
}

// follow opens one more status stream on an order the client created, in the session that
// owns it, and holds it open until the run ends.
func (a *abuser) follow(ctx context.Context) int {
	a.mu.Lock()
	if len(a.followed) == 0 {
		a.mu.Unlock()
		return http.StatusOK
	}
	sess := a.followed[int(a.sent.Load())%len(a.followed)]
	a.mu.Unlock()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/orders/"+sess.order+"/events", nil)
	req.Header.Set("Cookie", sess.cookie)
	a.sent.Add(1)
	resp, err := a.http.Do(req)
	if err != nil {
		return 0
	}
	a.note(resp.StatusCode)
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	a.streams.Add(1)
	go func() {
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
	}()
	return resp.StatusCode
}

// answer is what the app answered.
type answer struct {
	status  int
	body    []byte
	cookies []*http.Cookie
}

func (a *abuser) send(ctx context.Context, sess appSession, method, path string, body any) answer {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return answer{}
	}
	req.Header.Set("Origin", a.base)
	req.Header.Set("Content-Type", "application/json")
	if sess.cookie != "" {
		req.Header.Set("Cookie", sess.cookie)
		req.Header.Set("X-CSRF-Token", sess.csrf)
	}
	a.sent.Add(1)
	resp, err := a.http.Do(req)
	if err != nil {
		return answer{}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	a.note(resp.StatusCode)
	return answer{status: resp.StatusCode, body: b, cookies: resp.Cookies()}
}

func (a *abuser) note(status int) {
	if status == http.StatusTooManyRequests {
		a.refused.Add(1)
	}
}
