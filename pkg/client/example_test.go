package client_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/swaprouter/swaprouter/pkg/client"
)

// A partner's journey, as README.md shows it (compiled here, run against the whole system in
// test/e2e/client_test.go).
func Example() {
	ctx := context.Background()
	baseURL, keyID, secret := "http://localhost:8080", "acme-key-1", "sk_..."
	eth, sol := "eip155:1/slip44:60", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	sender, recipient := "0x1111111111111111111111111111111111111111", "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

	c, err := client.NewClientWithResponses(baseURL, client.WithRequestEditorFn(
		func(_ context.Context, r *http.Request) error {
			r.Header.Set("X-Key-Id", keyID)
			r.Header.Set("Authorization", "Bearer "+secret)
			return nil
		}))
	if err != nil {
		return
	}
	chain, dry, key := "eth", true, "checkout-42" // key: your idempotency key for this order
	assets, err := c.ListAssetsWithResponse(ctx, &client.ListAssetsParams{Chain: &chain})
	if err != nil || assets.JSON200 == nil {
		return
	}
	q, err := c.RequestQuoteWithResponse(ctx, nil, client.QuoteRequest{
		OriginAsset: eth, DestinationAsset: sol, Amount: "100000000000000000", Dry: &dry})
	if err != nil {
		return
	}
	if q.JSON400 != nil && q.JSON400.Error == client.RequestQuote400JSONResponseBodyErrorAmountTooLow {
		return // fix the amount: q.JSON400.Detail names the limit
	}
	if q.JSON200 == nil {
		return // 429: wait Retry-After; 502/504: back off and retry
	}
	o, err := c.CreateOrderWithResponse(ctx, &client.CreateOrderParams{IdempotencyKey: &key}, client.OrderRequest{
		OriginAsset: eth, DestinationAsset: sol, Amount: "100000000000000000", Sender: sender, Recipient: recipient,
		ProviderId: client.ProviderId(q.JSON200.Best.ProviderId)})
	if err != nil || o.JSON201 == nil {
		return
	}
	fmt.Println("deposit to", *o.JSON201.DepositAddress)
	got, err := c.GetOrderWithResponse(ctx, o.JSON201.Id) // poll every 10-15 s
	if err == nil && got.JSON200 != nil {
		fmt.Println(got.JSON200.Status)
	}
}
