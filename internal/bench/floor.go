package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/swaprouter/swaprouter/internal/system"
)

// fanOutFloor is what scenario 1 costs on this machine with nothing of swaprouter in it: a
// stub frontend that fans each request out to stub providers over loopback HTTP/1.1 and
// answers once all have, next to the same stub called directly. No authentication, no JSON,
// no signatures, no routing: its ratios are the floor any frontend in this process meets at
// that concurrency, so a scenario 1 figure short of its target can be read against it.
type fanOutFloor struct {
	frontendURL, providerURL string
	load, calls              *http.Client
	servers                  []*http.Server
}

// Answer bodies of about the size of a provider's quote and of a frontend quote with three
// candidates, so the floor moves the bytes the real exchange does.
var (
	floorProviderAnswer = stubJSON(1200)
	floorFrontendAnswer = stubJSON(2400)
	floorRequest        = stubJSON(300)
)

func stubJSON(size int) []byte {
	return []byte(`{"pad":"` + string(bytes.Repeat([]byte("x"), size-10)) + `"}`)
}

// startFloor serves the stubs on loopback: each provider answers after latency, the frontend
// asks fanOut of them at once.
func startFloor(latency time.Duration, fanOut int) (*fanOutFloor, error) {
	f := &fanOutFloor{load: NewHTTPClient(60 * time.Second), calls: system.ProviderHTTPClient()} // the adapters' transport
	provider := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		t := time.NewTimer(latency)
		defer t.Stop()
		select {
		case <-t.C:
			writeStub(w, floorProviderAnswer)
		case <-r.Context().Done():
		}
	})
	var err error
	if f.providerURL, err = f.serve(provider); err != nil {
		return nil, err
	}
	frontend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		errs := make([]error, fanOut)
		var wg sync.WaitGroup
		for i := range fanOut {
			wg.Go(func() { errs[i] = post(r.Context(), f.calls, f.providerURL) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		writeStub(w, floorFrontendAnswer)
	})
	if f.frontendURL, err = f.serve(frontend); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

func (f *fanOutFloor) serve(h http.Handler) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	f.servers = append(f.servers, srv)
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), nil
}

// hangUp closes the floor's idle connections, so that their goroutines (a few hundred at
// c = 64) do not stay behind for the garbage collector to scan while the next measurement of
// the real system runs.
func (f *fanOutFloor) hangUp() {
	f.load.CloseIdleConnections()
	f.calls.CloseIdleConnections()
}

func (f *fanOutFloor) close() {
	for _, s := range f.servers {
		_ = s.Close()
	}
}

// quote is one request to the stub frontend; direct one to a stub provider.
func (f *fanOutFloor) quote(ctx context.Context, _, _ int) error {
	return post(ctx, f.load, f.frontendURL)
}

func (f *fanOutFloor) direct(ctx context.Context, _, _ int) error {
	return post(ctx, f.load, f.providerURL)
}

func writeStub(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}

func post(ctx context.Context, c *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(floorRequest))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %d", url, resp.StatusCode)
	}
	return nil
}
