package partnerapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlclient "sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/dev/devenv"
	"github.com/swaprouter/swaprouter/pkg/client"
)

// Assets of the simulator's table both providers route, and a swap between them.
const (
	ETH          = "eip155:1/slip44:60"
	SOL          = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	Sender       = "0x1111111111111111111111111111111111111111"
	SolRecipient = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
	PointOneETH  = "100000000000000000" // 0.1 ETH, about $300
)

// OrderRequest is a POST /v1/order body swapping 0.1 ETH to SOL with provider.
func OrderRequest[P ~string](provider P) client.OrderRequest {
	return client.OrderRequest{OriginAsset: ETH, DestinationAsset: SOL, Amount: PointOneETH,
		Sender: Sender, Recipient: SolRecipient, ProviderId: client.ProviderId(provider)}
}

// CreateOrder creates the order req (with idempotencyKey unless "") and expects 201.
func (c *Client) CreateOrder(req client.OrderRequest, idempotencyKey string) client.Order {
	params := &client.CreateOrderParams{}
	if idempotencyKey != "" {
		params.IdempotencyKey = &idempotencyKey
	}
	r, err := c.API.CreateOrderWithResponse(context.Background(), params, req)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.JSON201).NotTo(BeNil(), "POST /v1/order: %d %s", r.StatusCode(), r.Body)
	return *r.JSON201
}

// Order reads order id and expects 200.
func (c *Client) Order(id string) client.Order {
	r, err := c.API.GetOrderWithResponse(context.Background(), id)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.JSON200).NotTo(BeNil(), "GET /v1/order/%s: %d %s", id, r.StatusCode(), r.Body)
	return *r.JSON200
}

// Deposit sends funds to a deposit address on e's simulated chain, as a user's wallet would,
// and returns the transaction hash.
func Deposit(e *devenv.Env, address, amount string) string {
	body, _ := json.Marshal(map[string]string{"depositAddress": address, "amount": amount})
	resp, err := http.Post(e.SimulatorURL+"/chain/deposits", "application/json", bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(BeNumerically("<", 300))
	var out struct {
		TxHash string `json:"txHash"`
	}
	Expect(json.NewDecoder(resp.Body).Decode(&out)).To(Succeed())
	Expect(out.TxHash).NotTo(BeEmpty())
	return out.TxHash
}

// AwaitStatus polls the order like a partner (faster than 10–15 s to save time) until it has
// status, and returns it.
func (c *Client) AwaitStatus(id string, status client.OrderStatus) client.Order {
	var order client.Order
	Eventually(func(g Gomega) {
		r, err := c.API.GetOrderWithResponse(context.Background(), id)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(r.JSON200).NotTo(BeNil(), "%d %s", r.StatusCode(), r.Body)
		order = *r.JSON200
		g.Expect(order.Status).To(Equal(status), "statusReason %v", order.StatusReason)
	}).Should(Succeed())
	return order
}

// NewPartner declares another partner of e with its own key, as an operator would, and
// returns a client for it once the frontend's cache knows the key.
func NewPartner(e *devenv.Env, name string, requestsPerMinute int32) *Client {
	ctx := context.Background()
	p := &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.Namespace},
		Spec:       swapv1.PartnerSpec{RequestsPerMinute: requestsPerMinute},
	}
	Expect(ctrlclient.IgnoreAlreadyExists(e.Client.Create(ctx, p))).To(Succeed())
	keyID, secret, err := auth.CreateKey(ctx, e.Client, e.Namespace, name)
	Expect(err).NotTo(HaveOccurred())
	c := New(e.FrontendURL, keyID, secret)
	from := ETH
	Eventually(func(g Gomega) int {
		r, err := c.API.SwappableTargetsWithResponse(ctx, &client.SwappableTargetsParams{From: from})
		g.Expect(err).NotTo(HaveOccurred())
		return r.StatusCode()
	}).ShouldNot(Equal(http.StatusUnauthorized), "the frontend's cache has the new key")
	return c
}
