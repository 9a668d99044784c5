// Package settlement decides where a simulated order is on its timeline. Evaluate is a pure
// function of the order's terms, the deposits seen so far, the time and the speed settings, so
// the state is never stored and never goes stale.
package settlement

import (
	"math/big"
	"sort"
	"time"
)

// Phase is a protocol-neutral step of an order; each protocol maps it onto its own statuses.
type Phase int

const (
	// AwaitingDeposit: nothing received yet.
	AwaitingDeposit Phase = iota
	// DepositSeen: a deposit transaction was seen and is confirming.
	DepositSeen
	// Incomplete: less than the expected amount arrived; waiting, then refunding.
	Incomplete
	// Swapping: the full deposit is being swapped.
	Swapping
	// Sending: the output is being sent to the recipient.
	Sending
	// Sent: the output transaction is broadcast and confirming.
	Sent
	// Completed: the recipient has the output. Terminal.
	Completed
	// Refunding: the deposit is being sent back.
	Refunding
	// Refunded: the deposit went back to the refund address. Terminal.
	Refunded
)

var phaseNames = [...]string{"AwaitingDeposit", "DepositSeen", "Incomplete", "Swapping", "Sending", "Sent", "Completed", "Refunding", "Refunded"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return "Phase(?)"
}

// Terminal reports whether the order cannot move any more.
func (p Phase) Terminal() bool { return p == Completed || p == Refunded }

// Refund reasons.
const (
	ReasonIncompleteDeposit    = "IncompleteDeposit"
	ReasonDepositAfterDeadline = "DepositAfterDeadline"
	ReasonPriceFloorNotMet     = "PriceFloorNotMet"
)

// Timing is the simulator's speed.
type Timing struct {
	// Step is the time each phase of a full deposit takes (4 steps to Completed).
	Step time.Duration
	// RefundAfter is how long an incomplete deposit waits for the rest before it is refunded
	// (at least 2 steps).
	RefundAfter time.Duration
}

// Terms are what the order promised.
type Terms struct {
	// ExpectedIn is the amount the user must deposit.
	ExpectedIn *big.Int
	// QuotedOut is the output for ExpectedIn.
	QuotedOut *big.Int
	// ExactOutput: the output is fixed and any excess input is refunded; otherwise the whole
	// deposit is swapped at the quoted rate.
	ExactOutput bool
	// Deadline is the last moment a deposit is accepted.
	Deadline time.Time
	// KeepExcess: an input above ExpectedIn is swapped too (Chainflip swaps what arrives);
	// otherwise the excess is refunded after the swap (1Click).
	KeepExcess bool
	// UnfilledBps is the share of the swapped input the market could not fill at the order's
	// price floor; it is refunded beside the output (a partial fill). 10000 refunds all.
	UnfilledBps int64
	// SingleDeposit: only the first deposit belongs to the order (Relay's strict addresses
	// validate one deposit against the order); later ones never top it up.
	SingleDeposit bool
	// DelaySteps is how many extra steps the swap of a full deposit stalls; Progress.Delayed
	// says so while it does.
	DelaySteps int
}

// Deposit is one transfer to the deposit address.
type Deposit struct {
	Amount *big.Int
	TxHash string
	At     time.Time
}

// Progress is the order's state at a moment.
type Progress struct {
	Phase Phase
	// Since is when Phase began (zero while awaiting a deposit).
	Since time.Time
	// RefundReason is set once a refund is decided.
	RefundReason string
	// Expired: no deposit arrived and the deadline has passed.
	Expired bool
	// Deposited is everything received so far.
	Deposited *big.Int
	// AmountIn is what was swapped, AmountOut what the recipient gets, Refunded what went back.
	AmountIn, AmountOut, Refunded *big.Int
	// Delayed: the swap is stalled (Terms.DelaySteps); Phase stays Swapping meanwhile.
	Delayed bool
}

// Evaluate computes the order's progress at now.
func Evaluate(terms Terms, deposits []Deposit, now time.Time, tm Timing) Progress {
	seen := make([]Deposit, 0, len(deposits))
	for _, d := range deposits {
		if !d.At.After(now) {
			seen = append(seen, d)
		}
	}
	sort.SliceStable(seen, func(i, j int) bool { return seen[i].At.Before(seen[j].At) })
	if terms.SingleDeposit && len(seen) > 1 {
		seen = seen[:1]
	}
	p := Progress{Deposited: sum(seen, now), AmountIn: new(big.Int), AmountOut: new(big.Int), Refunded: new(big.Int)}
	if len(seen) == 0 {
		p.Phase, p.Expired = AwaitingDeposit, now.After(terms.Deadline)
		return p
	}
	t0 := seen[0].At
	if t0.After(terms.Deadline) {
		return refundPath(p, seen, now, t0, t0.Add(2*tm.Step), tm, ReasonDepositAfterDeadline)
	}
	refundAt := t0.Add(max(tm.RefundAfter, 2*tm.Step))
	if tFull, swapped, ok := fullAt(terms, seen, refundAt); ok {
		return successPath(p, terms, swapped, now, t0, tFull, tm)
	}
	return refundPath(p, seen, now, t0, refundAt, tm, ReasonIncompleteDeposit)
}

// fullAt finds when the deposits first added up to the expected amount, counting only those
// made by the deadline and before the refund decision.
func fullAt(terms Terms, seen []Deposit, refundAt time.Time) (time.Time, *big.Int, bool) {
	total := new(big.Int)
	for _, d := range seen {
		if d.At.After(terms.Deadline) || !d.At.Before(refundAt) {
			break
		}
		total.Add(total, d.Amount)
		if total.Cmp(terms.ExpectedIn) >= 0 {
			return d.At, total, true
		}
	}
	return time.Time{}, nil, false
}

func successPath(p Progress, terms Terms, swapped *big.Int, now, t0, tFull time.Time, tm Timing) Progress {
	if now.Before(tFull) { // unreachable with seen filtered by now, kept for safety
		p.Phase, p.Since = DepositSeen, t0
		return p
	}
	steps := []Phase{DepositSeen, Swapping}
	for range max(terms.DelaySteps, 0) {
		steps = append(steps, Swapping)
	}
	steps = append(steps, Sending, Sent)
	n := int(now.Sub(tFull) / max(tm.Step, time.Nanosecond))
	if n < len(steps) {
		p.Phase, p.Since = steps[n], tFull.Add(time.Duration(n)*tm.Step)
		switch {
		case n == 0:
			p.Since = t0
		case n > 1 && steps[n] == Swapping:
			p.Phase, p.Since, p.Delayed = Swapping, tFull.Add(tm.Step), true
		}
		return p
	}
	p.Phase, p.Since = Completed, tFull.Add(time.Duration(len(steps))*tm.Step)
	p.AmountIn, p.AmountOut, p.Refunded = Fill(terms, swapped)
	if p.AmountIn.Sign() == 0 {
		p.Phase, p.RefundReason = Refunded, ReasonPriceFloorNotMet
	}
	return p
}

// Fill splits what a swap of received (at least ExpectedIn) ends with: the input swapped, the
// output it buys at the quoted rate, and the input refunded (an excess the provider does not
// keep, plus the unfilled share).
func Fill(terms Terms, received *big.Int) (in, out, refunded *big.Int) {
	in = new(big.Int).Set(received)
	if !terms.KeepExcess || terms.ExactOutput {
		in.Set(terms.ExpectedIn)
	}
	unfilled := new(big.Int).Mul(in, big.NewInt(min(max(terms.UnfilledBps, 0), 10000)))
	in.Sub(in, unfilled.Quo(unfilled, big.NewInt(10000)))
	out = new(big.Int).Mul(in, terms.QuotedOut)
	out.Quo(out, terms.ExpectedIn)
	return in, out, new(big.Int).Sub(received, in)
}

func refundPath(p Progress, seen []Deposit, now, t0, refundAt time.Time, tm Timing, reason string) Progress {
	switch {
	case now.Before(t0.Add(tm.Step)):
		p.Phase, p.Since = DepositSeen, t0
	case now.Before(refundAt):
		p.Phase, p.Since = Incomplete, t0.Add(tm.Step)
		if reason == ReasonDepositAfterDeadline {
			p.Phase = Refunding
		}
		p.RefundReason = reason
	default:
		p.Phase, p.Since, p.RefundReason = Refunded, refundAt, reason
		p.Refunded = sum(seen, refundAt)
	}
	return p
}

// sum adds the deposits made up to and including at.
func sum(ds []Deposit, at time.Time) *big.Int {
	total := new(big.Int)
	for _, d := range ds {
		if !d.At.After(at) {
			total.Add(total, d.Amount)
		}
	}
	return total
}
