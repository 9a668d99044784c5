package topology

import (
	"bytes"
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
	for !l.stopped() {
		l.call("quote", http.MethodPost, "/v1/quote", map[string]any{
			"originAsset": eth, "destinationAsset": sol, "amount": pointOne, "dry": true,
		}, "")
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
		l.call("hint", http.MethodPost, "/v1/order/"+o.id+"/deposit", map[string]any{"txHash": tx}, "")
	}
}

// createOrder creates an order with key, retrying (same key, either frontend) until an
// answer shows its deposit address; nil when the load stops first.
func (l *load) createOrder(provider, recipient, key string) *order {
	body := map[string]any{
		"originAsset": eth, "destinationAsset": sol, "amount": pointOne,
		"sender": sender, "recipient": recipient, "providerId": provider,
	}
	for !l.stopped() {
		status, resp := l.call("order", http.MethodPost, "/v1/order", body, key)
		if status == http.StatusCreated || status == http.StatusAccepted || status == http.StatusOK {
			id, _ := resp["id"].(string)
			if id == "" {
				continue
			}
			o := l.record(id, resp)
			for len(o.addresses) == 0 && !l.stopped() { // 202: the address comes later
				if st, got := l.call("get", http.MethodGet, "/v1/order/"+id, nil, ""); st == http.StatusOK {
					o = l.record(id, got)
				}
			}
			return o
		}
		if status >= 400 && status < 500 && status != http.StatusTooManyRequests {
			l.fail(fmt.Sprintf("order refused: %v", resp), status) // a valid order: never right
			return nil
		}
	}
	return nil
}

// record notes the address an answer showed for order id.
func (l *load) record(id string, resp map[string]any) *order {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.orders[id]
	if o == nil {
		o = &order{id: id, addresses: map[string]bool{}}
		l.orders[id] = o
	}
	if a, _ := resp["depositAddress"].(string); a != "" {
		o.addresses[a] = true
	}
	return o
}

// call sends one partner request to a random frontend and records partner-visible failures.
func (l *load) call(name, method, path string, body any, idemKey string) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	base := l.r.frontendURL()
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("X-Key-Id", l.r.keyID)
	req.Header.Set("Authorization", "Bearer "+l.r.secret)
	req.Header.Set("Content-Type", "application/json")
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	l.requests.Add(1)
	resp, err := l.http.Do(req)
	if err != nil {
		l.fail(name, 0)
		return 0, nil
	}
	defer func() { _ = resp.Body.Close() }()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
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
	if o, ok := out["order"].(map[string]any); ok { // dry:false shape
		out = o
	}
	return resp.StatusCode, out
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
