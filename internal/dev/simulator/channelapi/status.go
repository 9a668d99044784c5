package channelapi

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/internal/dev/simulator/chainaddr"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/ledger"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/market"
	"github.com/swaprouter/swaprouter/internal/dev/simulator/settlement"
)

// The v2 swap status, field for field as the backend's /v2/swaps/{id} answers it.

type depositChannel struct {
	ID                    string     `json:"id"`
	CreatedAt             int64      `json:"createdAt"`
	DepositAddress        string     `json:"depositAddress"`
	SrcChainExpiryBlock   string     `json:"srcChainExpiryBlock"`
	EstimatedExpiryTime   int64      `json:"estimatedExpiryTime"`
	ExpectedDepositAmount string     `json:"expectedDepositAmount"`
	IsExpired             bool       `json:"isExpired"`
	OpenedThroughBackend  bool       `json:"openedThroughBackend"`
	DcaParams             *dcaParams `json:"dcaParams,omitempty"`
}

type failureReason struct {
	Name    string `json:"name"`
	Message string `json:"message"`
}

type failure struct {
	FailedAt         int64         `json:"failedAt"`
	FailedBlockIndex string        `json:"failedBlockIndex"`
	Mode             string        `json:"mode"`
	Reason           failureReason `json:"reason"`
}

type deposit struct {
	Amount              string   `json:"amount"`
	TxRef               string   `json:"txRef,omitempty"`
	TxConfirmations     *int64   `json:"txConfirmations,omitempty"`
	WitnessedAt         *int64   `json:"witnessedAt,omitempty"`
	WitnessedBlockIndex string   `json:"witnessedBlockIndex,omitempty"`
	Failure             *failure `json:"failure,omitempty"`
	FailedAt            *int64   `json:"failedAt,omitempty"`
	FailedBlockIndex    string   `json:"failedBlockIndex,omitempty"`
}

type chunk struct {
	InputAmount         string `json:"inputAmount"`
	OutputAmount        string `json:"outputAmount,omitempty"`
	ScheduledAt         int64  `json:"scheduledAt"`
	ScheduledBlockIndex string `json:"scheduledBlockIndex"`
	ExecutedAt          *int64 `json:"executedAt,omitempty"`
	ExecutedBlockIndex  string `json:"executedBlockIndex,omitempty"`
	RetryCount          int64  `json:"retryCount"`
}

type dcaProgress struct {
	LastExecutedChunk *chunk `json:"lastExecutedChunk"`
	CurrentChunk      *chunk `json:"currentChunk"`
	ExecutedChunks    int64  `json:"executedChunks"`
	RemainingChunks   int64  `json:"remainingChunks"`
}

type swapFields struct {
	OriginalInputAmount       string       `json:"originalInputAmount"`
	RemainingInputAmount      string       `json:"remainingInputAmount"`
	SwappedInputAmount        string       `json:"swappedInputAmount"`
	SwappedIntermediateAmount string       `json:"swappedIntermediateAmount"`
	SwappedOutputAmount       string       `json:"swappedOutputAmount"`
	Regular                   *chunk       `json:"regular,omitempty"`
	Dca                       *dcaProgress `json:"dca,omitempty"`
}

type egress struct {
	Amount              string `json:"amount"`
	ScheduledAt         int64  `json:"scheduledAt"`
	ScheduledBlockIndex string `json:"scheduledBlockIndex"`
	TxRef               string `json:"txRef,omitempty"`
	WitnessedAt         *int64 `json:"witnessedAt,omitempty"`
	WitnessedBlockIndex string `json:"witnessedBlockIndex,omitempty"`
}

type fokView struct {
	RefundAddress          string `json:"refundAddress"`
	MinPrice               string `json:"minPrice"`
	RetryDurationBlocks    int64  `json:"retryDurationBlocks"`
	MaxOraclePriceSlippage *int64 `json:"maxOraclePriceSlippage"`
}

type statusResponse struct {
	State                              string          `json:"state"`
	SwapID                             string          `json:"swapId,omitempty"`
	SrcAsset                           string          `json:"srcAsset"`
	SrcChain                           string          `json:"srcChain"`
	DestAsset                          string          `json:"destAsset"`
	DestChain                          string          `json:"destChain"`
	DestAddress                        string          `json:"destAddress"`
	SrcChainRequiredBlockConfirmations int64           `json:"srcChainRequiredBlockConfirmations"`
	EstimatedDurationsSeconds          durations       `json:"estimatedDurationsSeconds"`
	EstimatedDurationSeconds           float64         `json:"estimatedDurationSeconds"`
	Brokers                            []any           `json:"brokers"`
	Fees                               []fee           `json:"fees"`
	DepositChannel                     *depositChannel `json:"depositChannel,omitempty"`
	Deposit                            *deposit        `json:"deposit,omitempty"`
	Swap                               *swapFields     `json:"swap,omitempty"`
	SwapEgress                         *egress         `json:"swapEgress,omitempty"`
	RefundEgress                       *egress         `json:"refundEgress,omitempty"`
	FallbackEgress                     *egress         `json:"fallbackEgress,omitempty"`
	FillOrKillParams                   *fokView        `json:"fillOrKillParams,omitempty"`
	DcaParams                          *dcaParams      `json:"dcaParams,omitempty"`
	LastStatechainUpdateAt             int64           `json:"lastStatechainUpdateAt"`
}

func ms(t time.Time) *int64 { v := t.UnixMilli(); return &v }

func blockIndex(t time.Time) string { return fmt.Sprintf("%d-1", block(t)) }

// latestDeposit is the newest deposit seen by now and its position; each deposit to a channel
// is its own swap request, and the status answers the latest.
func latestDeposit(ds []settlement.Deposit, now time.Time) (settlement.Deposit, int, bool) {
	idx := -1
	for i, d := range ds {
		if !d.At.After(now) && (idx < 0 || !d.At.Before(ds[idx].At)) {
			idx = i
		}
	}
	if idx < 0 {
		return settlement.Deposit{}, 0, false
	}
	return ds[idx], idx, true
}

// swapTerms are the terms of the swap one deposit starts: the deposit is swapped whatever its
// size at the channel's quoted rate, and entirely refunded when that misses the channel's
// price floor (minPriceX128 is output per input smallest unit, times 2^128).
func swapTerms(o ledger.Order, ch channel, amount *big.Int) settlement.Terms {
	out := new(big.Int).Mul(amount, o.Terms.QuotedOut)
	out.Quo(out, o.Terms.ExpectedIn)
	t := settlement.Terms{ExpectedIn: amount, QuotedOut: out, Deadline: o.Terms.Deadline, KeepExcess: true, UnfilledBps: o.Terms.UnfilledBps}
	floor := new(big.Int).Mul(amount, ch.MinPrice)
	if floor.Rsh(floor, 128).Cmp(out) > 0 {
		t.UnfilledBps = 10000
	}
	return t
}

func (a API) statusOf(o ledger.Order) statusResponse {
	var ch channel
	_ = json.Unmarshal(o.Payload, &ch) // written by open; a zero channel only if it was not
	now := a.V.Now()
	dur := float64(a.V.Provider.EstimatedSeconds) - 0.6
	s := statusResponse{
		State: "WAITING", SrcAsset: o.From.Symbol, SrcChain: chainNames[o.From.Chain], DestAsset: o.To.Symbol, DestChain: chainNames[o.To.Chain],
		DestAddress: o.Recipient, SrcChainRequiredBlockConfirmations: confirmations(o.From),
		EstimatedDurationsSeconds: durations{Deposit: dur * 0.5, Swap: 12, Egress: dur*0.5 - 12}, EstimatedDurationSeconds: dur,
		Brokers: []any{}, Fees: []fee{},
		DepositChannel: &depositChannel{
			ID: o.ChannelID, CreatedAt: o.CreatedAt.UnixMilli(), DepositAddress: o.DepositAddress,
			SrcChainExpiryBlock: fmt.Sprint(block(o.Terms.Deadline)), EstimatedExpiryTime: o.Terms.Deadline.UnixMilli(),
			ExpectedDepositAmount: ch.Req.Amount, IsExpired: now.After(o.Terms.Deadline), OpenedThroughBackend: true, DcaParams: ch.Req.DcaParams,
		},
		DcaParams:              ch.Req.DcaParams,
		LastStatechainUpdateAt: now.UnixMilli(),
	}
	if f := ch.Req.FillOrKillParams; f != nil {
		s.FillOrKillParams = &fokView{RefundAddress: f.RefundAddress, MinPrice: humanPrice(ch.MinPrice, o.From, o.To),
			RetryDurationBlocks: *f.RetryDurationBlocks, MaxOraclePriceSlippage: f.MaxOraclePriceSlippage}
	}
	d, idx, ok := latestDeposit(o.Deposits, now)
	if !ok {
		return s
	}
	s.SwapID = swapID(o.ChannelID, idx)
	s.Deposit = &deposit{Amount: d.Amount.String(), TxRef: d.TxHash}
	if minIn, _ := a.V.Provider.LimitsIn(o.From, o.To); d.Amount.Cmp(minIn) < 0 {
		s.State = "FAILED"
		s.Deposit.Failure = &failure{FailedAt: d.At.UnixMilli(), FailedBlockIndex: blockIndex(d.At), Mode: "DEPOSIT_IGNORED",
			Reason: failureReason{Name: "BelowMinimumDeposit", Message: "The deposited amount was below the minimum required"}}
		s.Deposit.FailedAt, s.Deposit.FailedBlockIndex = ms(d.At), blockIndex(d.At)
		return s
	}
	view := o
	view.Terms = swapTerms(o, ch, d.Amount)
	view.Deposits = []settlement.Deposit{d}
	p := a.V.Progress(view)
	tag := strconv.Itoa(idx)
	outTx := chainaddr.TxHash(o.To.Chain, a.V.Seed, o.DepositAddress, "out", tag)
	refundTx := chainaddr.TxHash(o.From.Chain, a.V.Seed, o.DepositAddress, "refund", tag)
	if p.Phase == settlement.DepositSeen {
		one := int64(1)
		s.State, s.Deposit.TxConfirmations = "RECEIVING", &one
		return s
	}
	s.Deposit.WitnessedAt, s.Deposit.WitnessedBlockIndex = ms(d.At), blockIndex(d.At)
	if p.RefundReason == settlement.ReasonDepositAfterDeadline {
		// A deposit to an expired channel is rejected and sent back.
		s.State = "FAILED"
		s.Deposit.Failure = &failure{FailedAt: p.Since.UnixMilli(), FailedBlockIndex: blockIndex(p.Since), Mode: "DEPOSIT_REJECTED",
			Reason: failureReason{Name: "DepositChannelExpired", Message: "The deposit channel had expired"}}
		s.RefundEgress = &egress{Amount: d.Amount.String(), ScheduledAt: p.Since.UnixMilli(), ScheduledBlockIndex: blockIndex(p.Since)}
		if p.Phase == settlement.Refunded {
			s.RefundEgress.TxRef, s.RefundEgress.WitnessedAt, s.RefundEgress.WitnessedBlockIndex = refundTx, ms(p.Since), blockIndex(p.Since)
		}
		return s
	}
	in, out, refunded := settlement.Fill(view.Terms, d.Amount)
	s.Swap = a.swapFieldsOf(ch, d, in, out, p.Phase)
	switch p.Phase {
	case settlement.Swapping:
		s.State = "SWAPPING"
		return s
	case settlement.Sending:
		s.State = "SENDING"
	case settlement.Sent:
		s.State = "SENT"
	default:
		s.State = "COMPLETED"
	}
	eg := func(amount *big.Int, tx string) *egress {
		e := &egress{Amount: amount.String(), ScheduledAt: p.Since.UnixMilli(), ScheduledBlockIndex: blockIndex(p.Since)}
		if s.State != "SENDING" {
			e.TxRef = tx
		}
		if s.State == "COMPLETED" {
			e.WitnessedAt, e.WitnessedBlockIndex = ms(p.Since), blockIndex(p.Since)
		}
		return e
	}
	if in.Sign() > 0 {
		s.SwapEgress = eg(out, outTx)
	}
	if refunded.Sign() > 0 {
		s.RefundEgress = eg(refunded, refundTx)
	}
	return s
}

// maxDepositsPerChannel bounds the deposits one channel numbers swaps for.
const maxDepositsPerChannel = 1000

// swapID numbers the swap of a channel's idx-th deposit. Swap ids are unique across channels,
// as Chainflip's are: the channel's sequence number (the last part of its id, counted by the
// venue) times maxDepositsPerChannel, plus the deposit's index.
func swapID(channelID string, idx int) string {
	seq, _ := strconv.ParseInt(channelID[strings.LastIndexByte(channelID, '-')+1:], 10, 64)
	return strconv.FormatInt(seq*maxDepositsPerChannel+int64(idx)%maxDepositsPerChannel+1, 10)
}

// swapFieldsOf reports the swap of one deposit: nothing executed while swapping, everything
// the fill allows afterwards, in one chunk or in DCA chunks.
func (a API) swapFieldsOf(ch channel, d settlement.Deposit, in, out *big.Int, phase settlement.Phase) *swapFields {
	sf := &swapFields{OriginalInputAmount: d.Amount.String(), RemainingInputAmount: d.Amount.String(),
		SwappedInputAmount: "0", SwappedIntermediateAmount: "0", SwappedOutputAmount: "0"}
	c := &chunk{InputAmount: d.Amount.String(), ScheduledAt: d.At.UnixMilli(), ScheduledBlockIndex: blockIndex(d.At)}
	executed := phase != settlement.Swapping
	if executed {
		sf.RemainingInputAmount = new(big.Int).Sub(d.Amount, in).String()
		sf.SwappedInputAmount, sf.SwappedOutputAmount = in.String(), out.String()
		c.OutputAmount, c.ExecutedAt, c.ExecutedBlockIndex = out.String(), ms(d.At), blockIndex(d.At)
	}
	if ch.Req.DcaParams == nil {
		sf.Regular = c
		return sf
	}
	n := ch.Req.DcaParams.NumberOfChunks
	first := *c
	first.InputAmount = chunkOf(d.Amount, n, false).String()
	sf.Dca = &dcaProgress{RemainingChunks: n, CurrentChunk: &first}
	if executed {
		last := *c
		last.InputAmount, last.OutputAmount = chunkOf(in, n, true).String(), chunkOf(out, n, true).String()
		sf.Dca = &dcaProgress{LastExecutedChunk: &last, ExecutedChunks: n}
	}
	return sf
}

// chunkOf is one of n DCA chunks of total: every chunk takes total/n and the last one also
// the remainder.
func chunkOf(total *big.Int, n int64, last bool) *big.Int {
	if n < 1 {
		n = 1
	}
	q, r := new(big.Int).QuoRem(total, big.NewInt(n), new(big.Int))
	if last {
		q.Add(q, r)
	}
	return q
}

// humanPrice is getPriceFromPriceX128: the floor as whole output units per whole input unit.
func humanPrice(x128 *big.Int, from, to market.Asset) string {
	if x128 == nil {
		return "0"
	}
	r := new(big.Rat).SetFrac(x128, new(big.Int).Lsh(big.NewInt(1), 128))
	r.Mul(r, new(big.Rat).SetFrac(from.Unit(), to.Unit()))
	return decimal(r)
}

// confirmations are the source chain's required block confirmations.
func confirmations(m market.Asset) int64 {
	if m.Chain == "btc" {
		return 3
	}
	return 2
}
