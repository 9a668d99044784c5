package consumerapp

import (
	"bufio"
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/swaprouter/swaprouter/internal/consumerapp/upstream"
	"github.com/swaprouter/swaprouter/pkg/client"
)

func TestSessionIDsAreIssuedNeverAdopted(t *testing.T) {
	s := newTestServer(t)
	issued := get(s, "/api/session", "", "192.0.2.1:1000").Result().Cookies()[0]
	if w := get(s, "/api/session", issued.Name+"="+issued.Value, "192.0.2.1:1000"); len(w.Result().Cookies()) != 0 {
		t.Errorf("an issued session was replaced: %v", w.Result().Cookies())
	}
	id, _, _ := strings.Cut(issued.Value, ".")
	for _, planted := range []string{
		"0123456789abcdef0123456789abcdef", // a bare id, as the server once took
		id,                                 // the real id without its seal
		"0123456789abcdef0123456789abcdef." + strings.Repeat("A", 43), // a forged seal
	} {
		w := get(s, "/api/session", sessionCookie+"="+planted, "192.0.2.1:1000")
		cookies := w.Result().Cookies()
		if len(cookies) != 1 || cookies[0].Value == planted || strings.HasPrefix(cookies[0].Value, strings.SplitN(planted, ".", 2)[0]+".") {
			t.Errorf("planted session %q was adopted (cookies %v)", planted, cookies)
		}
	}
}

func TestSessionCookieSecureBehindATrustedProxy(t *testing.T) {
	s, err := New(Options{APIURL: "http://127.0.0.1:1", Key: upstream.Key{ID: "key", Secret: "partner-secret"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	secure := func(remote, proto string, tlsOn bool) bool {
		r := httptest.NewRequest(http.MethodGet, "/api/session", nil)
		r.RemoteAddr = remote
		if proto != "" {
			r.Header.Set("X-Forwarded-Proto", proto)
		}
		if tlsOn {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w.Result().Cookies()[0].Secure
	}
	if !secure("10.1.1.1:1000", "https", false) {
		t.Error("served over HTTPS by the ingress, the cookie is not Secure")
	}
	if secure("203.0.113.1:1000", "https", false) {
		t.Error("an untrusted client's X-Forwarded-Proto made the cookie Secure on plain HTTP")
	}
	if !secure("203.0.113.1:1000", "", true) {
		t.Error("direct TLS, the cookie is not Secure")
	}
}

// streamRig is the app in front of a /v1 that counts its order reads.
type streamRig struct {
	app    *httptest.Server
	s      *Server
	reads  atomic.Int64
	status atomic.Value // the order's status /v1 answers
}

const streamOrder = "ord_aaaaaaaaaaaaaaaaaaaaaaaaaa"

func newStreamRig(t *testing.T) *streamRig {
	rig := &streamRig{}
	rig.status.Store("PENDING")
	v1 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/order/"+streamOrder {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		rig.reads.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"` + streamOrder + `","status":"` + rig.status.Load().(string) + `","history":[]}`))
	}))
	t.Cleanup(v1.Close)
	s, err := New(Options{APIURL: v1.URL, Key: upstream.Key{ID: "key", Secret: "partner-secret"},
		PerSession: 1000, PerClientAddress: 1000, PollMin: time.Hour, PollMax: time.Hour,
		StreamsPerSession: 3, StreamsPerOrder: 5, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	rig.s, rig.app = s, httptest.NewServer(s)
	t.Cleanup(rig.app.Close)
	return rig
}

// session opens a session that owns the order.
func (rig *streamRig) session(t *testing.T) string {
	resp, err := http.Get(rig.app.URL + "/api/session")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	c := resp.Cookies()[0]
	id, _ := openSession(rig.s.key, c.Value)
	rig.s.recent.add(id, orderView{Order: client.Order{Id: streamOrder, Status: client.OrderStatusPENDING}})
	return c.Name + "=" + c.Value
}

// stream opens the order's status stream and returns its answer code and its event names.
func (rig *streamRig) stream(ctx context.Context, t *testing.T, cookie string) (int, <-chan string) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rig.app.URL+"/api/orders/"+streamOrder+"/events", nil)
	req.Header.Set("Cookie", cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan string, 16)
	go func() {
		defer resp.Body.Close()
		defer close(events)
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- name
			}
		}
	}()
	return resp.StatusCode, events
}

func TestViewersOfAnOrderShareOnePoll(t *testing.T) {
	rig := newStreamRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var streams []<-chan string
	for range 2 {
		cookie := rig.session(t)
		for range 2 {
			code, events := rig.stream(ctx, t, cookie)
			if code != http.StatusOK {
				t.Fatalf("stream: %d", code)
			}
			if ev := <-events; ev != "order" {
				t.Fatalf("first event %q", ev)
			}
			streams = append(streams, events)
		}
	}
	if n := rig.reads.Load(); n != 1 {
		t.Errorf("4 pages following one order read it %d times from /v1; want one shared read", n)
	}

	// The order ends: one read tells every viewer.
	rig.status.Store("SUCCESS")
	rig.s.feeds.pokeOrder(streamOrder)
	var wg sync.WaitGroup
	for _, events := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got []string
			for ev := range events {
				got = append(got, ev)
			}
			if strings.Join(got, ",") != "order,end" {
				t.Errorf("after the order ended a viewer got %v; want order, end", got)
			}
		}()
	}
	wg.Wait()
	if n := rig.reads.Load(); n != 2 {
		t.Errorf("/v1 reads %d; want 2", n)
	}
}

func TestStatusStreamsAreCapped(t *testing.T) {
	rig := newStreamRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	one := rig.session(t)
	for i := range 3 {
		if code, _ := rig.stream(ctx, t, one); code != http.StatusOK {
			t.Fatalf("stream %d of the session's 3: %d", i+1, code)
		}
	}
	if code, _ := rig.stream(ctx, t, one); code != http.StatusTooManyRequests {
		t.Errorf("a 4th stream of one session: %d, want 429", code)
	}
	other := rig.session(t)
	for i := range 2 {
		if code, _ := rig.stream(ctx, t, other); code != http.StatusOK {
			t.Fatalf("another session's stream %d: %d", i+1, code)
		}
	}
	if code, _ := rig.stream(ctx, t, rig.session(t)); code != http.StatusTooManyRequests {
		t.Errorf("a 6th stream of one order: %d, want 429", code)
	}
}
