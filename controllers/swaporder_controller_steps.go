package controllers

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/delivery"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

// maxTxHashes is the CRD's bound on status.inTxHashes and status.outTxHashes.
const maxTxHashes = 16

// createDeposit obtains the deposit address: what needs no call is decided first
// (beforeCreate), then the leader fence and the one provider call, then what the answer
// means (createOutcome). Neither real provider makes a repeated create return the same
// address, and no mark written before the call could change that, so none is written: the
// guarantee a user sees is that only status.depositAddress is ever shown, and the API lets it
// be written once. An answer that is lost (a timeout after the request was sent, or a failed
// status write) may leave an address nobody is shown; those are counted.
func (r *SwapOrderReconciler) createDeposit(ctx context.Context, p *orderPass) ctrl.Result {
	if res, decided := r.beforeCreate(p); decided {
		return res
	}
	// A second address for this order would come from a process that lost the lease while
	// paused and still acts on what it read before: it must not reach the provider.
	if r.Leader != nil {
		if err := r.Leader.Held(ctx); err != nil {
			p.effect.err = fmt.Errorf("not creating a deposit address: %w", err)
			return ctrl.Result{}
		}
	}
	var dep provider.Deposit
	held, pe := r.ask(ctx, p, func(ctx context.Context) (err error) {
		dep, err = p.entry.Provider.CreateDeposit(ctx, providerDepositRequest(p.order))
		return err
	})
	if held {
		return p.effect.result
	}
	return r.createOutcome(p, dep, pe)
}

// beforeCreate decides what the creation step is without a call: an approval recorded, the
// give-up once the bound passed, a provider not configured or disabled. decided says the
// pass ends with res.
func (r *SwapOrderReconciler) beforeCreate(p *orderPass) (res ctrl.Result, decided bool) {
	o, st := p.order, &p.order.Status
	if p.controls.Review == orders.ReviewApproved {
		r.approve(p)
	}
	if orders.CreateGiveUp(st, addressRequestedSince(o), p.now, r.CreateBound) {
		// No address was ever recorded, so none was ever shown: failing is true.
		p.recovered()
		p.transition(orders.Change{To: swapv1.OrderFailed, Reason: orders.ReasonNoDepositAddress})
		orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
		p.effect.event("Warning", orders.ReasonNoDepositAddress, "CreateDeposit",
			"provider %s gave no deposit address within %s", o.Spec.ProviderID, r.CreateBound)
		return ctrl.Result{RequeueAfter: nextStepNow}, true
	}
	if !p.entryOK {
		return ctrl.Result{RequeueAfter: min(r.providerMissing(p).RequeueAfter, r.untilCreateBound(p))}, true
	}
	if !p.entry.Enabled {
		p.transition(orders.Change{To: swapv1.OrderFailed, Reason: orders.ReasonProviderDisabled})
		orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
		return ctrl.Result{RequeueAfter: nextStepNow}, true
	}
	return ctrl.Result{}, false
}

// untilCreateBound is when to come back at the latest, so the give-up is on time.
func (r *SwapOrderReconciler) untilCreateBound(p *orderPass) time.Duration {
	return addressRequestedSince(p.order).Add(r.CreateBound).Sub(p.now) + nextStepNow
}

// createOutcome decides what the provider's answer to the creation means: a retry for a
// failure of the provider as a whole, FAILED for a refusal or a quote it no longer honours,
// else PENDING with the address.
func (r *SwapOrderReconciler) createOutcome(p *orderPass, dep provider.Deposit, pe *provider.Error) ctrl.Result {
	o, st := p.order, &p.order.Status
	if pe != nil {
		if pe.Retryable() {
			// 408/425/429/503, timeouts, 5xx, rejected credentials: never a refusal.
			if pe.Kind == provider.KindTimeout && !p.entry.Provider.IdempotentCreate() {
				p.effect.count(r.metrics.unshown, string(o.Spec.ProviderID), unshownAnswerLost)
			}
			delay := r.providerDown(p, pe, r.RetryBase, r.RetryMax)
			return ctrl.Result{RequeueAfter: min(delay, r.untilCreateBound(p))}
		}
		p.recovered()
		failure := orders.CreateFailure(pe)
		p.transition(failure)
		orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
		p.effect.event("Warning", "DepositRefused", "CreateDeposit", "provider %s refused the order: %s", o.Spec.ProviderID, failure.Reason)
		return ctrl.Result{RequeueAfter: nextStepNow}
	}

	p.recovered()
	if r.breaksQuoteBinding(p, dep) {
		return ctrl.Result{RequeueAfter: nextStepNow}
	}
	p.effect.created = dep.DepositAddress
	st.DepositAddress = dep.DepositAddress
	st.DepositMemo = dep.DepositMemo
	st.ProviderSignature = dep.Signature
	st.ProviderRef = dep.ProviderRef
	st.ProviderStatus = dep.Raw
	if !dep.Deadline.IsZero() {
		st.DepositDeadline = &metav1.Time{Time: dep.Deadline}
	}
	if dep.Quote.AmountIn != "" && dep.Quote.AmountOut != "" {
		q := dep.Quote.DeepCopy()
		q.ProviderID = o.Spec.ProviderID
		st.Quote = q
	}
	st.Substatus = swapv1.SubstatusAwaitingDeposit
	p.transition(orders.Change{To: swapv1.OrderPending, Reason: orders.ReasonDepositAddressIssued})
	// The history keeps how the order became PENDING; the status says what it waits for, as
	// the first poll would (one status write fewer per order: that poll changes nothing).
	st.StatusReason = orders.ReasonAwaitingDeposit
	orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
	return r.schedulePoll(p, p.entry.PollMin, p.entry.PollMax, 0)
}

func providerDepositRequest(o *swapv1.SwapOrder) provider.DepositRequest {
	var accepted string
	if q := o.Spec.Quote; q != nil && q.ProviderID == o.Spec.ProviderID {
		accepted = q.MinAmountOut
	}
	return provider.DepositRequest{
		OrderID:      o.Spec.OrderID,
		MinAmountOut: accepted,
		QuoteRequest: provider.QuoteRequest{
			OriginAsset:      o.Spec.OriginAsset,
			DestinationAsset: o.Spec.DestinationAsset,
			Amount:           o.Spec.Amount,
			SwapType:         o.Spec.SwapType,
			SlippageBps:      o.Spec.SlippageToleranceBps,
			Sender:           o.Spec.Sender,
			Recipient:        o.Spec.Recipient,
			RefundTo:         o.Spec.RefundTo,
			AppFee:           appFee(o.Spec.PartnerFee),
		},
	}
}

// forwardHint passes spec.depositHint to the provider once (one call, then hintOutcome).
func (r *SwapOrderReconciler) forwardHint(ctx context.Context, p *orderPass) ctrl.Result {
	if !p.entryOK {
		return r.providerMissing(p)
	}
	hint := *p.order.Spec.DepositHint
	held, pe := r.ask(ctx, p, func(ctx context.Context) error {
		return p.entry.Provider.SubmitDeposit(ctx, providerOrderRef(p.order), hint)
	})
	if held {
		return p.effect.result
	}
	return r.hintOutcome(p, hint, pe)
}

// hintOutcome decides what the provider's answer to a hint means. A hint the provider
// rejects is recorded as forwarded too (with a Warning event): resending it would not change
// the answer.
func (r *SwapOrderReconciler) hintOutcome(p *orderPass, hint swapv1.DepositHint, pe *provider.Error) ctrl.Result {
	o, st := p.order, &p.order.Status
	if pe != nil {
		if pe.Retryable() {
			return ctrl.Result{RequeueAfter: r.providerDown(p, pe, r.RetryBase, r.RetryMax)}
		}
		p.effect.event("Warning", "DepositHintRejected", "SubmitDeposit", "provider %s rejected the deposit hint: %s", o.Spec.ProviderID, pe.Kind)
	} else {
		p.effect.event("Normal", "DepositHintForwarded", "SubmitDeposit", "deposit hint forwarded to provider %s", o.Spec.ProviderID)
	}
	p.recovered()
	st.ForwardedTxHash = hint.TxHash
	// Ask for the status right away: the hint exists to speed tracking up.
	st.NextPollAt = &metav1.Time{Time: p.now}
	orders.SetConditions(st, o.Generation, orders.Issue{}, metav1.NewTime(p.now))
	return ctrl.Result{RequeueAfter: nextStepNow}
}

// poll asks the provider for the order's status (one call, then pollOutcome).
func (r *SwapOrderReconciler) poll(ctx context.Context, p *orderPass) ctrl.Result {
	if !p.entryOK {
		return r.providerMissing(p)
	}
	var got provider.Status
	held, pe := r.ask(ctx, p, func(ctx context.Context) (err error) {
		got, err = p.entry.Provider.Status(ctx, providerOrderRef(p.order))
		return err
	})
	if held {
		return p.effect.result
	}
	return r.pollOutcome(p, got, pe)
}

// pollOutcome records the provider's answer about the order, decides the transition
// (deposit expiry included) and schedules the next poll.
func (r *SwapOrderReconciler) pollOutcome(p *orderPass, got provider.Status, pe *provider.Error) ctrl.Result {
	o, st, entry := p.order, &p.order.Status, p.entry
	if pe != nil {
		if pe.Retryable() {
			// The provider as a whole fails: its RoutingProvider says so; the order keeps
			// its status and waits.
			return r.schedulePoll(p, entry.PollMin, entry.PollMax, r.providerDown(p, pe, entry.PollMin, r.PollBackoffMax))
		}
		// The provider answered, but not about this order (404, or a refusal): per-order
		// evidence, counted in memory and written only at the crossings.
		n, _ := p.failedOnce()
		if orders.PersistFailures(n, r.UnknownAfter) {
			st.ProviderErrors = n
		}
		if st.FailingSince == nil {
			st.FailingSince = &metav1.Time{Time: p.now}
		}
		change := orders.ObserveError(st.Status, pe, n, r.UnknownAfter)
		next, reason := orders.Next(st, change)
		st.Substatus = orders.Substatus(st.Status, next, reason, st.Substatus, nil, orders.WindowClosed(o, p.now))
		p.transition(change)
		if n == 1 || orders.PersistFailures(n, r.UnknownAfter) {
			p.log.Info("the provider does not know the order", "error", pe.Error(), "consecutive", n)
		}
		return r.watch(p, orders.Issue{Reason: orders.ReasonOrderNotFound,
			Message: fmt.Sprintf("provider %s does not know this order; polling with backoff", o.Spec.ProviderID)})
	}

	p.recovered()
	st.ProviderErrors = 0
	st.ProviderStatus = got.Raw
	if len(got.InTxHashes) > 0 {
		st.InTxHashes = clipHashes(got.InTxHashes)
	}
	if len(got.OutTxHashes) > 0 {
		st.OutTxHashes = clipHashes(got.OutTxHashes)
	}
	setIfNonEmpty(&st.AmountIn, got.AmountIn)
	setIfNonEmpty(&st.AmountOut, got.AmountOut)
	setIfNonEmpty(&st.DepositedAmount, got.DepositedAmount)
	setIfNonEmpty(&st.RefundedAmount, got.RefundedAmount)
	change := orders.Observe(st.Status, got, orders.ShouldExpire(o, got, r.ExpiryGrace, p.now))
	next, reason := orders.Next(st, change)
	st.Substatus = orders.Substatus(st.Status, next, reason, st.Substatus, &got, orders.WindowClosed(o, p.now))
	if !p.transition(change) && got.Status == st.Status && got.Reason != "" && !st.Status.IsTerminal() {
		// Same status, finer provider step (DepositSeen → Swapping): keep the reason current
		// without a transition, so history and webhooks report only status changes.
		st.StatusReason = got.Reason
	}
	issue := orders.Issue{}
	if st.Status == swapv1.OrderUnknown {
		// An answer that cannot be mapped is no usable answer either.
		if st.FailingSince == nil {
			st.FailingSince = &metav1.Time{Time: p.now}
		}
		issue = orders.Issue{Reason: orders.ReasonProviderStatusUnmapped,
			Message: fmt.Sprintf("provider %s reports a status that cannot be mapped; polling with backoff", o.Spec.ProviderID)}
	} else {
		st.FailingSince = nil
	}
	return r.watch(p, issue)
}

// watch sets the order's conditions and schedules its next poll: at full cadence while the
// order is tracked normally; backing off with the age of its trouble while the provider
// gives no usable answer for it (or keeps it awaiting a deposit past deadline plus grace);
// and not at all once that has lasted WatchBound (Stalled WatchStopped, an Event, a metric).
func (r *SwapOrderReconciler) watch(p *orderPass, issue orders.Issue) ctrl.Result {
	st, entry := &p.order.Status, p.entry
	since := orders.WatchSince(st, r.ExpiryGrace, p.now)
	if since == nil || st.Status.IsTerminal() {
		orders.SetConditions(st, p.order.Generation, issue, metav1.NewTime(p.now))
		return r.schedulePoll(p, entry.PollMin, entry.PollMax, 0)
	}
	interval, stop := orders.Watch(*since, p.now, entry.PollMin, r.PollBackoffMax, r.WatchBound)
	if !stop {
		orders.SetConditions(st, p.order.Generation, issue, metav1.NewTime(p.now))
		return r.schedulePoll(p, interval, interval, 0)
	}
	orders.SetConditions(st, p.order.Generation, orders.Issue{
		Reason: orders.ReasonWatchStopped,
		Message: fmt.Sprintf("no usable answer from provider %s for this order since %s; polling stopped until an operator acts",
			p.order.Spec.ProviderID, since.UTC().Format(time.RFC3339)),
		Stalled: true,
	}, metav1.NewTime(p.now))
	st.NextPollAt = nil
	p.effect.count(r.metrics.stalled, string(p.order.Spec.ProviderID))
	p.effect.event("Warning", orders.ReasonWatchStopped, "Watch",
		"provider %s gave no usable answer for this order for %s; polling stopped until an operator acts", p.order.Spec.ProviderID, r.WatchBound)
	p.log.Info("order watch stopped", "since", since.UTC(), "bound", r.WatchBound)
	if len(p.effect.transitions) > 0 {
		return ctrl.Result{RequeueAfter: nextStepNow}
	}
	return ctrl.Result{}
}

// schedulePoll records when the next poll is due (none once terminal) and returns when to
// come back: at once after a transition, so its webhook follows without waiting for a poll.
// A positive backoff replaces the jittered interval when it is longer.
func (r *SwapOrderReconciler) schedulePoll(p *orderPass, pollMin, pollMax, backoff time.Duration) ctrl.Result {
	st := &p.order.Status
	if st.Status.IsTerminal() {
		st.NextPollAt = nil
		return ctrl.Result{RequeueAfter: nextStepNow}
	}
	interval := max(orders.PollInterval(pollMin, pollMax, r.Rand()), backoff)
	var expiresAt *time.Time
	if st.Status == swapv1.OrderPending || st.Status == swapv1.OrderUnknown {
		expiresAt = orders.ExpiresAt(st, r.ExpiryGrace)
	}
	next := orders.NextPollAt(p.now, interval, expiresAt)
	st.NextPollAt = &metav1.Time{Time: next}
	if len(p.effect.transitions) > 0 {
		return ctrl.Result{RequeueAfter: nextStepNow}
	}
	return ctrl.Result{RequeueAfter: next.Sub(p.now)}
}

// emit ensures one WebhookDelivery per transition not yet notified, when the partner's
// webhook is enabled, then advances status.notifiedSeq. It runs when the delivery was not
// created right after the write that recorded its transition (see swaporder_emission.go):
// a crash in between, a failed create, or a terminal order with nothing else to write.
// Deliveries have deterministic names, so a delivery created before a crash makes the repeat
// an AlreadyExists, never a duplicate. The creates are the step's call; they are of
// transitions an earlier write recorded.
func (r *SwapOrderReconciler) emit(ctx context.Context, p *orderPass) ctrl.Result {
	o, st := p.order, &p.order.Status
	enabled, err := r.webhookEnabled(ctx, o)
	if err != nil {
		p.effect.err = err
		return ctrl.Result{}
	}
	if !enabled {
		st.NotifiedSeq = st.LastSeq
		return ctrl.Result{RequeueAfter: nextStepNow}
	}
	for _, t := range orders.Unnotified(st) {
		if t.Seq <= p.memory.Emitted {
			st.NotifiedSeq = t.Seq // created by this process right after its transition
			continue
		}
		skipped, err := r.ensureDelivery(ctx, p, t)
		if err != nil {
			return r.emitFailed(p, t, err)
		}
		if skipped != nil {
			p.effect.events = append(p.effect.events, *skipped)
		}
		st.NotifiedSeq = t.Seq
	}
	// Transitions that fell out of the bounded history cannot be sent any more.
	st.NotifiedSeq = st.LastSeq
	st.EmitRetryAt = nil
	orders.ClearEmitFailure(st)
	p.effect.memory.emitRecovered = true
	return ctrl.Result{RequeueAfter: nextStepNow}
}

// emitFailed decides a failed delivery create (quota, RBAC, admission): retry later, and let
// tracking, expiry and retention go on meanwhile (NextStep skips emission until EmitRetryAt).
func (r *SwapOrderReconciler) emitFailed(p *orderPass, t swapv1.StatusTransition, err error) ctrl.Result {
	o, st := p.order, &p.order.Status
	p.effect.memory.emitFailed = true
	n := p.memory.EmitFailures + 1
	apiReason := string(apierrors.ReasonForError(err))
	if apiReason == "" {
		apiReason = "Unknown"
	}
	p.effect.count(r.metrics.emitFailures, apiReason)
	orders.SetEmitFailure(st, o.Generation, apiReason, metav1.NewTime(p.now))
	delay := resilience.Backoff(n, r.EmitRetryBase, r.EmitRetryMax, resilience.Jitter, r.Rand())
	st.EmitRetryAt = &metav1.Time{Time: p.now.Add(delay)}
	p.log.Info("creating the webhook delivery failed; tracking goes on", "seq", t.Seq, "error", err.Error(), "retryIn", delay)
	return ctrl.Result{RequeueAfter: nextStepNow}
}

// webhookEnabled reports whether the order's partner wants status webhooks. A missing partner
// wants none: there is nowhere to send them.
func (r *SwapOrderReconciler) webhookEnabled(ctx context.Context, o *swapv1.SwapOrder) (bool, error) {
	return partnerWebhookEnabled(ctx, r.Client, o)
}

func partnerWebhookEnabled(ctx context.Context, c client.Reader, o *swapv1.SwapOrder) (bool, error) {
	partner := &swapv1.Partner{}
	err := c.Get(ctx, client.ObjectKey{Namespace: o.Namespace, Name: o.Spec.Partner}, partner)
	if apierrors.IsNotFound(err) {
		ctrl.LoggerFrom(ctx).Info("partner not found; no webhooks for this order", "partner", o.Spec.Partner)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading partner %s: %w", o.Spec.Partner, err)
	}
	return delivery.Enabled(partner), nil
}

func clipHashes(hashes []string) []string {
	if len(hashes) > maxTxHashes {
		hashes = hashes[len(hashes)-maxTxHashes:]
	}
	return append([]string(nil), hashes...)
}

func setIfNonEmpty(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}
