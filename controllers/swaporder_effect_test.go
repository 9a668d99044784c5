package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	mrand "math/rand"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/quick"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orders"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/providerset"
)

// randomEffect is an orderEffect testing/quick generates: any mix of transitions, an archive
// label, a redelivery, answered annotations and Events.
type randomEffect struct{ e orderEffect }

func (randomEffect) Generate(r *mrand.Rand, _ int) reflect.Value {
	var e orderEffect
	for i := range r.Intn(4) {
		e.transitions = append(e.transitions, swapv1.StatusTransition{Seq: int64(i + 1)})
	}
	e.labelArchived = r.Intn(2) == 0
	if r.Intn(2) == 0 {
		e.redeliver = &redelivery{}
	}
	for _, k := range swapv1.OperatorAnnotations {
		if r.Intn(3) == 0 {
			e.remove = append(e.remove, annotationRemoval{key: k, value: "v"})
		}
	}
	for range r.Intn(3) {
		e.events = append(e.events, kubeEvent{})
	}
	if r.Intn(2) == 0 {
		e.afterRemoval = append(e.afterRemoval, kubeEvent{})
	}
	return reflect.ValueOf(randomEffect{e})
}

// The executor's order, for every effect: what the pass learned is kept first, the status
// written once, a transition's deliveries only after that write, annotations removed only
// after every write and create that carries their effect, the wait last.
func TestEffectOperationsOrder(t *testing.T) {
	check := func(re randomEffect) bool {
		e := re.e
		ops := e.operations()
		at := func(k opKind) []int {
			var idx []int
			for i, o := range ops {
				if o.kind == k {
					idx = append(idx, i)
				}
			}
			return idx
		}
		write := at(opWriteStatus)
		if len(write) != 1 || ops[0].kind != opNote || ops[len(ops)-1].kind != opWait {
			t.Logf("ops %v: one status write, note first, wait last", ops)
			return false
		}
		// Everything an annotation's removal waits for: the writes and creates of the pass.
		lastEffect := write[0]
		for _, k := range []opKind{opLabelArchived, opEnsureDeliveries, opRedeliver} {
			for _, i := range at(k) {
				if k != opLabelArchived && i < write[0] {
					t.Logf("ops %v: %v before the status write", ops, k)
					return false
				}
				if k == opLabelArchived && i > write[0] {
					t.Logf("ops %v: the archive label after the status write that says Archived", ops)
					return false
				}
				lastEffect = max(lastEffect, i)
			}
		}
		removals := at(opRemoveAnnotation)
		if len(removals) != len(e.remove) {
			t.Logf("ops %v: %d removals, want %d", ops, len(removals), len(e.remove))
			return false
		}
		for _, i := range removals {
			if i < lastEffect {
				t.Logf("ops %v: an annotation removed before its effect is written", ops)
				return false
			}
		}
		var delivered []int64
		for _, i := range at(opEnsureDeliveries) {
			delivered = append(delivered, ops[i].seqs...)
		}
		var recorded []int64
		for _, tr := range e.transitions {
			recorded = append(recorded, tr.Seq)
		}
		if !slices.Equal(delivered, recorded) {
			t.Logf("ops %v: deliveries %v, want the recorded transitions %v", ops, delivered, recorded)
			return false
		}
		for _, i := range at(opReport) {
			if i < write[0] {
				return false
			}
		}
		for _, i := range at(opReportRemoved) {
			if len(removals) > 0 && i < removals[len(removals)-1] {
				t.Logf("ops %v: a request reported done before its removal", ops)
				return false
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
}

// apiCall is one call a pass made, in order: an API write, or the step's call (the
// provider's, the archive's).
type apiCall struct {
	kind string // "call", "status", "label", "delivery", "annotation"
	seq  int64  // a delivery's
	// redelivery: the delivery is an operator's redelivery; failed: the write failed.
	redelivery bool
	failed     bool
	annotation string
}

// recordingProvider logs the provider calls among the API calls.
type recordingProvider struct {
	*fakeProvider
	log *[]apiCall
}

func (p recordingProvider) CreateDeposit(ctx context.Context, req provider.DepositRequest) (provider.Deposit, error) {
	*p.log = append(*p.log, apiCall{kind: "call"})
	return p.fakeProvider.CreateDeposit(ctx, req)
}

func (p recordingProvider) Status(ctx context.Context, ref provider.OrderRef) (provider.Status, error) {
	*p.log = append(*p.log, apiCall{kind: "call"})
	return p.fakeProvider.Status(ctx, ref)
}

func (p recordingProvider) SubmitDeposit(ctx context.Context, ref provider.OrderRef, h swapv1.DepositHint) error {
	*p.log = append(*p.log, apiCall{kind: "call"})
	return p.fakeProvider.SubmitDeposit(ctx, ref, h)
}

// recordingArchive logs the archive writes among the API calls.
type recordingArchive struct {
	*memArchive
	log *[]apiCall
}

func (a recordingArchive) Put(ctx context.Context, e archive.Entry) error {
	*a.log = append(*a.log, apiCall{kind: "call"})
	return a.memArchive.Put(ctx, e)
}

// walk drives one order through random passes: random provider answers, operator requests,
// clock steps and failed writes. Each pass's calls are checked by check.
type walk struct {
	g       *unitRig
	rnd     *rand.Rand
	log     []apiCall
	archive *memArchive // nil: no archive
	// failStatus and failDelivery make this pass's status write or delivery creates fail.
	failStatus, failDelivery bool
}

func newWalk(t *testing.T, seed uint64) *walk {
	w := &walk{g: newUnitRig(t, webhookPartner()), rnd: rand.New(rand.NewPCG(seed, seed))}
	g := w.g
	g.r.Providers.Put(swapv1.ProviderRouteA, providerset.Entry{Provider: recordingProvider{g.p, &w.log}, Enabled: true,
		PollMin: 10 * time.Second, PollMax: 15 * time.Second})
	g.r.APIReader = g.c
	if seed%2 == 1 {
		w.archive = &memArchive{}
		g.r.Archive = recordingArchive{w.archive, &w.log}
	}
	g.r.Client = interceptor.NewClient(g.c.(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			d, ok := obj.(*swapv1.WebhookDelivery)
			if !ok {
				return c.Create(ctx, obj, opts...)
			}
			call := apiCall{kind: "delivery", seq: d.Spec.Sequence, redelivery: d.Spec.Redelivery > 0, failed: w.failDelivery}
			w.log = append(w.log, call)
			if call.failed {
				return apierrors.NewForbidden(schema.GroupResource{Resource: "webhookdeliveries"}, d.Name, errors.New("quota"))
			}
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			call := apiCall{kind: "label"}
			if patch.Type() == "application/json-patch+json" {
				data, _ := patch.Data(obj)
				call = apiCall{kind: "annotation", annotation: string(data)}
			}
			w.log = append(w.log, call)
			return c.Patch(ctx, obj, patch, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			w.log = append(w.log, apiCall{kind: "status", failed: w.failStatus})
			if w.failStatus {
				return apierrors.NewConflict(schema.GroupResource{Resource: "swaporders"}, obj.GetName(), errors.New("changed"))
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
	return w
}

// perturb sets up the next pass at random: the provider's answer, operator requests, the
// clock, and which writes fail.
func (w *walk) perturb() {
	g, r := w.g, w.rnd
	statuses := []swapv1.OrderStatus{swapv1.OrderPending, swapv1.OrderProcessing, swapv1.OrderSuccess, swapv1.OrderRefunded, swapv1.OrderFailed}
	g.p.mu.Lock()
	g.p.status = provider.Status{Status: statuses[r.IntN(len(statuses))], Raw: "X"}
	g.p.statusErr, g.p.createErr, g.p.submitErr = nil, nil, nil
	switch r.IntN(6) {
	case 0:
		g.p.statusErr = &provider.Error{Kind: provider.KindTimeout}
		g.p.createErr = &provider.Error{Kind: provider.KindTimeout}
	case 1:
		g.p.statusErr = &provider.Error{Kind: provider.KindNotFound}
		g.p.createErr = &provider.Error{Kind: provider.KindRefused}
		g.p.submitErr = &provider.Error{Kind: provider.KindRefused}
	}
	g.p.mu.Unlock()

	o := g.order()
	ann := o.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	switch r.IntN(8) {
	case 0:
		ann[swapv1.AnnotationPaused] = "incident"
		ann[swapv1.RequestedBy(swapv1.AnnotationPaused)] = "alice"
	case 1:
		delete(ann, swapv1.AnnotationPaused)
	case 2:
		ann[swapv1.AnnotationPoll] = "now"
	case 3:
		ann[swapv1.AnnotationResolve] = `{"status":"FAILED","reason":"refund tx 0xabc"}`
		ann[swapv1.RequestedBy(swapv1.AnnotationResolve)] = "alice"
	case 4:
		ann[swapv1.AnnotationResolve] = `not json`
	case 5:
		ann[swapv1.AnnotationRedeliver] = "all"
		ann[swapv1.RequestedBy(swapv1.AnnotationRedeliver)] = "alice"
	case 6:
		o.Spec.DepositHint = &swapv1.DepositHint{TxHash: fmt.Sprintf("0xhint%d", r.IntN(3))}
	}
	o.SetAnnotations(ann)
	if err := g.c.Update(context.Background(), o); err != nil {
		g.t.Fatal(err)
	}
	g.now = g.now.Add([]time.Duration{0, time.Second, 15 * time.Second, 5 * time.Minute, 2 * time.Hour}[r.IntN(5)])
	if w.archive != nil {
		w.archive.mu.Lock()
		w.archive.down = r.IntN(3) == 0
		w.archive.mu.Unlock()
	}
	w.failStatus = r.IntN(5) == 0
	w.failDelivery = r.IntN(8) == 0
}

// pass runs one reconcile and checks its calls: nothing written before the step's call
// (reading writes nothing), no delivery of a transition before the status write that
// records it succeeded, the archive label before the status write that says Archived, no
// annotation removed before the writes and creates that carry its effect, none at all when
// the status write failed.
func (w *walk) pass(t *testing.T, n int) {
	g := w.g
	before := g.order()
	w.log = nil
	_, _ = g.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: g.key})
	calls := w.log
	describe := func() string {
		var parts []string
		for _, c := range calls {
			parts = append(parts, fmt.Sprintf("%+v", c))
		}
		return fmt.Sprintf("pass %d (status %q, seq %d/%d): %s", n, before.Status.Status, before.Status.NotifiedSeq,
			before.Status.LastSeq, strings.Join(parts, " "))
	}
	statusAt, statusOK := -1, false
	lastWrite := -1
	for i, c := range calls {
		switch c.kind {
		case "call":
			if i > 0 {
				t.Fatalf("a write before the step's call: %s", describe())
			}
		case "label":
			lastWrite = i
			if statusAt >= 0 {
				t.Fatalf("the archive label after the status write: %s", describe())
			}
		case "status":
			statusAt, statusOK = i, !c.failed
			lastWrite = i
		case "delivery":
			lastWrite = i
			if c.seq > before.Status.LastSeq && !c.redelivery && (statusAt < 0 || !statusOK) {
				t.Fatalf("delivery of seq %d before the write that records it: %s", c.seq, describe())
			}
		case "annotation":
			if statusAt >= 0 && !statusOK {
				t.Fatalf("an annotation removed although the status write failed: %s", describe())
			}
			if i < lastWrite {
				t.Fatalf("an annotation removed before its effect was written: %s", describe())
			}
		}
	}
	after := g.order()
	for _, d := range g.deliveries() {
		if d.Spec.Sequence > after.Status.LastSeq {
			t.Fatalf("a delivery of seq %d exists, the order recorded %d: %s", d.Spec.Sequence, after.Status.LastSeq, describe())
		}
	}
}

func TestPassEffectInvariants(t *testing.T) {
	for seed := range uint64(25) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			w := newWalk(t, seed)
			for n := range 30 {
				w.perturb()
				w.pass(t, n)
			}
		})
	}
}

// panickingProvider panics in the creation call, as a broken adapter would.
type panickingProvider struct{ *fakeProvider }

func (panickingProvider) CreateDeposit(context.Context, provider.DepositRequest) (provider.Deposit, error) {
	panic("adapter bug")
}

// controller-runtime recovers a panicking reconcile; the creation slot the pass took must
// come back with it, or the share shrinks for good.
func TestUnitPanicInStepReleasesTheCreationSlot(t *testing.T) {
	g := newUnitRig(t)
	g.r.Providers.Put(swapv1.ProviderRouteA, providerset.Entry{Provider: panickingProvider{g.p}, Enabled: true,
		PollMin: 10 * time.Second, PollMax: 15 * time.Second})
	for range g.r.createSlots.Size() + 1 {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("the provider's panic did not reach the reconcile")
				}
			}()
			_, _ = g.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: g.key})
		}()
		if n := g.r.createSlots.InUse(orders.StepCreateDeposit); n != 0 {
			t.Fatalf("%d creation slots in use after the panic", n)
		}
	}
}

// An approval is recorded by the pass that requests the deposit address, not by one the pause
// or the creation share holds: a held pass writes nothing, and the create bound counts from
// the approval the address request follows.
func TestUnitApprovalWaitsForThePassThatRequestsTheAddress(t *testing.T) {
	g := newUnitRig(t)
	annotate := func(set map[string]string, remove ...string) {
		t.Helper()
		o := g.order()
		if o.Spec.Screening == nil {
			o.Spec.Screening = &swapv1.ScreeningRecord{Outcome: swapv1.ScreeningHeld, At: metav1.NewTime(unitStart)}
		}
		ann := o.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		maps.Copy(ann, set)
		for _, k := range remove {
			delete(ann, k)
		}
		o.SetAnnotations(ann)
		if err := g.c.Update(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	annotate(nil)
	g.settle()
	if o := g.order(); o.Status.Substatus != swapv1.SubstatusHeldForReview {
		t.Fatalf("substatus %q, want the screening hold", o.Status.Substatus)
	}

	annotate(map[string]string{swapv1.AnnotationApprove: "ok", swapv1.RequestedBy(swapv1.AnnotationApprove): "alice",
		swapv1.AnnotationPaused: "incident", swapv1.RequestedBy(swapv1.AnnotationPaused): "bob"})
	g.now = g.now.Add(time.Hour)
	g.settle()
	o := g.order()
	if o.Status.Review != nil || o.Annotations[swapv1.AnnotationApprove] == "" || g.p.creates != 0 {
		t.Fatalf("paused: review %+v, approve annotation %q, %d creates; want the approval waiting", o.Status.Review,
			o.Annotations[swapv1.AnnotationApprove], g.p.creates)
	}

	annotate(nil, swapv1.AnnotationPaused)
	var releases []func()
	for {
		release, ok := g.r.takeCreate()
		if !ok {
			break
		}
		releases = append(releases, release)
	}
	version := g.order().ResourceVersion
	g.step()
	if o := g.order(); o.ResourceVersion != version || g.p.creates != 0 {
		t.Fatalf("a pass held for the creation share wrote the order (review %+v) or called the provider", o.Status.Review)
	}
	for _, release := range releases {
		release()
	}

	g.now = g.now.Add(time.Minute)
	g.settle()
	o = g.order()
	if o.Status.Review == nil || o.Status.Review.Decision != swapv1.ReviewApproved || !o.Status.Review.At.Time.Equal(g.now) ||
		o.Status.DepositAddress == "" || o.Annotations[swapv1.AnnotationApprove] != "" {
		t.Fatalf("approved: review %+v, address %q, approve annotation %q", o.Status.Review, o.Status.DepositAddress,
			o.Annotations[swapv1.AnnotationApprove])
	}
}
