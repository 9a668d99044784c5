package oneclick

// Wire types of the 1Click API v0 as the public SDK's models (generated from its OpenAPI
// document) define them: TokenResponse, QuoteRequest, QuoteResponse, Quote,
// GetExecutionStatusResponse, SwapDetails, TransactionDetails, SubmitDepositTxRequest. Only
// the fields the adapter reads are decoded; unknown fields are ignored.

import (
	"slices"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

type tokenResponse struct {
	AssetID         string  `json:"assetId"`
	Decimals        int     `json:"decimals"`
	Blockchain      string  `json:"blockchain"`
	Symbol          string  `json:"symbol"`
	Price           float64 `json:"price"`
	ContractAddress string  `json:"contractAddress,omitempty"`
}

type quoteRequest struct {
	Dry               bool   `json:"dry"`
	DepositMode       string `json:"depositMode"`
	SwapType          string `json:"swapType"`
	SlippageTolerance int64  `json:"slippageTolerance"`
	OriginAsset       string `json:"originAsset"`
	DepositType       string `json:"depositType"`
	DestinationAsset  string `json:"destinationAsset"`
	Amount            string `json:"amount"`
	RefundTo          string `json:"refundTo"`
	RefundType        string `json:"refundType"`
	Recipient         string `json:"recipient"`
	RecipientType     string `json:"recipientType"`
	Deadline          string `json:"deadline"`
	// AppFees are integrators' fees in basis points of the input, each to an Intents account.
	AppFees []appFee `json:"appFees,omitempty"`
}

type appFee struct {
	Recipient string `json:"recipient"`
	Fee       int64  `json:"fee"`
}

type quote struct {
	DepositAddress string  `json:"depositAddress"`
	DepositMemo    string  `json:"depositMemo"`
	AmountIn       string  `json:"amountIn"`
	MinAmountIn    string  `json:"minAmountIn"`
	AmountOut      string  `json:"amountOut"`
	MinAmountOut   string  `json:"minAmountOut"`
	Deadline       string  `json:"deadline"`
	TimeEstimate   float64 `json:"timeEstimate"`
	RefundFee      string  `json:"refundFee"`
	WithdrawFee    string  `json:"withdrawFee"`
}

type quoteResponse struct {
	Quote quote `json:"quote"`
	// Signature is 1Click's ed25519 signature over the request and quote ("ed25519:…").
	Signature string `json:"signature"`
}

// signedResponse is a QuoteResponse as received: what the adapter reads, and the body its
// signature is verified over.
type signedResponse struct {
	quoteResponse
	raw []byte
}

// UnmarshalJSON keeps the body and decodes it with the decoder httpcall uses (one pass, no
// separate validity scan).
func (s *signedResponse) UnmarshalJSON(b []byte) error {
	s.raw = slices.Clone(b)
	return jsonv1.Unmarshal(b, &s.quoteResponse)
}

type transactionDetails struct {
	Hash        string `json:"hash"`
	ExplorerURL string `json:"explorerUrl"`
}

type swapDetails struct {
	AmountIn                 string               `json:"amountIn"`
	AmountOut                string               `json:"amountOut"`
	DepositedAmount          string               `json:"depositedAmount"`
	RefundedAmount           string               `json:"refundedAmount"`
	RefundReason             string               `json:"refundReason"`
	OriginChainTxHashes      []transactionDetails `json:"originChainTxHashes"`
	DestinationChainTxHashes []transactionDetails `json:"destinationChainTxHashes"`
}

type executionStatusResponse struct {
	Status      string      `json:"status"`
	UpdatedAt   string      `json:"updatedAt"`
	SwapDetails swapDetails `json:"swapDetails"`
}

type submitDepositTxRequest struct {
	TxHash            string `json:"txHash"`
	DepositAddress    string `json:"depositAddress"`
	NearSenderAccount string `json:"nearSenderAccount,omitempty"`
	Memo              string `json:"memo,omitempty"`
}
