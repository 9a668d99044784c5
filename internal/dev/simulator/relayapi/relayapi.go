// Package relayapi serves Relay's API in its deposit-address mode, field for field as the
// OpenAPI types of Relay's SDK (@relayprotocol/relay-sdk) define it: GET /chains, POST
// /currencies/v2, POST /quote/v2 (and the deprecated POST /quote, the same call), GET
// /intents/status/v3, GET /deposit-addresses/v1 and POST /transactions/index. Errors are
// {"message", "errorCode"} with Relay's codes. An API key (x-api-key) is optional except for
// the deposit-address lookup, as on Relay; a wrong one is refused everywhere.
//
// Like Relay: a quote with useDepositAddress and strict gets a new address bound to that
// request (an under-payment is refunded, an over-payment fills the quoted amount and refunds
// the excess, a second deposit is not the order's); an open address (strict false) belongs to
// its route and recipient, so a later quote for the same route answers the same address under
// a new request id. A quote without useDepositAddress creates nothing. A request not filled
// within the quote's ttl is refunded. Relay fills a request whole or refunds it: a fill the
// market can only partly meet is refunded. A refund too small to pay its own gas ends in
// failure, as on Relay.
package relayapi

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/venue"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/wire"
)

// Call names, for faults and stats.
const (
	CallChains         = "chains"
	CallCurrencies     = "currencies"
	CallQuote          = "quote"
	CallStatus         = "status"
	CallDepositAddress = "depositAddress"
	CallIndex          = "index"
)

// API is Relay's protocol over a venue; the venue's Token, when set, is the API key.
type API struct {
	V *venue.Venue
}

// Routes lists the endpoints.
func (a API) Routes() []venue.Route {
	return []venue.Route{
		{Pattern: "GET /chains", Call: CallChains, Handler: a.keyOptional(a.chains)},
		{Pattern: "POST /currencies/v2", Call: CallCurrencies, Handler: a.keyOptional(a.currencies)},
		{Pattern: "POST /quote/v2", Call: CallQuote, Handler: a.keyOptional(a.quote)},
		{Pattern: "POST /quote", Call: CallQuote, Handler: a.keyOptional(a.quote)},
		{Pattern: "GET /intents/status/v3", Call: CallStatus, Handler: a.keyOptional(a.status)},
		{Pattern: "GET /deposit-addresses/v1", Call: CallDepositAddress, Handler: a.keyRequired(a.depositAddress)},
		{Pattern: "POST /transactions/index", Call: CallIndex, Handler: a.keyOptional(a.index)},
	}
}

// apiError is Relay's error body.
type apiError struct {
	Message   string `json:"message"`
	ErrorCode string `json:"errorCode,omitempty"`
}

// fail answers Relay's error shape; code is empty for request-validation errors, which Relay
// answers with a message only.
func fail(w http.ResponseWriter, status int, code, msg string) {
	wire.JSON(w, status, apiError{Message: msg, ErrorCode: code})
}

func (a API) keyOptional(h http.HandlerFunc) http.HandlerFunc { return a.withKey(false, h) }
func (a API) keyRequired(h http.HandlerFunc) http.HandlerFunc { return a.withKey(true, h) }

// withKey checks x-api-key when the venue has one: a wrong key is refused, a missing one only
// where Relay requires a key.
func (a API) withKey(required bool, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		if a.V.Token != "" && (key != "" || required) && key != a.V.Token {
			fail(w, http.StatusUnauthorized, "UNAUTHORIZED", "Invalid API key")
			return
		}
		h(w, r)
	}
}

// chain is one of Relay's chains as the simulator serves it.
type chain struct {
	ID int64
	// Key is the simulated chain's short key; empty for a chain the simulated chains do not
	// carry (listed, as Relay lists chains the service does not know).
	Key         string
	Name        string
	DisplayName string
	VM          string
	// Native is Relay's address of the chain's native currency.
	Native string
	// Symbol, CurrencyName and Decimals describe the native currency of a chain without a
	// simulated asset.
	Symbol, CurrencyName string
	Decimals             int
}

const (
	evmNative = "0x0000000000000000000000000000000000000000"
	// relayReceiver stands for Relay's receiver contract on the EVM chains.
	relayReceiver = "0xa5f565650890fba1824ee0f21ebbbf660a179934"
)

// chains are Relay's ids: EVM chains by their chain id, the others by the ids Relay assigned
// (Solana 792703809, Bitcoin 8253038, Eclipse 9286185), with Relay's native-currency
// addresses. Zora and Eclipse are chains Relay serves that the simulated chains do not carry.
var chains = []chain{
	{ID: 1, Key: "eth", Name: "ethereum", DisplayName: "Ethereum", VM: "evm", Native: evmNative},
	{ID: 56, Key: "bsc", Name: "bsc", DisplayName: "BNB", VM: "evm", Native: evmNative},
	{ID: 8453, Key: "base", Name: "base", DisplayName: "Base", VM: "evm", Native: evmNative},
	{ID: 42161, Key: "arb", Name: "arbitrum", DisplayName: "Arbitrum", VM: "evm", Native: evmNative},
	{ID: 7777777, Key: "", Name: "zora", DisplayName: "Zora", VM: "evm", Native: evmNative, Symbol: "ETH", CurrencyName: "Ether", Decimals: 18},
	{ID: 8253038, Key: "btc", Name: "bitcoin", DisplayName: "Bitcoin", VM: "bvm", Native: "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8"},
	{ID: 792703809, Key: "sol", Name: "solana", DisplayName: "Solana", VM: "svm", Native: "11111111111111111111111111111111"},
	{ID: 9286185, Key: "", Name: "eclipse", DisplayName: "Eclipse", VM: "svm", Native: "11111111111111111111111111111111", Symbol: "ETH", CurrencyName: "Ether", Decimals: 9},
}

func chainByID(id int64) (chain, bool) {
	i := slices.IndexFunc(chains, func(c chain) bool { return c.ID == id })
	if i < 0 {
		return chain{}, false
	}
	return chains[i], true
}

func chainByKey(key string) (chain, bool) {
	i := slices.IndexFunc(chains, func(c chain) bool { return c.Key != "" && c.Key == key })
	if i < 0 {
		return chain{}, false
	}
	return chains[i], true
}

// address is Relay's address of a simulated asset: the chain's native-currency address, or
// the token's contract.
func address(m market.Asset) string {
	if m.IsNative() {
		c, _ := chainByKey(m.Chain)
		return c.Native
	}
	return m.Contract
}

// metadata is a currency's metadata.
type metadata struct {
	LogoURI  string `json:"logoURI"`
	Verified bool   `json:"verified"`
	IsNative bool   `json:"isNative"`
}

// currency is Relay's currency object (quotes' fees and details, /currencies/v2).
type currency struct {
	ChainID  int64    `json:"chainId"`
	Address  string   `json:"address"`
	Symbol   string   `json:"symbol"`
	Name     string   `json:"name"`
	Decimals int      `json:"decimals"`
	VMType   string   `json:"vmType,omitempty"`
	Metadata metadata `json:"metadata"`
}

func logo(symbol string) string {
	return "https://assets.relay.link/icons/currencies/" + strings.ToLower(symbol) + ".png"
}

func currencyOf(m market.Asset) currency {
	c, _ := chainByKey(m.Chain)
	return currency{ChainID: c.ID, Address: address(m), Symbol: m.Symbol, Name: m.Name, Decimals: m.Decimals,
		Metadata: metadata{LogoURI: logo(m.Symbol), Verified: true, IsNative: m.IsNative()}}
}

// listed are the currencies the venue routes, then the natives of the chains without
// simulated assets (listed, never routed).
func (a API) listed() []currency {
	var out []currency
	for _, k := range a.V.Provider.Assets {
		m, _ := market.Lookup(k)
		c := currencyOf(m)
		c.VMType = chainVM(c.ChainID)
		out = append(out, c)
	}
	for _, c := range chains {
		if c.Key == "" {
			out = append(out, currency{ChainID: c.ID, Address: c.Native, Symbol: c.Symbol, Name: c.CurrencyName, Decimals: c.Decimals,
				VMType: c.VM, Metadata: metadata{LogoURI: logo(c.Symbol), Verified: true, IsNative: true}})
		}
	}
	return out
}

func chainVM(id int64) string {
	c, _ := chainByID(id)
	return c.VM
}

// lookup finds a routed asset by Relay's chain id and currency address (EVM addresses in any
// case).
func (a API) lookup(chainID int64, addr string) (market.Asset, bool) {
	for _, k := range a.V.Provider.Assets {
		m, _ := market.Lookup(k)
		c, _ := chainByKey(m.Chain)
		if c.ID == chainID && sameAddress(c.VM, address(m), addr) {
			return m, true
		}
	}
	return market.Asset{}, false
}

func sameAddress(vm, x, y string) bool {
	if vm == "evm" {
		return strings.EqualFold(x, y)
	}
	return x == y
}

// chainCurrency is a currency as /chains lists it.
type chainCurrency struct {
	ID               string `json:"id"`
	Symbol           string `json:"symbol"`
	Name             string `json:"name"`
	Address          string `json:"address"`
	Decimals         int    `json:"decimals"`
	SupportsBridging bool   `json:"supportsBridging"`
}

type featuredToken struct {
	chainCurrency
	Metadata struct {
		LogoURI string `json:"logoURI"`
	} `json:"metadata"`
}

type erc20Currency struct {
	chainCurrency
	SupportsPermit bool  `json:"supportsPermit"`
	WithdrawalFee  int64 `json:"withdrawalFee"`
	DepositFee     int64 `json:"depositFee"`
	SurgeEnabled   bool  `json:"surgeEnabled"`
}

type solverCurrency struct {
	ID       string `json:"id"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Address  string `json:"address"`
	Decimals int    `json:"decimals"`
}

type explorerPaths struct {
	Transaction string `json:"transaction"`
	Address     string `json:"address"`
	Token       string `json:"token"`
}

type contracts struct {
	Multicall3           string `json:"multicall3"`
	Multicaller          string `json:"multicaller"`
	OnlyOwnerMulticaller string `json:"onlyOwnerMulticaller"`
	RelayReceiver        string `json:"relayReceiver"`
	Erc20Router          string `json:"erc20Router"`
	ApprovalProxy        string `json:"approvalProxy"`
}

type chainResponse struct {
	ID                     int64            `json:"id"`
	Name                   string           `json:"name"`
	DisplayName            string           `json:"displayName"`
	HTTPRPCURL             string           `json:"httpRpcUrl"`
	WsRPCURL               string           `json:"wsRpcUrl"`
	ExplorerURL            string           `json:"explorerUrl"`
	ExplorerName           string           `json:"explorerName"`
	ExplorerPaths          *explorerPaths   `json:"explorerPaths"`
	DepositEnabled         bool             `json:"depositEnabled"`
	TokenSupport           string           `json:"tokenSupport"`
	Disabled               bool             `json:"disabled"`
	PartialDisableLimit    int64            `json:"partialDisableLimit"`
	BlockProductionLagging bool             `json:"blockProductionLagging"`
	Currency               chainCurrency    `json:"currency"`
	WithdrawalFee          int64            `json:"withdrawalFee"`
	DepositFee             int64            `json:"depositFee"`
	SurgeEnabled           bool             `json:"surgeEnabled"`
	FeaturedTokens         []featuredToken  `json:"featuredTokens"`
	Erc20Currencies        []erc20Currency  `json:"erc20Currencies"`
	SolverCurrencies       []solverCurrency `json:"solverCurrencies"`
	IconURL                *string          `json:"iconUrl"`
	LogoURL                *string          `json:"logoUrl"`
	BrandColor             *string          `json:"brandColor"`
	Contracts              *contracts       `json:"contracts,omitempty"`
	VMType                 string           `json:"vmType"`
	ExplorerQueryParams    map[string]any   `json:"explorerQueryParams"`
	BaseChainID            *int64           `json:"baseChainId"`
	StatusMessage          *string          `json:"statusMessage"`
	SolverAddresses        []string         `json:"solverAddresses"`
	Tags                   []string         `json:"tags"`
}

func (a API) chains(w http.ResponseWriter, _ *http.Request) {
	out := struct {
		Chains []chainResponse `json:"chains"`
	}{Chains: []chainResponse{}}
	byChain := map[int64][]currency{}
	for _, c := range a.listed() {
		byChain[c.ChainID] = append(byChain[c.ChainID], c)
	}
	for _, c := range chains {
		out.Chains = append(out.Chains, a.chainOf(c, byChain[c.ID]))
	}
	wire.JSON(w, http.StatusOK, out)
}

func (a API) chainOf(c chain, listed []currency) chainResponse {
	icon := "https://assets.relay.link/icons/" + strconv.FormatInt(c.ID, 10) + "/light.png"
	base := int64(1)
	r := chainResponse{
		ID: c.ID, Name: c.Name, DisplayName: c.DisplayName,
		HTTPRPCURL: "https://rpc.sim.invalid/" + c.Name, WsRPCURL: "wss://rpc.sim.invalid/" + c.Name,
		ExplorerURL: "https://explorer.sim.invalid/" + c.Name, ExplorerName: c.DisplayName + " Explorer",
		ExplorerPaths:  &explorerPaths{Transaction: "/tx/{txHash}", Address: "/address/{address}", Token: "/token/{address}"},
		DepositEnabled: true, TokenSupport: "All",
		FeaturedTokens: []featuredToken{}, Erc20Currencies: []erc20Currency{}, SolverCurrencies: []solverCurrency{},
		IconURL: &icon, LogoURL: &icon, VMType: c.VM, BaseChainID: &base,
		SolverAddresses: []string{solver(c)}, Tags: []string{},
	}
	if c.VM == "evm" {
		r.Contracts = &contracts{Multicall3: "0xca11bde05977b3631167028862be2a173976ca11", Multicaller: "0xb90ed4c123843cbfd66b11411ee7694ef37e6e72",
			OnlyOwnerMulticaller: "0xb92fe925dc43a0ecde6c8b1a2709c170ec4fff4f", RelayReceiver: relayReceiver,
			Erc20Router: "0xf5042e6ffac5a625d4e7848e0b01373d8eb9e222", ApprovalProxy: "0xbbbfd134e9b44bfb5123898ba36b01de7ab93d98"}
	}
	for _, cur := range listed {
		cc := chainCurrency{ID: strings.ToLower(cur.Symbol), Symbol: cur.Symbol, Name: cur.Name, Address: cur.Address, Decimals: cur.Decimals, SupportsBridging: true}
		r.SolverCurrencies = append(r.SolverCurrencies, solverCurrency{ID: cc.ID, Symbol: cc.Symbol, Name: cc.Name, Address: cc.Address, Decimals: cc.Decimals})
		if cur.Metadata.IsNative {
			r.Currency = cc
			continue
		}
		ft := featuredToken{chainCurrency: cc}
		ft.Metadata.LogoURI = cur.Metadata.LogoURI
		r.FeaturedTokens = append(r.FeaturedTokens, ft)
		if c.VM == "evm" {
			r.Erc20Currencies = append(r.Erc20Currencies, erc20Currency{chainCurrency: cc})
		}
	}
	return r
}

// solver is the solver's address on a chain.
func solver(c chain) string {
	switch c.VM {
	case "svm":
		return "F7p3dFrjRTbtRp8FRF6qHLomXbKRBzpvBLjtQcfcgmNe"
	case "bvm":
		return "bc1qq2mvrp4g3ugd424dw4xv53rgsf8szkrv853jrc"
	}
	return "0xf70da97812cb96acdf810712aa562db8dfa3dbef"
}

// currenciesRequest is the /currencies/v2 body.
type currenciesRequest struct {
	DefaultList        bool     `json:"defaultList,omitempty"`
	ChainIDs           []int64  `json:"chainIds,omitempty"`
	Term               string   `json:"term,omitempty"`
	Address            string   `json:"address,omitempty"`
	CurrencyID         string   `json:"currencyId,omitempty"`
	Tokens             []string `json:"tokens,omitempty"`
	Verified           *bool    `json:"verified,omitempty"`
	Limit              *int     `json:"limit,omitempty"`
	IncludeAllChains   bool     `json:"includeAllChains,omitempty"`
	UseExternalSearch  bool     `json:"useExternalSearch,omitempty"`
	DepositAddressOnly bool     `json:"depositAddressOnly,omitempty"`
	// Referrer is what Relay's clients add to every call.
	Referrer string `json:"referrer,omitempty"`
}

// defaultCurrencyLimit is /currencies/v2's limit when none is given.
const defaultCurrencyLimit = 20

// currencies answers /currencies/v2: every listed currency can be deposited to a deposit
// address, verified, so depositAddressOnly and verified filter nothing out.
func (a API) currencies(w http.ResponseWriter, r *http.Request) {
	var req currenciesRequest
	if r.ContentLength != 0 && !wire.Decode(w, r, &req) {
		return
	}
	limit := defaultCurrencyLimit
	if req.Limit != nil {
		limit = *req.Limit
	}
	if limit < 1 {
		fail(w, http.StatusBadRequest, "", "body/limit must be >= 1")
		return
	}
	out := []currency{}
	for _, c := range a.listed() {
		if matches(req, c) && len(out) < limit {
			out = append(out, c)
		}
	}
	wire.JSON(w, http.StatusOK, out)
}

func matches(req currenciesRequest, c currency) bool {
	term := strings.ToLower(req.Term)
	token := strconv.FormatInt(c.ChainID, 10) + ":" + c.Address
	switch {
	case len(req.ChainIDs) > 0 && !slices.Contains(req.ChainIDs, c.ChainID):
		return false
	case term != "" && !strings.Contains(strings.ToLower(c.Symbol), term) && !strings.Contains(strings.ToLower(c.Name), term):
		return false
	case req.Address != "" && !sameAddress(c.VMType, req.Address, c.Address):
		return false
	case req.CurrencyID != "" && req.CurrencyID != strings.ToLower(c.Symbol):
		return false
	case len(req.Tokens) > 0 && !slices.ContainsFunc(req.Tokens, func(t string) bool { return sameAddress(c.VMType, t, token) }):
		return false
	case req.Verified != nil && *req.Verified != c.Metadata.Verified:
		return false
	}
	return true
}
