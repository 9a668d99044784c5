package channel

// Wire types, named after Chainflip's swap SDK / service v2 where they exist (AssetData,
// Quote with depositAmount/egressAmount/includedFees, DepositAddressResponseV2,
// SwapStatusResponseV2 with depositChannel, deposit, swapEgress, refundEgress).

type chainAsset struct {
	Chain string `json:"chain"`
	Asset string `json:"asset"`
}

type assetData struct {
	Asset             string `json:"asset"`
	Chain             string `json:"chain"`
	ContractAddress   string `json:"contractAddress,omitempty"`
	Decimals          int    `json:"decimals"`
	Name              string `json:"name"`
	Symbol            string `json:"symbol"`
	MinimumSwapAmount string `json:"minimumSwapAmount"`
	MaximumSwapAmount string `json:"maximumSwapAmount"`
}

type assetsResponse struct {
	Assets []assetData `json:"assets"`
}

type fee struct {
	Type   string `json:"type"`
	Chain  string `json:"chain"`
	Asset  string `json:"asset"`
	Amount string `json:"amount"`
}

type quote struct {
	Type                                string  `json:"type"`
	DepositAmount                       string  `json:"depositAmount"`
	EgressAmount                        string  `json:"egressAmount"`
	IncludedFees                        []fee   `json:"includedFees"`
	RecommendedSlippageTolerancePercent float64 `json:"recommendedSlippageTolerancePercent"`
	EstimatedDurationSeconds            int64   `json:"estimatedDurationSeconds"`
}

type fillOrKillParams struct {
	RefundAddress       string `json:"refundAddress"`
	RetryDurationBlocks int64  `json:"retryDurationBlocks"`
	MinPrice            string `json:"minPrice"`
}

type openChannelRequest struct {
	SrcChain         string           `json:"srcChain"`
	SrcAsset         string           `json:"srcAsset"`
	DestChain        string           `json:"destChain"`
	DestAsset        string           `json:"destAsset"`
	DestAddress      string           `json:"destAddress"`
	Amount           string           `json:"amount,omitempty"`
	EgressAmount     string           `json:"egressAmount,omitempty"`
	FillOrKillParams fillOrKillParams `json:"fillOrKillParams"`
	ClientReference  string           `json:"clientReference"`
}

type depositAddressResponse struct {
	DepositChannelID                  string `json:"depositChannelId"`
	DepositAddress                    string `json:"depositAddress"`
	DepositChannelExpiryBlock         string `json:"depositChannelExpiryBlock"`
	EstimatedDepositChannelExpiryTime int64  `json:"estimatedDepositChannelExpiryTime"`
}

type depositChannel struct {
	ID             string `json:"id"`
	DepositAddress string `json:"depositAddress"`
	IsExpired      bool   `json:"isExpired"`
}

type deposit struct {
	Amount string `json:"amount"`
	TxRef  string `json:"txRef"`
}

type egress struct {
	Amount string `json:"amount"`
	TxRef  string `json:"txRef"`
}

type swapAmounts struct {
	SwappedInputAmount  string `json:"swappedInputAmount"`
	SwappedOutputAmount string `json:"swappedOutputAmount"`
}

type statusResponse struct {
	State          string         `json:"state"`
	DepositChannel depositChannel `json:"depositChannel"`
	Deposit        *deposit       `json:"deposit"`
	Swap           *swapAmounts   `json:"swap"`
	SwapEgress     *egress        `json:"swapEgress"`
	RefundEgress   *egress        `json:"refundEgress"`
}
