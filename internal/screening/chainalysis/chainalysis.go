// Package chainalysis is a screening source that asks an HTTP service speaking the
// Chainalysis public sanctions API: GET {base}/api/v1/address/{address} with the X-API-Key
// header, answered {"identifications": [...]} (empty when the address is not sanctioned).
// Each screening has its own timeout; answers are cached; a circuit breaker stops asking a
// service that keeps failing, which then counts as unavailable at once.
package chainalysis

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/internal/resilience"
	"github.com/swaprouter/swaprouter/internal/screening"
)

// Source names the service in an order's screening record.
const Source = "chainalysis"

// Defaults of Client.
const (
	DefaultTimeout  = 3 * time.Second
	DefaultCacheTTL = time.Hour
	// maxCached bounds the cache; past it the cache starts over.
	maxCached = 100_000
)

// Identification is one entry of the service's answer.
type Identification struct {
	Category    string `json:"category"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
}

// Answer is the service's body.
type Answer struct {
	Identifications []Identification `json:"identifications"`
}

// Client is the source. BaseURL empty means not configured.
type Client struct {
	BaseURL string
	APIKey  string
	HTTP    *http.Client
	// Timeout bounds one screening (every address of an order); CacheTTL how long an answer
	// is reused.
	Timeout, CacheTTL time.Duration
	Breaker           resilience.Policy
	Now               func() time.Time

	mu      sync.Mutex
	breaker health.State
	cache   map[string]cached
}

type cached struct {
	ids     []Identification
	expires time.Time
}

// Screen asks about each subject (cached answers first), the subjects in parallel so an
// order waits for one round trip, not three.
func (c *Client) Screen(ctx context.Context, subjects []screening.Subject) (screening.Answer, bool) {
	if c.BaseURL == "" {
		return screening.Answer{}, false
	}
	a := screening.Answer{Source: swapv1.ScreeningSource{Name: Source, Version: "api/v1"}}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(c.Timeout, DefaultTimeout))
	defer cancel()
	ids := make([][]Identification, len(subjects))
	errs := make([]error, len(subjects))
	var wg sync.WaitGroup
	for i, s := range subjects {
		wg.Go(func() { ids[i], errs[i] = c.identifications(ctx, screening.Canonical(s.Chain, s.Address)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		a.Source.Unavailable = err.Error()
		return a, true
	}
	for i, s := range subjects {
		if len(ids[i]) > 0 {
			a.Matches = append(a.Matches, screening.Match(s, Source, entry(ids[i])))
		}
	}
	return a, true
}

// entry names what the service identified.
func entry(ids []Identification) string {
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		parts = append(parts, id.Category+": "+id.Name)
	}
	return strings.Join(parts, "; ")
}

// identifications answers for one address from the cache or the service.
func (c *Client) identifications(ctx context.Context, addr string) ([]Identification, error) {
	now := c.now()
	c.mu.Lock()
	if e, ok := c.cache[addr]; ok && now.Before(e.expires) {
		c.mu.Unlock()
		return e.ids, nil
	}
	ok, st := health.Allow(c.breaker, now)
	c.breaker = st
	c.mu.Unlock()
	if !ok {
		return nil, errors.New("the screening service kept failing; not asked until it recovers")
	}
	ids, err := c.ask(ctx, addr)
	outcome, pe := health.OutcomeOf(err, false)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.breaker = health.Record(c.breaker, outcome, pe, c.now(), c.breakerPolicy(), rand.Float64())
	if err != nil {
		return nil, err
	}
	if c.cache == nil || len(c.cache) >= maxCached {
		c.cache = map[string]cached{}
	}
	c.cache[addr] = cached{ids: ids, expires: now.Add(cmp.Or(c.CacheTTL, DefaultCacheTTL))}
	return ids, nil
}

// ask makes the call. Every failure is the service's (a timeout, a 5xx, a refused key, an
// answer that is not the API's): the address was not screened.
func (c *Client) ask(ctx context.Context, addr string) ([]Identification, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		strings.TrimSuffix(c.BaseURL, "/")+"/api/v1/address/"+url.PathEscape(addr), nil)
	if err != nil {
		return nil, &provider.Error{Provider: Source, Kind: provider.KindUpstream, Detail: "screening service URL", Err: err}
	}
	req.Header.Set("X-API-Key", c.APIKey)
	req.Header.Set("Accept", "application/json")
	resp, err := c.httpClient().Do(req)
	if err != nil {
		kind := provider.KindUpstream
		if errors.Is(err, context.DeadlineExceeded) {
			kind = provider.KindTimeout
		}
		return nil, &provider.Error{Provider: Source, Kind: kind, Detail: "screening service did not answer", Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case err != nil:
		return nil, &provider.Error{Provider: Source, Kind: provider.KindUpstream, Detail: "screening service answer cut off", Err: err}
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, &provider.Error{Provider: Source, Kind: provider.KindCredentials, Detail: fmt.Sprintf("screening service refused the API key (%d)", resp.StatusCode)}
	case resp.StatusCode != http.StatusOK:
		return nil, &provider.Error{Provider: Source, Kind: provider.KindUpstream, Detail: fmt.Sprintf("screening service answered %d", resp.StatusCode)}
	}
	var a Answer
	if err := json.Unmarshal(body, &a); err != nil || a.Identifications == nil {
		return nil, &provider.Error{Provider: Source, Kind: provider.KindUpstream, Detail: "screening service answer is not {\"identifications\": [...]}"}
	}
	return a.Identifications, nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) breakerPolicy() resilience.Policy {
	if c.Breaker.Threshold > 0 {
		return c.Breaker
	}
	return health.DefaultPolicy
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
