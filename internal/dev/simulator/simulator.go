// Package simulator is the provider simulator: one http.Handler serving route_A's protocol
// (the NEAR Intents 1Click API v0) under /route_A, route_B's (the Chainflip swap backend)
// under /route_B, Relay's under /relay, any further accounts of these protocols
// (Options.Instances) under /<their id>, the simulated chains under /chain and a control API
// under /control.
// Everything the control API does is also a Go method, for in-process tests.
package simulator

import (
	"crypto/ed25519"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/chainaddr"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/channelapi"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/fault"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/oneclickapi"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/relayapi"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/quotesig"
)

// Fault is how a provider call misbehaves (see package fault).
type Fault = fault.Fault

// AnyCall targets every call of a provider in SetFault.
const AnyCall = fault.AnyCall

// Call names for SetFault and Stats.
const (
	// route_A (oneclick)
	CallTokens = oneclickapi.CallTokens
	CallQuote  = oneclickapi.CallQuote // also route_B's quote
	CallStatus = oneclickapi.CallStatus
	CallSubmit = oneclickapi.CallSubmit
	// route_B (channel)
	CallNetworkInfo = channelapi.CallNetworkInfo
	CallOpen        = channelapi.CallOpen
	// relay (its quote and status are CallQuote and CallStatus)
	CallChains         = relayapi.CallChains
	CallCurrencies     = relayapi.CallCurrencies
	CallDepositAddress = relayapi.CallDepositAddress
	CallIndex          = relayapi.CallIndex
)

// Relay is the id the Relay module serves under (/relay).
const Relay = market.RelayID

// DCAMode says which quote types route_B answers (see channelapi).
type DCAMode = channelapi.DCAMode

// DCA modes.
const (
	DCANone = channelapi.DCANone
	DCAAlso = channelapi.DCAAlso
	DCAOnly = channelapi.DCAOnly
)

// Options set the simulator's speed and behaviour. Zero values take the dev defaults.
type Options struct {
	// StepDelay is the time each settlement step takes; a full deposit settles in 4 steps.
	// Default 2s (SUCCESS about 8 s after the deposit).
	StepDelay time.Duration
	// RefundDelay is how long an incomplete deposit waits before it is refunded. Default 20s.
	RefundDelay time.Duration
	// DepositWindow is how long after creation a deposit is accepted. Default 30m.
	DepositWindow time.Duration
	// Seed makes hashes and error-rate draws reproducible; addresses also depend on the clock,
	// so a restarted simulator never hands out an address of an earlier run. Default 1.
	Seed uint64
	// RouteAToken, when set, is the bearer token route_A requires (1Click uses a JWT).
	RouteAToken string
	// RelayAPIKey, when set, is Relay's API key (x-api-key): a wrong one is refused, and the
	// deposit-address lookup requires it.
	RelayAPIKey string
	// QuoteSigningKey signs route_A's quotes, as 1Click signs its own. Default: a key derived
	// from Seed, so a restarted simulator keeps it and the RoutingProvider trusting it.
	QuoteSigningKey ed25519.PrivateKey
	// Logger receives what the simulator does. Default: slog.Default().
	Logger *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// DataDir, for Open, keeps the providers' orders and the chains' deposits, so a restarted
	// simulator still knows (and settles) the orders of the previous run.
	DataDir string
	// SanctionsAPIKey, when set, is the X-API-Key the sanctions screening API requires.
	SanctionsAPIKey string
	// Instances are further provider accounts, each served under /<ID> beside route_A, route_B
	// and relay: a second 1Click account with its own credentials and fees, say.
	Instances []Instance
}

// Instance is one more simulated provider account: a protocol's module over its own book of
// orders, credentials and fees, served under /<ID>.
type Instance struct {
	// ID is the path it is served under and the provider id of its orders, faults and stats.
	ID swapv1.ProviderID
	// Protocol is what it speaks: oneclick, channel or relay.
	Protocol swapv1.ProviderProtocol
	// Token, when set, is the credential it requires: 1Click's bearer token, Relay's
	// x-api-key (channel takes none).
	Token string
	// FeeBps, when set, replaces the protocol's fee (market.ForProtocol's FeeBps).
	FeeBps *int64
}

// reservedPaths are the simulator's own prefixes, no instance's id.
var reservedPaths = []swapv1.ProviderID{"chain", "control", SanctionsService}

// instances are the accounts the simulator serves: route_A (1Click), route_B (Chainflip) and
// relay, then Options.Instances.
func (o Options) instances() []Instance {
	return append([]Instance{
		{ID: swapv1.ProviderRouteA, Protocol: swapv1.ProtocolOneClick, Token: o.RouteAToken},
		{ID: swapv1.ProviderRouteB, Protocol: swapv1.ProtocolChannel},
		{ID: market.RelayID, Protocol: swapv1.ProtocolRelay, Token: o.RelayAPIKey},
	}, o.Instances...)
}

// validInstances checks that each instance has a protocol the simulator speaks and an id that
// matches the provider-id pattern and is served by nothing else.
func validInstances(instances []Instance) error {
	taken := slices.Clone(reservedPaths)
	for _, in := range instances {
		if !providerIDRE.MatchString(string(in.ID)) {
			return fmt.Errorf("instance %q: the id must match %s", in.ID, swapv1.ProviderIDPattern)
		}
		if slices.Contains(taken, in.ID) {
			return fmt.Errorf("instance %q: the path /%s is taken", in.ID, in.ID)
		}
		if _, ok := market.ForProtocol(in.Protocol); !ok {
			return fmt.Errorf("instance %q: the simulator does not speak protocol %q", in.ID, in.Protocol)
		}
		taken = append(taken, in.ID)
	}
	return nil
}

var providerIDRE = regexp.MustCompile(swapv1.ProviderIDPattern)

// Dev defaults.
const (
	DefaultStepDelay     = 2 * time.Second
	DefaultRefundDelay   = 20 * time.Second
	DefaultDepositWindow = 30 * time.Minute
)

func (o Options) withDefaults() Options {
	if o.StepDelay <= 0 {
		o.StepDelay = DefaultStepDelay
	}
	if o.RefundDelay <= 0 {
		o.RefundDelay = DefaultRefundDelay
	}
	if o.DepositWindow <= 0 {
		o.DepositWindow = DefaultDepositWindow
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.QuoteSigningKey == nil {
		o.QuoteSigningKey = seedSigningKey(o.Seed)
	}
	return o
}

func seedSigningKey(seed uint64) ed25519.PrivateKey {
	h := sha256.Sum256([]byte("provider simulator quote signing key " + strconv.FormatUint(seed, 10)))
	return ed25519.NewKeyFromSeed(h[:])
}

// SeedQuotePublicKey is the public key route_A's quotes verify with, "ed25519:<base58>",
// for a simulator started with seed and no QuoteSigningKey (provider-sim --seed).
func SeedQuotePublicKey(seed uint64) string {
	return quotesig.FormatPublicKey(seedSigningKey(seed).Public().(ed25519.PublicKey))
}

// Simulator is the simulated providers and their chains.
type Simulator struct {
	opts     Options
	book     *ledger.Book
	faults   *fault.Injector
	handler  http.Handler
	txSeq    atomic.Int64
	mu       sync.Mutex
	calls    map[swapv1.ProviderID]map[string]int
	deposits int
	dca      DCAMode
	// providers are the ids of the mounted provider modules.
	providers []swapv1.ProviderID
	// sanctioned is the set the sanctions screening API identifies.
	sanctioned []string
}

// New builds a simulator that keeps everything in memory. It panics on invalid
// Options.Instances (Open returns the error instead).
func New(opts Options) *Simulator {
	if err := validInstances(opts.instances()); err != nil {
		panic("simulator: " + err.Error())
	}
	return build(opts.withDefaults(), ledger.NewBook())
}

// stateFile is the file in Options.DataDir that holds the book.
const stateFile = "simulator-state.json"

// Open builds a simulator whose orders and deposits live in opts.DataDir (in memory, as New,
// when it is empty): what an earlier simulator on the same folder created is known again, and
// its timeline carries on (an order whose settlement time passed while nobody ran is settled
// at once).
func Open(opts Options) (*Simulator, error) {
	if err := validInstances(opts.instances()); err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	opts = opts.withDefaults()
	if opts.DataDir == "" {
		return build(opts, ledger.NewBook()), nil
	}
	log := opts.Logger
	book, err := ledger.OpenBook(filepath.Join(opts.DataDir, stateFile), func(err error) {
		log.Error("saving the simulator state failed; a restart may lose recent orders", "error", err.Error())
	})
	if err != nil {
		return nil, fmt.Errorf("simulator: %w", err)
	}
	s := build(opts, book)
	log.Info("simulator state loaded", "dir", opts.DataDir, "deposits", s.deposits)
	return s, nil
}

func build(opts Options, book *ledger.Book) *Simulator {
	s := &Simulator{
		opts: opts, book: book, faults: fault.NewInjector(opts.Seed),
		calls: map[swapv1.ProviderID]map[string]int{},
	}
	// Transaction hashes count the chain's transfers: carry on where the book left off, so a
	// restart never repeats a hash.
	s.deposits = book.Deposits()
	s.txSeq.Store(int64(s.deposits))
	mk := func(p market.Provider, token string) *venue.Venue {
		return &venue.Venue{
			Provider: p, Book: s.book, Timing: settlement.Timing{Step: opts.StepDelay, RefundAfter: opts.RefundDelay},
			DepositWindow: opts.DepositWindow, Seed: strconv.FormatUint(opts.Seed, 10), Token: token,
			Now: opts.Now, Log: opts.Logger,
		}
	}
	mux := http.NewServeMux()
	for _, in := range opts.instances() {
		s.mount(mux, in.ID, s.protocolRoutes(in.Protocol, mk(in.market(), in.Token)))
	}
	s.mount(mux, SanctionsService, s.sanctionsRoutes())
	mux.HandleFunc("POST /chain/deposits", s.handleDeposit)
	s.mountControl(mux)
	s.mountSanctionsControl(mux)
	s.handler = mux
	return s
}

// market is the instance's economics: its protocol's, under its own id and fee.
func (in Instance) market() market.Provider {
	p, _ := market.ForProtocol(in.Protocol)
	p.ID = in.ID
	if in.FeeBps != nil {
		p.FeeBps = *in.FeeBps
	}
	return p
}

// protocolRoutes are the endpoints of protocol's module over v.
func (s *Simulator) protocolRoutes(protocol swapv1.ProviderProtocol, v *venue.Venue) []venue.Route {
	switch protocol {
	case swapv1.ProtocolOneClick:
		return oneclickapi.API{V: v, SigningKey: s.opts.QuoteSigningKey}.Routes()
	case swapv1.ProtocolChannel:
		return channelapi.API{V: v, DCA: s.dcaMode}.Routes()
	case swapv1.ProtocolRelay:
		return relayapi.API{V: v}.Routes()
	}
	panic(fmt.Sprintf("simulator: no module for protocol %q", protocol)) // validInstances refused it
}

// Handler serves everything.
func (s *Simulator) Handler() http.Handler { return s.handler }

// QuotePublicKey is the public key route_A's quotes (and every other 1Click account's: 1Click
// signs with one key) verify with, as "ed25519:<base58>" (the form
// RoutingProvider.spec.quoteSigningKey takes).
func (s *Simulator) QuotePublicKey() string {
	return quotesig.FormatPublicKey(s.opts.QuoteSigningKey.Public().(ed25519.PublicKey))
}

// mount serves a provider's routes under /<provider>, counting each call and applying its
// faults.
func (s *Simulator) mount(mux *http.ServeMux, p swapv1.ProviderID, routes []venue.Route) {
	if p != SanctionsService {
		s.providers = append(s.providers, p)
	}
	for _, rt := range routes {
		method, path, _ := strings.Cut(rt.Pattern, " ")
		h := s.faults.Wrap(p, rt.Call, rt.Handler)
		call := rt.Call
		mux.Handle(method+" /"+string(p)+path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.countCall(p, call)
			rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
			start := time.Now()
			h.ServeHTTP(rec, r)
			s.opts.Logger.Debug("provider call", "provider", p, "call", call, "status", rec.status, "took", time.Since(start))
		}))
	}
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (s *Simulator) countCall(p swapv1.ProviderID, call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.calls[p] == nil {
		s.calls[p] = map[string]int{}
	}
	s.calls[p][call]++
}

// SetFault makes a provider's call (or AnyCall) misbehave; a zero Fault removes it.
func (s *Simulator) SetFault(p swapv1.ProviderID, call string, f Fault) {
	s.faults.Set(p, call, f)
	s.opts.Logger.Info("fault set", "provider", p, "call", call, "fault", f)
}

// ClearFaults removes every fault.
func (s *Simulator) ClearFaults() {
	s.faults.Clear()
	s.opts.Logger.Info("faults cleared")
}

// SetDCA makes route_B's quotes REGULAR only (DCANone), REGULAR and DCA (DCAAlso), or DCA only
// (DCAOnly).
func (s *Simulator) SetDCA(m DCAMode) {
	s.mu.Lock()
	s.dca = m
	s.mu.Unlock()
	s.opts.Logger.Info("dca quotes set", "mode", m)
}

func (s *Simulator) dcaMode() DCAMode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dca
}

// SetUnfilled makes the swap of the order at depositAddress fill only part of its input: bps
// of it (10000: all) cannot be filled at the order's price and is refunded beside the output.
// It reports whether the provider knows the order.
func (s *Simulator) SetUnfilled(p swapv1.ProviderID, depositAddress string, bps int64) bool {
	ok := s.book.SetUnfilled(p, depositAddress, min(max(bps, 0), 10000))
	s.opts.Logger.Info("unfilled share set", "provider", p, "depositAddress", depositAddress, "bps", bps, "known", ok)
	return ok
}

// SetDelayed makes the swap of the order at depositAddress stall for steps settlement steps
// before it goes on (Relay reports the order delayed meanwhile). It reports whether the
// provider knows the order.
func (s *Simulator) SetDelayed(p swapv1.ProviderID, depositAddress string, steps int) bool {
	ok := s.book.SetDelaySteps(p, depositAddress, max(steps, 0))
	s.opts.Logger.Info("fill delay set", "provider", p, "depositAddress", depositAddress, "steps", steps, "known", ok)
	return ok
}

// Providers are the ids of the simulated providers, each served under /<id>.
func (s *Simulator) Providers() []swapv1.ProviderID { return slices.Clone(s.providers) }

// Forget makes the provider lose the order at depositAddress, as if it had never created it.
// It reports whether the provider knew the order.
func (s *Simulator) Forget(p swapv1.ProviderID, depositAddress string) bool {
	ok := s.book.Forget(p, depositAddress)
	s.opts.Logger.Info("order forgotten", "provider", p, "depositAddress", depositAddress, "known", ok)
	return ok
}

// Restore makes the provider find an order it lost through Forget again. It reports whether
// there was such an order to give back.
func (s *Simulator) Restore(p swapv1.ProviderID, depositAddress string) bool {
	ok := s.book.Restore(p, depositAddress)
	s.opts.Logger.Info("order restored", "provider", p, "depositAddress", depositAddress, "restored", ok)
	return ok
}

// ErrUnknownAddress: no provider created the deposit address.
var ErrUnknownAddress = ledger.ErrUnknownAddress

// Deposit simulates a user transfer of amount (smallest units) to depositAddress and returns
// the transaction hash.
func (s *Simulator) Deposit(depositAddress, amount string) (string, error) {
	return s.DepositTx(depositAddress, amount, "")
}

// DepositTx is Deposit with a chosen transaction hash (a fresh one when empty).
func (s *Simulator) DepositTx(depositAddress, amount, txHash string) (string, error) {
	n, ok := new(big.Int).SetString(amount, 10)
	if !ok || n.Sign() <= 0 {
		return "", fmt.Errorf("amount %q is not a positive integer", amount)
	}
	if txHash == "" {
		chain := "eth"
		for _, p := range s.providers {
			if o, ok := s.book.ByAddress(p, depositAddress); ok {
				chain = o.From.Chain
			}
		}
		txHash = chainaddr.TxHash(chain, strconv.FormatUint(s.opts.Seed, 10), depositAddress, "deposit", strconv.FormatInt(s.txSeq.Add(1), 10))
	}
	o, err := s.book.AddDeposit(depositAddress, settlement.Deposit{Amount: n, TxHash: txHash, At: s.opts.Now()})
	if err != nil {
		s.opts.Logger.Info("deposit to unknown address", "depositAddress", depositAddress, "amount", amount)
		return "", err
	}
	s.mu.Lock()
	s.deposits++
	s.mu.Unlock()
	s.opts.Logger.Info("deposit received", "provider", o.Provider, "depositAddress", depositAddress,
		"amount", amount, "expected", o.Terms.ExpectedIn.String(), "txHash", txHash)
	return txHash, nil
}

// Stats is what the simulator has seen.
type Stats struct {
	// Calls counts requests per provider per call (faulted ones included).
	Calls map[swapv1.ProviderID]map[string]int `json:"calls"`
	// DepositAddressesCreated counts addresses created per provider per recipient address
	// (no real protocol carries the service's order id); with one order per recipient,
	// more than 1 means an order got a second address.
	DepositAddressesCreated map[swapv1.ProviderID]map[string]int `json:"depositAddressesCreated"`
	// DepositSubmits counts deposit-submit calls received per provider.
	DepositSubmits map[swapv1.ProviderID]int `json:"depositSubmits"`
	// Deposits counts simulated chain deposits.
	Deposits int `json:"deposits"`
}

// Stats returns a snapshot of the counters.
func (s *Simulator) Stats() Stats {
	created, submits := s.book.Counts()
	s.mu.Lock()
	defer s.mu.Unlock()
	calls := map[swapv1.ProviderID]map[string]int{}
	for p, m := range s.calls {
		calls[p] = maps.Clone(m)
	}
	return Stats{Calls: calls, DepositAddressesCreated: created, DepositSubmits: submits, Deposits: s.deposits}
}

// Faults returns the configured faults.
func (s *Simulator) Faults() map[fault.Key]Fault { return s.faults.All() }

func isUnknown(err error) bool { return errors.Is(err, ledger.ErrUnknownAddress) }
