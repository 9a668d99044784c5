package channel

// Wire types of the Chainflip swap backend as its public SDK sources define them:
// NetworkInfo (GET /api/networkInfo), the v2 Quote (GET /v2/quote), the open-swap-deposit-
// channel body and DepositChannelInfo (POST /api/openSwapDepositChannel, 201) and
// SwapStatusResponseV2 (GET /v2/swaps/{id}). Only the fields the adapter reads are decoded;
// unknown fields are ignored, so additions on the provider side never break the adapter.

type chainAsset struct {
	Chain string `json:"chain"`
	Asset string `json:"asset"`
}

type networkAsset struct {
	Asset                         string `json:"asset"`
	DepositChannelCreationEnabled bool   `json:"depositChannelCreationEnabled"`
	DepositChannelDepositsEnabled bool   `json:"depositChannelDepositsEnabled"`
	EgressEnabled                 bool   `json:"egressEnabled"`
}

type networkInfo struct {
	Assets []networkAsset `json:"assets"`
}

type fee struct {
	Type   string `json:"type"`
	Chain  string `json:"chain"`
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
}

type dcaParams struct {
	NumberOfChunks      int64 `json:"numberOfChunks"`
	ChunkIntervalBlocks int64 `json:"chunkIntervalBlocks"`
}

type quote struct {
	Type                                         string     `json:"type"`
	SrcAsset                                     chainAsset `json:"srcAsset"`
	DestAsset                                    chainAsset `json:"destAsset"`
	DepositAmount                                string     `json:"depositAmount"`
	IntermediateAmount                           string     `json:"intermediateAmount,omitempty"`
	EgressAmount                                 string     `json:"egressAmount"`
	IncludedFees                                 []fee      `json:"includedFees"`
	EstimatedDurationSeconds                     float64    `json:"estimatedDurationSeconds"`
	EstimatedPrice                               string     `json:"estimatedPrice"`
	RecommendedSlippageTolerancePercent          float64    `json:"recommendedSlippageTolerancePercent"`
	RecommendedLivePriceSlippageTolerancePercent *float64   `json:"recommendedLivePriceSlippageTolerancePercent,omitempty"`
	RecommendedRetryDurationMinutes              float64    `json:"recommendedRetryDurationMinutes"`
	DcaParams                                    *dcaParams `json:"dcaParams,omitempty"`
}

// fillOrKillParams: maxOraclePriceSlippage is null when live price protection is off.
type fillOrKillParams struct {
	RetryDurationBlocks    int64  `json:"retryDurationBlocks"`
	RefundAddress          string `json:"refundAddress"`
	MinPriceX128           string `json:"minPriceX128"`
	MaxOraclePriceSlippage *int64 `json:"maxOraclePriceSlippage"`
}

// channelQuote is the quote the SDK passes along when opening a channel.
type channelQuote struct {
	IntermediateAmount                           string   `json:"intermediateAmount,omitempty"`
	EgressAmount                                 string   `json:"egressAmount"`
	EstimatedPrice                               string   `json:"estimatedPrice"`
	RecommendedSlippageTolerancePercent          float64  `json:"recommendedSlippageTolerancePercent"`
	RecommendedLivePriceSlippageTolerancePercent *float64 `json:"recommendedLivePriceSlippageTolerancePercent,omitempty"`
}

type openChannelRequest struct {
	SrcAsset         chainAsset       `json:"srcAsset"`
	DestAsset        chainAsset       `json:"destAsset"`
	DestAddress      string           `json:"destAddress"`
	Amount           string           `json:"amount"`
	SrcAddress       string           `json:"srcAddress,omitempty"`
	FillOrKillParams fillOrKillParams `json:"fillOrKillParams"`
	DcaParams        *dcaParams       `json:"dcaParams,omitempty"`
	Quote            channelQuote     `json:"quote"`
	TakeCommission   bool             `json:"takeCommission"`
}

type depositChannelInfo struct {
	ID                  string `json:"id"`
	DepositAddress      string `json:"depositAddress"`
	BrokerCommissionBps int64  `json:"brokerCommissionBps"`
	MaxBoostFeeBps      int64  `json:"maxBoostFeeBps"`
	IssuedBlock         int64  `json:"issuedBlock"`
	SrcChainExpiryBlock string `json:"srcChainExpiryBlock"`
	EstimatedExpiryTime *int64 `json:"estimatedExpiryTime,omitempty"`
	ChannelOpeningFee   string `json:"channelOpeningFee"`
}

type depositChannel struct {
	ID                  string `json:"id"`
	DepositAddress      string `json:"depositAddress"`
	EstimatedExpiryTime int64  `json:"estimatedExpiryTime"`
	// ExpectedDepositAmount is the amount the channel was opened for (absent on channels
	// opened without one).
	ExpectedDepositAmount string `json:"expectedDepositAmount"`
	IsExpired             bool   `json:"isExpired"`
}

type failure struct {
	Mode string `json:"mode"`
}

type deposit struct {
	Amount  string   `json:"amount"`
	TxRef   string   `json:"txRef"`
	Failure *failure `json:"failure"`
}

type egress struct {
	Amount      string   `json:"amount"`
	TxRef       string   `json:"txRef"`
	WitnessedAt *int64   `json:"witnessedAt"`
	Failure     *failure `json:"failure"`
}

type swapFields struct {
	OriginalInputAmount  string `json:"originalInputAmount"`
	RemainingInputAmount string `json:"remainingInputAmount"`
	SwappedInputAmount   string `json:"swappedInputAmount"`
	SwappedOutputAmount  string `json:"swappedOutputAmount"`
}

type swapStatus struct {
	State          string          `json:"state"`
	SwapID         string          `json:"swapId"`
	DepositChannel *depositChannel `json:"depositChannel"`
	Deposit        *deposit        `json:"deposit"`
	Swap           *swapFields     `json:"swap"`
	SwapEgress     *egress         `json:"swapEgress"`
	RefundEgress   *egress         `json:"refundEgress"`
	FallbackEgress *egress         `json:"fallbackEgress"`
}
