package relay

// Wire types of Relay's API as the OpenAPI types of its SDK (@relayprotocol/relay-sdk 7.0.3,
// types/api.ts) define them: GET /chains, POST /currencies/v2, POST /quote/v2,
// GET /deposit-addresses/v1, GET /intents/status/v3 and POST /transactions/index. Only the
// fields the adapter reads are decoded; unknown fields are ignored.

type chainsResponse struct {
	Chains []chain `json:"chains"`
}

type chain struct {
	ID             int64  `json:"id"`
	Name           string `json:"name"`
	VMType         string `json:"vmType"`
	DepositEnabled bool   `json:"depositEnabled"`
	Disabled       bool   `json:"disabled"`
	Currency       struct {
		Address string `json:"address"`
	} `json:"currency"`
}

type currenciesRequest struct {
	ChainIDs           []int64 `json:"chainIds"`
	DepositAddressOnly bool    `json:"depositAddressOnly"`
	Verified           bool    `json:"verified"`
	Limit              int     `json:"limit"`
}

type currency struct {
	ChainID  int64  `json:"chainId"`
	Address  string `json:"address"`
	Symbol   string `json:"symbol"`
	Name     string `json:"name"`
	Decimals int    `json:"decimals"`
	VMType   string `json:"vmType"`
	Metadata struct {
		IsNative bool `json:"isNative"`
	} `json:"metadata"`
}

type appFee struct {
	Recipient string `json:"recipient"`
	// Fee is in basis points of the input, as a string.
	Fee string `json:"fee"`
}

type quoteRequest struct {
	User                string `json:"user"`
	Recipient           string `json:"recipient"`
	OriginChainID       int64  `json:"originChainId"`
	DestinationChainID  int64  `json:"destinationChainId"`
	OriginCurrency      string `json:"originCurrency"`
	DestinationCurrency string `json:"destinationCurrency"`
	Amount              string `json:"amount"`
	TradeType           string `json:"tradeType"`
	RefundTo            string `json:"refundTo,omitempty"`
	UseDepositAddress   bool   `json:"useDepositAddress,omitempty"`
	// Strict binds the deposit address to this request alone.
	Strict bool `json:"strict,omitempty"`
	// SlippageTolerance is in basis points, as a string; absent: Relay picks one.
	SlippageTolerance string   `json:"slippageTolerance,omitempty"`
	AppFees           []appFee `json:"appFees,omitempty"`
	// TTL is how long, in seconds from the quote, the request may be filled; later it is
	// refunded.
	TTL int64 `json:"ttl,omitempty"`
}

type step struct {
	ID             string `json:"id"`
	RequestID      string `json:"requestId"`
	DepositAddress string `json:"depositAddress"`
}

type currencyRef struct {
	ChainID int64  `json:"chainId"`
	Address string `json:"address"`
}

type amount struct {
	Currency      currencyRef `json:"currency"`
	Amount        string      `json:"amount"`
	MinimumAmount string      `json:"minimumAmount"`
}

type fees struct {
	// Relayer is Relay's whole fee (its gas on the destination and its service fee).
	Relayer amount `json:"relayer"`
	// App is the partner's fee (appFees).
	App amount `json:"app"`
}

type details struct {
	CurrencyIn  amount `json:"currencyIn"`
	CurrencyOut amount `json:"currencyOut"`
	// TimeEstimate is in seconds.
	TimeEstimate float64 `json:"timeEstimate"`
}

type quoteResponse struct {
	Steps   []step  `json:"steps"`
	Fees    fees    `json:"fees"`
	Details details `json:"details"`
}

type depositAddressResponse struct {
	DepositAddress string `json:"depositAddress"`
	// Type is "strict" (bound to one request) or "open" (reused for its route).
	Type string `json:"type"`
	// RequestID is the request the address was created for.
	RequestID string `json:"requestId"`
}

type statusResponse struct {
	Status             string   `json:"status"`
	Details            string   `json:"details"`
	InTxHashes         []string `json:"inTxHashes"`
	TxHashes           []string `json:"txHashes"`
	OriginChainID      int64    `json:"originChainId"`
	DestinationChainID int64    `json:"destinationChainId"`
}

type indexRequest struct {
	ChainID   string `json:"chainId"`
	TxHash    string `json:"txHash"`
	RequestID string `json:"requestId"`
}
