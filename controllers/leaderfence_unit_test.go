package controllers

import (
	"context"
	"errors"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

type fakeLeader struct{ err error }

func (f *fakeLeader) Held(context.Context) error { return f.err }

// A process that lost the lease while paused must not ask the provider for an address: the
// new leader is serving the same order.
func TestUnitNoDepositAddressWithoutTheLease(t *testing.T) {
	g := newUnitRig(t)
	leader := &fakeLeader{err: errors.New("the leader lease is held by \"other\"")}
	g.r.Leader = leader
	if _, err := g.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: g.key}); err == nil {
		t.Fatal("reconciled without the lease")
	}
	if o := g.order(); g.p.creates != 0 || o.Status.DepositAddress != "" {
		t.Fatalf("%d creates, address %q without the lease", g.p.creates, o.Status.DepositAddress)
	}
	leader.err = nil
	g.settle()
	if o := g.order(); g.p.creates != 1 || o.Status.Status != swapv1.OrderPending {
		t.Fatalf("with the lease: %d creates, %+v", g.p.creates, o.Status)
	}
}
