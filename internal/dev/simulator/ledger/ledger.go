// Package ledger is the simulated providers' memory: the orders (deposit addresses) they
// created, the deposits the chains delivered to them, and the deposit submissions received.
// Like the real providers, opening an order is never idempotent: every call opens a new one.
package ledger

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
)

// ErrUnknownAddress: no provider knows the deposit address.
var ErrUnknownAddress = errors.New("unknown deposit address")

// Order is one deposit address a simulated provider handed out.
type Order struct {
	Provider       swapv1.ProviderID
	DepositAddress string
	// ChannelID is the provider's own reference where it has one (route_B's channel id,
	// Relay's request id).
	ChannelID string
	// Refs are further references of the provider that name this order (the request ids of
	// later quotes Relay answered with the same open address).
	Refs      []string `json:",omitempty"`
	From, To  market.Asset
	Terms     settlement.Terms
	Recipient string
	RefundTo  string
	CreatedAt time.Time
	Deposits  []settlement.Deposit
	// SubmittedTxHashes are the hashes received through a deposit-submit call.
	SubmittedTxHashes []string
	// OutTxHash and RefundTxHash are the hashes the settlement will use.
	OutTxHash, RefundTxHash string
	// Payload is protocol-specific data saved at creation (e.g. the original quote answer),
	// as JSON.
	Payload json.RawMessage
	// lastPhase is what was last logged, so transitions are logged once.
	lastPhase settlement.Phase
}

type refKey struct {
	provider swapv1.ProviderID
	ref      string
}

// Book holds every provider's orders.
type Book struct {
	mu        sync.Mutex
	byAddress map[string]*Order
	byChannel map[refKey]string
	// created counts addresses per provider and recipient: the one field every protocol
	// carries that tells the service's orders apart.
	created map[refKey]int
	submits map[swapv1.ProviderID]int
	seq     int
	// forgotten keeps what Forget took away, so Restore can play a provider finding it again.
	forgotten map[string]*Order
	// persist, when set, writes the book to its file after every change (OpenBook).
	persist *persister
}

// NewBook returns an empty Book.
func NewBook() *Book {
	return &Book{
		byAddress: map[string]*Order{}, byChannel: map[refKey]string{},
		created: map[refKey]int{}, submits: map[swapv1.ProviderID]int{}, forgotten: map[string]*Order{},
	}
}

// Open builds a new order; build gets a sequence number unique in the book, so it can derive a
// fresh address.
func (b *Book) Open(provider swapv1.ProviderID, build func(seq int) Order) Order {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	n := build(b.seq)
	b.byAddress[n.DepositAddress] = &n
	b.created[refKey{provider, n.Recipient}]++
	b.index(&n)
	return n.snapshot()
}

// index makes the order's references find it.
func (b *Book) index(o *Order) {
	for _, ref := range o.refs() {
		b.byChannel[refKey{o.Provider, ref}] = o.DepositAddress
	}
}

// refs are every reference of the provider that names the order.
func (o *Order) refs() []string {
	if o.ChannelID == "" {
		return o.Refs
	}
	return append([]string{o.ChannelID}, o.Refs...)
}

// AddRef makes ref name the provider's order at addr too. It reports whether the order exists.
func (b *Book) AddRef(provider swapv1.ProviderID, addr, ref string) bool {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok || o.Provider != provider {
		return false
	}
	o.Refs = append(o.Refs, ref)
	b.byChannel[refKey{provider, ref}] = addr
	return true
}

// ByAddress returns the provider's order at the deposit address.
func (b *Book) ByAddress(provider swapv1.ProviderID, addr string) (Order, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok || o.Provider != provider {
		return Order{}, false
	}
	return o.snapshot(), true
}

// ByChannel returns the provider's order with the channel id.
func (b *Book) ByChannel(provider swapv1.ProviderID, id string) (Order, bool) {
	b.mu.Lock()
	addr, ok := b.byChannel[refKey{provider, id}]
	b.mu.Unlock()
	if !ok {
		return Order{}, false
	}
	return b.ByAddress(provider, addr)
}

// AddDeposit records a chain transfer to a deposit address of any provider.
func (b *Book) AddDeposit(addr string, d settlement.Deposit) (Order, error) {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok {
		return Order{}, ErrUnknownAddress
	}
	o.Deposits = append(o.Deposits, d)
	return o.snapshot(), nil
}

// SubmitTx records a deposit submission. It is counted even when the address is unknown,
// because the provider received it.
func (b *Book) SubmitTx(provider swapv1.ProviderID, addr, txHash string) (Order, bool) {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	b.submits[provider]++
	o, ok := b.byAddress[addr]
	if !ok || o.Provider != provider {
		return Order{}, false
	}
	o.SubmittedTxHashes = append(o.SubmittedTxHashes, txHash)
	return o.snapshot(), true
}

// Forget makes the provider lose the order at addr. It reports whether it knew it.
func (b *Book) Forget(provider swapv1.ProviderID, addr string) bool {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok || o.Provider != provider {
		return false
	}
	delete(b.byAddress, addr)
	for _, ref := range o.refs() {
		delete(b.byChannel, refKey{provider, ref})
	}
	b.forgotten[addr] = o
	return true
}

// Restore gives back an order Forget took, as a provider whose lost record reappears. It
// reports false when the order was not forgotten.
func (b *Book) Restore(provider swapv1.ProviderID, addr string) bool {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.forgotten[addr]
	if !ok || o.Provider != provider {
		return false
	}
	delete(b.forgotten, addr)
	b.byAddress[addr] = o
	b.index(o)
	return true
}

// SetUnfilled makes the swap of the order at addr fill only (10000-bps)/10000 of its input at
// the order's price floor; the rest is refunded. It reports whether the order exists.
func (b *Book) SetUnfilled(provider swapv1.ProviderID, addr string, bps int64) bool {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok || o.Provider != provider {
		return false
	}
	o.Terms.UnfilledBps = bps
	return true
}

// SetDelaySteps makes the swap of the order at addr stall for steps extra settlement steps.
// It reports whether the order exists.
func (b *Book) SetDelaySteps(provider swapv1.ProviderID, addr string, steps int) bool {
	defer b.saved() // after the unlock
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok || o.Provider != provider {
		return false
	}
	o.Terms.DelaySteps = steps
	return true
}

// ObservePhase records the phase last seen for addr and reports whether it changed.
func (b *Book) ObservePhase(addr string, p settlement.Phase) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	o, ok := b.byAddress[addr]
	if !ok || o.lastPhase == p {
		return false
	}
	o.lastPhase = p
	return true
}

// Counts reports, per provider, how many deposit addresses were created per recipient and
// how many deposit submissions arrived.
func (b *Book) Counts() (createdPerRecipient map[swapv1.ProviderID]map[string]int, submits map[swapv1.ProviderID]int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	createdPerRecipient = map[swapv1.ProviderID]map[string]int{}
	for k, n := range b.created {
		if createdPerRecipient[k.provider] == nil {
			createdPerRecipient[k.provider] = map[string]int{}
		}
		createdPerRecipient[k.provider][k.ref] = n
	}
	return createdPerRecipient, maps.Clone(b.submits)
}

func (o *Order) snapshot() Order {
	c := *o
	c.Deposits = slices.Clone(o.Deposits)
	c.SubmittedTxHashes = slices.Clone(o.SubmittedTxHashes)
	c.Refs = slices.Clone(o.Refs)
	return c
}
