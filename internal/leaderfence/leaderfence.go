// Package leaderfence lets the elected controller process check, right before a call that
// cannot be repeated safely, that it still holds the leader lease. Leader election alone does
// not stop a process that was paused (SIGSTOP, a frozen VM, a long GC or swap stall) past its
// lease: it wakes up, still believes it leads, and runs its queued work next to the new leader
// until its renew loop notices — long enough to ask a provider for a second deposit address
// for an order the new leader is serving. The fence reads the Lease from the kube-apiserver.
package leaderfence

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// Fence checks the lease behind the manager's leader election.
type Fence struct {
	// Lock is the lease lock the manager elects with (its Identity is this process).
	Lock resourcelock.Interface
	// LeaseDuration is the election's lease duration.
	LeaseDuration time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// NewLeaseLock builds the lease lock controller-runtime would build (identity hostname_uuid),
// so the manager and the fence share it. timeout bounds each lease request.
func NewLeaseLock(cfg *rest.Config, namespace, name string, timeout time.Duration) (resourcelock.Interface, error) {
	host, err := os.Hostname()
	if err != nil {
		return nil, err
	}
	cfg = rest.AddUserAgent(rest.CopyConfig(cfg), "leader-election")
	cfg.Timeout = timeout
	core, err := corev1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	coord, err := coordinationv1client.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return resourcelock.New(resourcelock.LeasesResourceLock, namespace, name, core, coord,
		resourcelock.ResourceLockConfig{Identity: host + "_" + string(uuid.NewUUID())})
}

// Held returns nil when this process holds the lease and its last renewal is younger than the
// lease duration, else why not. It reads the Lease live: a cache could be as stale as the
// process that is asking.
func (f *Fence) Held(ctx context.Context) error {
	rec, _, err := f.Lock.Get(ctx)
	if err != nil {
		return fmt.Errorf("reading the leader lease: %w", err)
	}
	now := time.Now
	if f.Now != nil {
		now = f.Now
	}
	return held(rec.HolderIdentity, rec.RenewTime.Time, f.Lock.Identity(), now(), f.LeaseDuration)
}

// held decides from the lease record: the holder must be us, and the renewal recent enough
// that no standby may have taken over.
func held(holder string, renewed time.Time, identity string, now time.Time, leaseDuration time.Duration) error {
	if holder != identity {
		return fmt.Errorf("the leader lease is held by %q, not this process", holder)
	}
	if !renewed.Add(leaseDuration).After(now) {
		return fmt.Errorf("the leader lease was last renewed %s ago, beyond its %s duration", now.Sub(renewed).Round(time.Millisecond), leaseDuration)
	}
	return nil
}
