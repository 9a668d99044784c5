package quota

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// TestReplicasShareTheCap runs three Counters (three frontend replicas) against one real
// kube-apiserver, each with many requests spending concurrently toward a small cap, while each
// replica flushes on its own ticker. However the claims interleave and conflict, the replicas
// together never answer more than the cap; once they released their blocks the stored usage is
// exactly what they answered, and exactly the rest of the cap is still there to answer.
func TestReplicasShareTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a kube-apiserver")
	}
	plane, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plane.Env.Stop() })
	ctx := context.Background()
	kc := plane.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "quota-"}}
	if err := kc.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	const limit = 60
	p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "metered", Namespace: ns.Name},
		Spec: swapv1.PartnerSpec{MonthlyQuoteQuota: limit}}
	if err := kc.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	fresh := func() *swapv1.Partner {
		got := &swapv1.Partner{}
		if err := kc.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
			t.Fatal(err)
		}
		return got
	}

	var answered atomic.Int64
	replicas := make([]*Counter, 3)
	flushCtx, stopFlushing := context.WithCancel(ctx)
	var flushers, workers sync.WaitGroup
	for r := range replicas {
		replicas[r] = NewCounter(kc, kc, logr.Discard())
		flushers.Add(1)
		go func() { defer flushers.Done(); replicas[r].Run(flushCtx, 10*time.Millisecond) }()
		cached := fresh() // what the replica's informer showed: never updated during the run
		for w := range 6 {
			workers.Add(1)
			go func() {
				defer workers.Done()
				for i := 0; ; i++ {
					// quotes (1) and rates requests (2–3 targets), one in five with a target
					// that failed upstream and so does not count.
					n := int64(1 + (w+i)%3)
					settle, granted, _, err := replicas[r].ReserveUpTo(ctx, cached, n, now)
					if err != nil {
						t.Error(err)
						return
					}
					if granted == 0 || answered.Load() > limit {
						return // quota exceeded (or, were the cap broken, past it: fail, never spin)
					}
					got := granted
					if (w+i)%5 == 0 {
						got--
					}
					answered.Add(got)
					settle(got)
				}
			}()
		}
	}
	workers.Wait()
	stopFlushing()
	flushers.Wait()
	if got := answered.Load(); got > limit {
		t.Fatalf("the replicas answered %d quotes with a cap of %d", got, limit)
	}
	for _, c := range replicas {
		if err := c.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	u := fresh().Status.QuotaUsage
	if u == nil || u.Quotes != answered.Load() || u.Claimed != u.Quotes {
		t.Fatalf("stored usage %+v after the replicas released their blocks; they answered %d", u, answered.Load())
	}
	for r, c := range replicas {
		if used := c.Used(fresh(), now); used != answered.Load() {
			t.Errorf("replica %d shows %d used, the truth is %d", r, used, answered.Load())
		}
	}

	// Nothing of the cap was lost: a replica answers exactly the rest, then none.
	left := limit - answered.Load()
	t.Logf("answered %d of %d while racing; %d left after release", answered.Load(), limit, left)
	last := NewCounter(kc, kc, logr.Discard())
	if left > 0 {
		if ok, _ := take(t, last, fresh(), left, now); !ok {
			t.Fatalf("the last %d quotes of the cap refused", left)
		}
	}
	if ok, _ := take(t, replicas[0], fresh(), 1, now); ok {
		t.Fatal("a quote past the cap answered")
	}
	if err := last.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if u := fresh().Status.QuotaUsage; u.Quotes != limit || u.Claimed != limit {
		t.Fatalf("stored usage %+v at the cap of %d", u, limit)
	}
}
