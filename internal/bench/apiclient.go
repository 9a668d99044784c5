package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

// APIClient is a partner calling the /v1 frontend through the generated client with one key.
// The bench reads answers itself (expect) rather than through the generated parsers, so a
// call costs the bench what a partner's client costs, not a decode of every answer.
type APIClient struct {
	*swapclient.Client
	Base, KeyID, Secret string
	HTTP                *http.Client
}

// NewAPIClient is a client of the frontend at base with the key keyID and its secret, sending
// through hc.
func NewAPIClient(base, keyID, secret string, hc *http.Client) (*APIClient, error) {
	c, err := swapclient.NewClient(base, swapclient.WithHTTPClient(hc),
		swapclient.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Key-Id", keyID)
			r.Header.Set("Authorization", "Bearer "+secret)
			return nil
		}))
	if err != nil {
		return nil, err
	}
	return &APIClient{Client: c, Base: base, KeyID: keyID, Secret: secret, HTTP: hc}, nil
}

// NewHTTPClient keeps enough idle connections for the highest concurrency, so a run measures
// requests rather than TCP handshakes.
func NewHTTPClient(timeout time.Duration) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = 512
	tr.MaxIdleConnsPerHost = 256
	return &http.Client{Timeout: timeout, Transport: tr}
}

// StatusError is an answer with an unexpected status.
type StatusError struct {
	Method, Path string
	Status       int
	Body         string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.Path, e.Status, e.Body)
}

// expect reads the answer of a call and decodes its JSON into out (when not nil). An answer
// other than want is a *StatusError; err is the call's own.
func expect(resp *http.Response, err error, want int, out any) error {
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return &StatusError{Method: resp.Request.Method, Path: resp.Request.URL.RequestURI(), Status: resp.StatusCode, Body: string(raw)}
	}
	if out == nil {
		// A partner's client sits on another machine: the load generator only drains the
		// answer, so its own allocations do not weigh on the cores it shares with the system.
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// benchOrder is the bench's order: 0.1 ETH to SOL through provider.
func benchOrder(provider swapv1.ProviderID) swapclient.OrderRequest {
	return swapclient.OrderRequest{OriginAsset: ethETH, DestinationAsset: solSOL, Amount: pointOneETH,
		Sender: sender, Recipient: solDest, ProviderId: swapclient.ProviderId(provider)}
}

// dryQuote is a dry quote of 0.1 ETH to destination.
func dryQuote(destination string) swapclient.QuoteRequest {
	dry := true
	return swapclient.QuoteRequest{OriginAsset: ethETH, DestinationAsset: destination, Amount: pointOneETH, Dry: &dry}
}

// rateLimit is the key's X-RateLimit-Limit on a successful GET /v1/assets.
func (c *APIClient) rateLimit(ctx context.Context) (int, bool) {
	resp, err := c.ListAssets(ctx, nil)
	if err := expect(resp, err, http.StatusOK, nil); err != nil {
		return 0, false
	}
	limit, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Limit"))
	return limit, err == nil
}
