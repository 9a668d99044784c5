package controllers

import (
	"context"
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

func webhookPartner() *swapv1.Partner {
	return &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "ns"},
		Spec: swapv1.PartnerSpec{Webhook: &swapv1.PartnerWebhook{URL: "https://example.com/hook", Enabled: true,
			SecretRef: swapv1.SecretKeyRef{Name: "s", Key: "k"}}}}
}

// restart replaces the reconciler by a new one on the same client: what a crash and a
// restart leave is only what the API holds.
func (g *unitRig) restart(c client.Client) {
	r := &SwapOrderReconciler{Client: c, Scheme: g.r.Scheme, Recorder: g.rec, Providers: g.r.Providers,
		Now: g.r.Now, Rand: g.r.Rand}
	r.applyDefaults()
	g.r = r
}

func (g *unitRig) deliveries() []swapv1.WebhookDelivery {
	g.t.Helper()
	var list swapv1.WebhookDeliveryList
	if err := g.c.List(context.Background(), &list); err != nil {
		g.t.Fatal(err)
	}
	return list.Items
}

// failing wraps the rig's client so that fail decides, per call, whether a WebhookDelivery
// create or a SwapOrder status patch fails.
func (g *unitRig) failing(createDelivery, patchStatus func() error) client.Client {
	return interceptor.NewClient(g.c.(client.WithWatch), interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if _, ok := obj.(*swapv1.WebhookDelivery); ok && createDelivery != nil {
				if err := createDelivery(); err != nil {
					return err
				}
			}
			return c.Create(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if patchStatus != nil {
				if err := patchStatus(); err != nil {
					return err
				}
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		},
	})
}

// The delivery is created in the pass that records its transition, right after the status
// write, and costs no status write of its own: notifiedSeq rides on the next one.
func TestUnitEmissionRidesOnTheTransitionWrite(t *testing.T) {
	g := newUnitRig(t, webhookPartner())
	g.step()
	if ds := g.deliveries(); len(ds) != 1 || ds[0].Spec.Sequence != 1 {
		t.Fatalf("after the create pass: %d deliveries", len(ds))
	}
	before := g.order().ResourceVersion
	if res := g.settle(); res.RequeueAfter <= nextStepNow {
		t.Fatalf("no poll scheduled: %v", res)
	}
	if o := g.order(); o.ResourceVersion != before || o.Status.NotifiedSeq != 0 {
		t.Fatalf("an emission write was made: version %s → %s, notifiedSeq %d", before, o.ResourceVersion, o.Status.NotifiedSeq)
	}
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen", InTxHashes: []string{"0xin"}}
	g.advanceToPoll()
	g.step()
	o := g.order()
	if o.Status.LastSeq != 2 || o.Status.NotifiedSeq != 1 {
		t.Fatalf("the transition's write carries the earlier emission: lastSeq %d notifiedSeq %d", o.Status.LastSeq, o.Status.NotifiedSeq)
	}
	if ds := g.deliveries(); len(ds) != 2 {
		t.Fatalf("%d deliveries, want 2", len(ds))
	}
}

// A crash between the transition's status write and its delivery's create: the restarted
// process sees the stored notifiedSeq behind and emits. The transition keeps its webhook.
func TestUnitCrashBeforeDeliveryCreateStillEmits(t *testing.T) {
	g := newUnitRig(t, webhookPartner())
	crashed := errors.New("process died")
	g.r.Client = g.failing(func() error { return crashed }, nil)
	g.step()
	if o := g.order(); o.Status.LastSeq != 1 || len(g.deliveries()) != 0 {
		t.Fatalf("setup: lastSeq %d, %d deliveries", o.Status.LastSeq, len(g.deliveries()))
	}
	g.restart(g.c)
	g.settle()
	ds := g.deliveries()
	if len(ds) != 1 || ds[0].Spec.Sequence != 1 || g.order().Status.NotifiedSeq != 1 {
		t.Fatalf("%d deliveries, notifiedSeq %d", len(ds), g.order().Status.NotifiedSeq)
	}
}

// A crash after the delivery was created but before notifiedSeq was written: the restarted
// process finds the delivery in its cache and writes nothing (a restart with 10,000 live
// orders would otherwise cost 10,000 creates and status writes); no second delivery, the
// same event id, and the next transition's write records the emission found.
func TestUnitCrashAfterDeliveryCreateIsHarmless(t *testing.T) {
	g := newUnitRig(t, webhookPartner())
	g.step()
	first := g.deliveries()
	before := g.order().ResourceVersion
	created := 0
	g.restart(g.failing(func() error { created++; return nil }, nil))
	g.settle()
	ds := g.deliveries()
	if o := g.order(); len(ds) != 1 || ds[0].Spec.EventID != first[0].Spec.EventID || o.ResourceVersion != before || created != 0 {
		t.Fatalf("%d deliveries, version %s → %s, %d delivery creates after the restart", len(ds), before, o.ResourceVersion, created)
	}
	g.p.status = provider.Status{Status: swapv1.OrderProcessing, Raw: "PROCESSING", Reason: "DepositSeen", InTxHashes: []string{"0xin"}}
	g.advanceToPoll()
	g.settle()
	if o := g.order(); o.Status.LastSeq != 2 || o.Status.NotifiedSeq != 1 || len(g.deliveries()) != 2 {
		t.Fatalf("lastSeq %d notifiedSeq %d, %d deliveries", o.Status.LastSeq, o.Status.NotifiedSeq, len(g.deliveries()))
	}
}

// A transition whose status write failed was recorded nowhere: no delivery may exist for it.
func TestUnitNoDeliveryForAnUnwrittenTransition(t *testing.T) {
	g := newUnitRig(t, webhookPartner())
	conflict := apierrors.NewConflict(schema.GroupResource{Group: swapv1.GroupVersion.Group, Resource: "swaporders"}, "o", errors.New("changed"))
	failNext := true
	g.r.Client = g.failing(nil, func() error {
		if failNext {
			failNext = false
			return conflict
		}
		return nil
	})
	g.step()
	if o := g.order(); o.Status.LastSeq != 0 || len(g.deliveries()) != 0 {
		t.Fatalf("lastSeq %d with %d deliveries after a failed write", o.Status.LastSeq, len(g.deliveries()))
	}
	g.settle()
	if o := g.order(); o.Status.LastSeq != 1 || len(g.deliveries()) != 1 {
		t.Fatalf("lastSeq %d, %d deliveries", o.Status.LastSeq, len(g.deliveries()))
	}
}

// A terminal order without an archive writes its notifiedSeq itself: no later write would.
func TestUnitTerminalOrderWithoutArchiveRecordsItsEmission(t *testing.T) {
	g := newUnitRig(t, webhookPartner())
	g.settle()
	g.p.status = provider.Status{Status: swapv1.OrderSuccess, Raw: "SUCCESS", Reason: "Settled"}
	g.advanceToPoll()
	g.settle()
	o := g.order()
	if o.Status.Status != swapv1.OrderSuccess || o.Status.NotifiedSeq != o.Status.LastSeq || len(g.deliveries()) != int(o.Status.LastSeq) {
		t.Fatalf("status %s notifiedSeq %d lastSeq %d, %d deliveries", o.Status.Status, o.Status.NotifiedSeq, o.Status.LastSeq, len(g.deliveries()))
	}
}
