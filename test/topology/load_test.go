package topology

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/chainaddr"
	swapclient "github.com/swaprouter/swaprouter/pkg/client"
)

const (
	eth       = "eip155:1/slip44:60"
	sol       = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp/slip44:501"
	sender    = "0x1111111111111111111111111111111111111111"
	pointOne  = "100000000000000000"
	providerA = "route_A"
	providerB = "route_B"
)

// order is what the partner knows of one order it created.
type order struct {
	id        string
	addresses map[string]bool // every deposit address any answer showed for it
	funded    time.Time       // zero until the user deposited
}

// failure is a partner-visible failure: a 5xx or no answer at all.
type failure struct {
	at     time.Time
	status int // 0: connection refused or reset
	call   string
}

// load is a steady stream of partner traffic, spread over both frontends as a Service
// would, retrying a failed order creation with the same Idempotency-Key (the contract's
// advice), plus end users on the swap app.
type load struct {
	r    *rig
	http *http.Client

	mu       sync.Mutex
	orders   map[string]*order
	failures []failure
	requests atomic.Int64
	appCalls atomic.Int64

	stop chan struct{}
	wg   sync.WaitGroup
	seq  atomic.Int64
}

func startLoad(r *rig, workers int) *load {
	l := &load{r: r, http: &http.Client{Timeout: 40 * time.Second}, orders: map[string]*order{}, stop: make(chan struct{})}
	for w := range workers {
		l.wg.Add(1)
		go l.worker(w)
	}
	return l
}

func (l *load) halt() {
	close(l.stop)
	l.wg.Wait()
}

func (l *load) stopped() bool {
	select {
	case <-l.stop:
		return true
	default:
		return false
	}
}

// worker quotes, creates an order, funds it on the simulated chain and sends the deposit
// hint, over and over; one in four orders is left unfunded (it stays PENDING).
func (l *load) worker(w int) {
	defer l.wg.Done()
	rnd := rand.New(rand.NewPCG(uint64(w), 7))
	app := appClient()
	dry := true
	for !l.stopped() {
		l.call("quote", func(ctx context.Context, c *swapclient.Client) (*http.Response, error) {
			return c.RequestQuote(ctx, nil, swapclient.QuoteRequest{OriginAsset: eth, DestinationAsset: sol, Amount: pointOne, Dry: &dry})
		})
		l.appCall(app)
		n := l.seq.Add(1)
		provider := providerA
		if n%2 == 0 {
			provider = providerB
		}
		// One order per recipient: the simulator counts addresses per recipient.
		recipient := chainaddr.Address("sol", "topology", fmt.Sprint(n))
		key := fmt.Sprintf("topology-%d", n)
		o := l.createOrder(provider, recipient, key)
		if o == nil || rnd.IntN(4) == 0 {
			continue
		}
		var address string
		for a := range o.addresses {
			address = a
		}
		tx := l.deposit(address)
		if tx == "" {
			continue
		}
		l.mu.Lock()
		o.funded = time.Now()
		l.mu.Unlock()
		l.call("hint", func(ctx context.Context, c *swapclient.Client) (*http.Response, error) {
			return c.SubmitDeposit(ctx, o.id, swapclient.DepositRequest{TxHash: tx})
		})
	}
}

// createOrder creates an order with key, retrying (same key, either frontend) until an
// answer shows its deposit address; nil when the load stops first.
func (l *load) createOrder(provider, recipient, key string) *order {
	body := swapclient.OrderRequest{OriginAsset: eth, DestinationAsset: sol, Amount: pointOne,
		Sender: sender, Recipient: recipient, ProviderId: swapclient.ProviderId(provider)}
	create := func(ctx context.Context, c *swapclient.Client) (*http.Response, error) {
		return c.CreateOrder(ctx, &swapclient.CreateOrderParams{IdempotencyKey: &key}, body)
	}
	for !l.stopped() {
		status, raw := l.call("order", create)
		var created swapclient.Order
		if status == http.StatusCreated || status == http.StatusAccepted {
			if json.Unmarshal(raw, &created) != nil || created.Id == "" {
				continue
			}
			o := l.record(created)
			get := func(ctx context.Context, c *swapclient.Client) (*http.Response, error) {
				return c.GetOrder(ctx, created.Id)
			}
			for len(o.addresses) == 0 && !l.stopped() { // 202: the address comes later
				var got swapclient.Order
				if st, raw := l.call("get", get); st == http.StatusOK && json.Unmarshal(raw, &got) == nil {
					o = l.record(got)
				}
			}
			return o
		}
		if status >= 400 && status < 500 && status != http.StatusTooManyRequests {
			l.fail(fmt.Sprintf("order refused: %s", raw), status) // a valid order: never right
			return nil
		}
	}
	return nil
}

// record notes the address an answer showed for its order.
func (l *load) record(answer swapclient.Order) *order {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.orders[answer.Id]
	if o == nil {
		o = &order{id: answer.Id, addresses: map[string]bool{}}
		l.orders[answer.Id] = o
	}
	if a := answer.DepositAddress; a != nil && *a != "" {
		o.addresses[*a] = true
	}
	return o
}

// call sends one partner request through the generated client of a random frontend and
// records partner-visible failures; it returns the answer's status and body (0: no answer).
func (l *load) call(name string, send func(context.Context, *swapclient.Client) (*http.Response, error)) (int, []byte) {
	c, err := swapclient.NewClient(l.r.frontendURL(), swapclient.WithHTTPClient(l.http),
		swapclient.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("X-Key-Id", l.r.keyID)
			req.Header.Set("Authorization", "Bearer "+l.r.secret)
			return nil
		}))
	if err != nil {
		l.fail(name, 0)
		return 0, nil
	}
	l.requests.Add(1)
	resp, err := send(context.Background(), c)
	if err != nil {
		l.fail(name, 0)
		return 0, nil
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		l.fail(name, resp.StatusCode)
	}
	// A partner following the contract waits as long as Retry-After says.
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && resp.StatusCode >= 500 {
		select {
		case <-time.After(time.Duration(s) * time.Second):
		case <-l.stop:
		}
	}
	return resp.StatusCode, raw
}

func (l *load) fail(call string, status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failures = append(l.failures, failure{at: time.Now(), status: status, call: call})
}

// appCall is an end user's page load on the swap app (through frontend 0).
func (l *load) appCall(c *http.Client) {
	for _, path := range []string{"/api/session", "/api/assets"} {
		resp, err := c.Get(l.r.appURL + path)
		l.appCalls.Add(1)
		if err != nil {
			l.fail("app "+path, 0)
			continue
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode >= 500 {
			l.fail("app "+path, resp.StatusCode)
		}
	}
}

// deposit funds address on the simulated chain as the user's wallet would; "" when the
// simulator did not take it (it may be the fault of the moment).
func (l *load) deposit(address string) string {
	b, _ := json.Marshal(map[string]string{"depositAddress": address, "amount": pointOne})
	resp, err := http.Post(l.r.simURL+"/chain/deposits", "application/json", bytes.NewReader(b))
	if err != nil {
		return ""
	}
	defer func() { _ = resp.Body.Close() }()
	var out struct {
		TxHash string `json:"txHash"`
	}
	if resp.StatusCode >= 300 || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return ""
	}
	return out.TxHash
}

// snapshot returns the orders and failures so far.
func (l *load) snapshot() (map[string]order, []failure) {
	l.mu.Lock()
	defer l.mu.Unlock()
	orders := make(map[string]order, len(l.orders))
	for id, o := range l.orders {
		cp := *o
		cp.addresses = map[string]bool{}
		for a := range o.addresses {
			cp.addresses[a] = true
		}
		orders[id] = cp
	}
	return orders, append([]failure(nil), l.failures...)
}

// toggleListener refuses connections while down (the partner's webhook endpoint unreachable).
type toggleListener struct {
	net.Listener
	down atomic.Bool
}

func (t *toggleListener) Accept() (net.Conn, error) {
	for {
		c, err := t.Listener.Accept()
		if err != nil || !t.down.Load() {
			return c, err
		}
		_ = c.Close()
	}
}
