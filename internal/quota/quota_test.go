package quota

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

var march = time.Date(2026, 3, 31, 23, 59, 30, 0, time.UTC)

func TestUntilNextMonth(t *testing.T) {
	tests := []struct {
		at   time.Time
		want time.Duration
	}{
		{march, 30 * time.Second},
		{time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC), time.Hour},
		{time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), 28 * 24 * time.Hour},
		// a non-UTC clock still counts to the UTC month boundary
		{time.Date(2026, 4, 1, 1, 0, 0, 0, time.FixedZone("CEST", 2*3600)), time.Hour},
	}
	for _, tt := range tests {
		if got := UntilNextMonth(tt.at); got != tt.want {
			t.Errorf("UntilNextMonth(%v) = %v, want %v", tt.at, got, tt.want)
		}
	}
	if Month(time.Date(2026, 4, 1, 1, 0, 0, 0, time.FixedZone("CEST", 2*3600))) != "2026-03" {
		t.Error("Month is not UTC")
	}
}

func TestBlock(t *testing.T) {
	tests := []struct {
		name                 string
		limit, claimed, want int64
		block                int64
	}{
		{"no cap: what is asked", 0, 1e9, 50, 50},
		{"far from the cap: a full block", 100_000, 0, 1, maxBlock},
		{"a rates request larger than the block", 100_000, 0, 150, 150},
		{"an eighth of what is left", 1000, 200, 1, 100},
		{"near the cap: smaller blocks", 100, 60, 1, 5},
		{"nearer: just what is needed", 10, 4, 2, 2},
		{"the last quote", 10, 9, 1, 1},
		{"more than is left: the rest", 10, 7, 5, 3},
		{"cap reached", 10, 10, 1, 0},
		{"cap lowered below the claims", 10, 12, 3, 0},
		{"nothing wanted", 10, 0, 0, 0},
	}
	for _, tt := range tests {
		if got := Block(tt.limit, tt.claimed, tt.want); got != tt.block {
			t.Errorf("%s: Block(%d,%d,%d) = %d, want %d", tt.name, tt.limit, tt.claimed, tt.want, got, tt.block)
		}
	}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name    string
		stored  *swapv1.QuotaUsage
		delta   swapv1.QuotaUsage
		want    swapv1.QuotaUsage
		changed bool
	}{
		{"first", nil, swapv1.QuotaUsage{Month: "2026-03", Quotes: 2}, swapv1.QuotaUsage{Month: "2026-03", Quotes: 2}, true},
		{"same month adds", &swapv1.QuotaUsage{Month: "2026-03", Quotes: 5}, swapv1.QuotaUsage{Month: "2026-03", Quotes: 2},
			swapv1.QuotaUsage{Month: "2026-03", Quotes: 7}, true},
		{"new month restarts", &swapv1.QuotaUsage{Month: "2026-02", Quotes: 500}, swapv1.QuotaUsage{Month: "2026-03", Quotes: 2},
			swapv1.QuotaUsage{Month: "2026-03", Quotes: 2}, true},
		{"a returned block lowers the claim", &swapv1.QuotaUsage{Month: "2026-03", Quotes: 5, Claimed: 9}, swapv1.QuotaUsage{Month: "2026-03", Quotes: 1, Claimed: -3},
			swapv1.QuotaUsage{Month: "2026-03", Quotes: 6, Claimed: 6}, true},
		{"last month's claims expire", &swapv1.QuotaUsage{Month: "2026-02", Quotes: 5, Claimed: 9}, swapv1.QuotaUsage{Month: "2026-03", Quotes: 1, Claimed: -3},
			swapv1.QuotaUsage{Month: "2026-03", Quotes: 1}, true},
		{"stale batch ignored", &swapv1.QuotaUsage{Month: "2026-04", Quotes: 1}, swapv1.QuotaUsage{Month: "2026-03", Quotes: 2},
			swapv1.QuotaUsage{Month: "2026-04", Quotes: 1}, false},
	}
	for _, tt := range tests {
		got, changed := Merge(tt.stored, tt.delta)
		if got != tt.want || changed != tt.changed {
			t.Errorf("%s: got %+v/%v, want %+v/%v", tt.name, got, changed, tt.want, tt.changed)
		}
	}
}

func partner(limit int64) *swapv1.Partner {
	return &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: "ns"},
		Spec:       swapv1.PartnerSpec{MonthlyQuoteQuota: limit},
	}
}

func newClient(t *testing.T, funcs *interceptor.Funcs, objs ...client.Object) client.Client {
	t.Helper()
	b := fake.NewClientBuilder().WithScheme(scheme.New()).
		WithObjects(objs...).WithStatusSubresource(&swapv1.Partner{})
	if funcs != nil {
		b = b.WithInterceptorFuncs(*funcs)
	}
	return b.Build()
}

func get(t *testing.T, c client.Client) *swapv1.Partner {
	t.Helper()
	p := &swapv1.Partner{}
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "ns", Name: "acme"}, p); err != nil {
		t.Fatal(err)
	}
	return p
}

// take reserves n quotes and settles them all answered.
func take(t *testing.T, c *Counter, p *swapv1.Partner, n int64, now time.Time) (bool, time.Duration) {
	t.Helper()
	settle, ok, retry, err := c.Reserve(context.Background(), p, n, now)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		settle(n)
	}
	return ok, retry
}

func TestTakeFlushAndRestart(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, nil, partner(3))
	counter := NewCounter(c, c, logr.Discard())

	cached := get(t, c) // what the informer cache showed when the requests came in
	for i := range 3 {
		if ok, _ := take(t, counter, cached, 1, march); !ok {
			t.Fatalf("quote %d refused", i)
		}
	}
	ok, retry := take(t, counter, cached, 1, march)
	if ok || retry != 30*time.Second {
		t.Fatalf("4th quote: ok=%v retry=%v", ok, retry)
	}
	if err := counter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; u == nil || *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 3, Claimed: 3}) {
		t.Fatalf("stored usage %+v", u)
	}
	// The stale cached copy still shows no usage; the counter must not forget what it wrote.
	if ok, _ := take(t, counter, cached, 1, march); ok {
		t.Error("quote allowed after flush against a stale cache")
	}

	// A restarted frontend only has the stored status.
	restarted := NewCounter(c, c, logr.Discard())
	if ok, _ := take(t, restarted, get(t, c), 1, march); ok {
		t.Error("quota forgotten across restart")
	}
	// Next month starts from zero.
	if ok, _ := take(t, restarted, get(t, c), 3, march.Add(time.Minute)); !ok {
		t.Error("quota not reset in April")
	}
	if err := restarted.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-04", Quotes: 3, Claimed: 3}) {
		t.Errorf("April usage %+v", u)
	}
}

func TestUnlimitedStillCounts(t *testing.T) {
	c := newClient(t, nil, partner(0))
	counter := NewCounter(c, c, logr.Discard())
	p := get(t, c)
	for range 5 {
		if ok, _ := take(t, counter, p, 10, march); !ok {
			t.Fatal("unlimited partner refused")
		}
	}
	if got := counter.Used(p, march); got != 50 {
		t.Errorf("used %d", got)
	}
}

func TestFlushRetriesOnConflict(t *testing.T) {
	ctx := context.Background()
	conflicts := 0
	var c client.Client
	c = newClient(t, &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if conflicts == 0 {
				// Another replica flushes 10 quotes between our read and our write.
				conflicts++
				other := get(t, cl)
				other.Status.QuotaUsage = &swapv1.QuotaUsage{Month: "2026-03", Quotes: 10}
				if err := cl.Status().Update(ctx, other); err != nil {
					t.Fatal(err)
				}
			}
			return cl.Status().Patch(ctx, obj, patch, opts...)
		},
	}, partner(100))
	counter := NewCounter(c, c, logr.Discard())
	take(t, counter, get(t, c), 2, march)
	if err := counter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	// The claim conflicted too: decided again on the fresh count, Block(100, 10, 2) = 11.
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 12, Claimed: 21}) {
		t.Errorf("usage %+v: the other replica's count was overwritten", u)
	}
}

func TestFailedFlushIsKept(t *testing.T) {
	ctx := context.Background()
	fail := false
	c := newClient(t, &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if fail {
				return context.DeadlineExceeded
			}
			return cl.Status().Patch(ctx, obj, patch, opts...)
		},
	}, partner(100))
	counter := NewCounter(c, c, logr.Discard())
	take(t, counter, get(t, c), 4, march)
	fail = true
	if err := counter.Flush(ctx); err == nil {
		t.Fatal("flush error swallowed")
	}
	take(t, counter, get(t, c), 1, march)
	fail = false
	if err := counter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; u.Month != "2026-03" || u.Quotes != 5 {
		t.Errorf("usage %+v, want the failed batch kept", u)
	}
}

// TestReserveCountsOnlyAnswered: quotes being answered hold their place under the cap, so
// concurrent requests cannot pass it together; once settled only the answered ones count.
func TestReserveCountsOnlyAnswered(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, nil, partner(3))
	counter := NewCounter(c, c, logr.Discard())
	p := get(t, c)

	settleTwo, ok, _, _ := counter.Reserve(ctx, p, 2, march)
	if !ok {
		t.Fatal("2 of 3 refused")
	}
	if _, ok, _, _ := counter.Reserve(ctx, p, 2, march); ok {
		t.Fatal("2 more admitted while 2 of 3 are held")
	}
	settleTwo(1) // one target failed upstream
	settleTwo(2) // settling again changes nothing
	if got := counter.Used(p, march); got != 1 {
		t.Fatalf("used %d after one answered quote, want 1", got)
	}
	settleTwo, ok, _, _ = counter.Reserve(ctx, p, 2, march)
	if !ok {
		t.Fatal("the unanswered quote was not freed")
	}
	settleTwo(0)
	if err := counter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; u == nil || u.Quotes != 1 {
		t.Fatalf("stored usage %+v, want 1", u)
	}
}

func TestReserveUpToGrantsWhatFits(t *testing.T) {
	ctx := context.Background()
	cl := newClient(t, nil, partner(5))
	c := NewCounter(cl, cl, logr.Discard())
	p := get(t, cl)
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	settle, granted, _, _ := c.ReserveUpTo(ctx, p, 3, now)
	if granted != 3 {
		t.Fatalf("granted %d of 3 with 5 left", granted)
	}
	// 3 held: 2 of 4 fit; the first settles 1 answered, freeing 2.
	second, granted, _, _ := c.ReserveUpTo(ctx, p, 4, now)
	if granted != 2 {
		t.Fatalf("granted %d of 4 with 2 left", granted)
	}
	settle(1)
	second(2)
	if used := c.Used(p, now); used != 3 {
		t.Errorf("used %d, want 3", used)
	}
	if _, granted, wait, _ := c.ReserveUpTo(ctx, p, 9, now); granted != 2 || wait != 0 {
		t.Errorf("granted %d (wait %v) with 2 left", granted, wait)
	}
	if s, granted, wait, _ := c.ReserveUpTo(ctx, p, 1, now); granted != 0 || s != nil || wait != UntilNextMonth(now) {
		t.Errorf("over the cap: granted %d, wait %v", granted, wait)
	}
}

// TestBlocksGoBack: a block not spent from since the last flush goes back to the cap, all of
// them on Release; a claim that cannot be written is an error, never "over the cap".
func TestBlocksGoBack(t *testing.T) {
	ctx := context.Background()
	down := false
	c := newClient(t, &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if down {
				return context.DeadlineExceeded
			}
			return cl.Status().Patch(ctx, obj, patch, opts...)
		},
	}, partner(1000))
	counter := NewCounter(c, c, logr.Discard())
	take(t, counter, get(t, c), 1, march) // claims Block(1000, 0, 1) = 100
	if u := get(t, c).Status.QuotaUsage; u.Claimed != 100 {
		t.Fatalf("claimed %d, want a block of 100", u.Claimed)
	}
	if err := counter.Flush(ctx); err != nil { // spent from since: kept
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 1, Claimed: 100}) {
		t.Fatalf("after a busy flush %+v", u)
	}
	if err := counter.Flush(ctx); err != nil { // idle: given back
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 1, Claimed: 1}) {
		t.Fatalf("after an idle flush %+v", u)
	}
	take(t, counter, get(t, c), 2, march) // claims Block(1000, 1, 2) = 100 again
	if err := counter.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 3, Claimed: 3}) {
		t.Fatalf("after Release %+v", u)
	}

	down = true
	settle, ok, _, err := counter.Reserve(ctx, get(t, c), 1, march)
	if err == nil || ok || settle != nil {
		t.Fatalf("claim against an unreachable API server: ok=%v err=%v", ok, err)
	}
}

// TestTierCap: the cap a request carries (its tier's when the Partner sets none) is the one
// claims are measured against, not the stored spec.
func TestTierCap(t *testing.T) {
	c := newClient(t, nil, partner(0))
	counter := NewCounter(c, c, logr.Discard())
	p := get(t, c)
	p.Spec.MonthlyQuoteQuota = 2 // as the frontend's withTierLimits hands it over
	for i := range 2 {
		if ok, _ := take(t, counter, p, 1, march); !ok {
			t.Fatalf("quote %d of the tier's 2 refused", i)
		}
	}
	if ok, _ := take(t, counter, p, 1, march); ok {
		t.Fatal("a third quote past the tier's cap of 2")
	}
}

// lostAnswer applies a status patch and then reports failure, as a real client does when its
// context ends or the connection drops after the API server committed the write.
func lostAnswer(lose func(ctx context.Context) error) *interceptor.Funcs {
	return &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, cl client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if err := cl.Status().Patch(ctx, obj, patch, opts...); err != nil {
				return err
			}
			return lose(ctx)
		},
	}
}

// TestShutdownDoesNotCutAFlush: the flush under way when Run's context ends still finishes,
// so the final Release does not send its batch a second time.
func TestShutdownDoesNotCutAFlush(t *testing.T) {
	flushing, shutDown := make(chan struct{}), make(chan struct{})
	var once sync.Once
	writes := 0
	c := newClient(t, lostAnswer(func(ctx context.Context) error {
		if writes++; writes == 2 { // the claim is the first write, the periodic flush the second
			once.Do(func() { close(flushing) })
			<-shutDown
		}
		return ctx.Err()
	}), partner(100))
	counter := NewCounter(c, c, logr.Discard())
	take(t, counter, get(t, c), 5, march)

	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() { defer close(ran); counter.Run(ctx, time.Millisecond) }()
	<-flushing
	cancel()
	close(shutDown)
	<-ran
	if err := counter.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 5, Claimed: 5}) {
		t.Fatalf("usage %+v after shutdown, want the 5 answered quotes counted once", u)
	}
}

// TestLostAnswerNeverGivesBackTwice: a flush whose answer was lost may have been applied, so
// its given-back block is not sent again (that could let the replicas pass the cap); its
// quotes are (counted twice at worst).
func TestLostAnswerNeverGivesBackTwice(t *testing.T) {
	ctx := context.Background()
	lose := false
	c := newClient(t, lostAnswer(func(context.Context) error {
		if lose {
			return io.ErrUnexpectedEOF
		}
		return nil
	}), partner(1000))
	counter := NewCounter(c, c, logr.Discard())
	take(t, counter, get(t, c), 2, march) // claims a block of 100
	lose = true
	if err := counter.Release(ctx); err == nil {
		t.Fatal("lost answer swallowed")
	}
	lose = false
	if err := counter.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if u := get(t, c).Status.QuotaUsage; *u != (swapv1.QuotaUsage{Month: "2026-03", Quotes: 4, Claimed: 2}) {
		t.Fatalf("usage %+v, want the 98 given back once and the 2 quotes sent again", u)
	}
}

func TestRejected(t *testing.T) {
	gr := schema.GroupResource{Group: "swaprouter.io", Resource: "partners"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewConflict(gr, "acme", errors.New("changed")), true},
		{apierrors.NewNotFound(gr, "acme"), true},
		{apierrors.NewTooManyRequests("busy", 1), true},
		{apierrors.NewTimeoutError("slow", 1), false},
		{apierrors.NewInternalError(errors.New("etcd")), false},
		{context.Canceled, false},
		{io.ErrUnexpectedEOF, false},
	} {
		if got := rejected(tc.err); got != tc.want {
			t.Errorf("rejected(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
