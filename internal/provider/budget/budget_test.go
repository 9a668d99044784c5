package budget

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/provider"
)

// counting answers every call and counts the ones that reached it.
type counting struct {
	id    swapv1.ProviderID
	calls int
}

func (c *counting) ID() swapv1.ProviderID  { return c.id }
func (c *counting) IdempotentCreate() bool { return false }
func (c *counting) Assets(context.Context) ([]provider.Asset, error) {
	c.calls++
	return nil, nil
}
func (c *counting) Quote(context.Context, provider.QuoteRequest) (provider.Quote, error) {
	c.calls++
	return provider.Quote{}, nil
}
func (c *counting) CreateDeposit(context.Context, provider.DepositRequest) (provider.Deposit, error) {
	c.calls++
	return provider.Deposit{}, nil
}
func (c *counting) Status(context.Context, provider.OrderRef) (provider.Status, error) {
	c.calls++
	return provider.Status{}, nil
}
func (c *counting) SubmitDeposit(context.Context, provider.OrderRef, swapv1.DepositHint) error {
	c.calls++
	return nil
}

func TestQuotesAndOrderCallsShareOneBudget(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := New(prometheus.NewRegistry())
	b.Now = func() time.Time { return now }
	b.Set(swapv1.ProviderRouteA, Limit{Rate: 2, Burst: 2})
	a := &counting{id: swapv1.ProviderRouteA}
	other := &counting{id: swapv1.ProviderRouteB}
	ga, gb := Guard(a, b), Guard(other, b)
	ctx := context.Background()

	if _, err := ga.Status(ctx, provider.OrderRef{}); err != nil {
		t.Fatalf("first call: %v", err)
	}
	if _, err := ga.Quote(ctx, provider.QuoteRequest{}); err != nil {
		t.Fatalf("second call (burst 2): %v", err)
	}
	_, err := ga.Quote(ctx, provider.QuoteRequest{})
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.KindUnavailable || !errors.Is(err, ErrExhausted) {
		t.Fatalf("third call: got %v, want KindUnavailable caused by ErrExhausted", err)
	}
	if pe.RetryAfter != 500*time.Millisecond {
		t.Errorf("RetryAfter = %s, want the next token's 500ms", pe.RetryAfter)
	}
	if a.calls != 2 {
		t.Errorf("the provider saw %d calls, want 2", a.calls)
	}
	if got := testutil.ToFloat64(b.throttled.WithLabelValues(string(swapv1.ProviderRouteA), "quote")); got != 1 {
		t.Errorf("throttled{route_A,quote} = %v, want 1", got)
	}
	if _, err := ga.Assets(ctx); err != nil {
		t.Errorf("the asset probe must never be refused: %v", err)
	}
	if _, err := gb.Quote(ctx, provider.QuoteRequest{}); err != nil {
		t.Errorf("a provider without a budget was refused: %v", err)
	}

	now = now.Add(500 * time.Millisecond)
	if err := ga.SubmitDeposit(ctx, provider.OrderRef{}, swapv1.DepositHint{}); err != nil {
		t.Errorf("the refilled token was refused: %v", err)
	}
}

func TestSetKeepsTokensUnlessTheLimitChanges(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := New(nil)
	b.Now = func() time.Time { return now }
	l := Limit{Rate: 1, Burst: 1}
	b.Set(swapv1.ProviderRouteA, l)
	if ok, _ := b.take(swapv1.ProviderRouteA); !ok {
		t.Fatal("first token refused")
	}
	// The adapter is rebuilt on every refresh: the spent token must not come back.
	b.Set(swapv1.ProviderRouteA, l)
	if ok, _ := b.take(swapv1.ProviderRouteA); ok {
		t.Fatal("re-setting the same limit refilled the bucket")
	}
	b.Set(swapv1.ProviderRouteA, Limit{})
	if ok, _ := b.take(swapv1.ProviderRouteA); !ok {
		t.Fatal("a removed budget still refuses calls")
	}
}

func TestLimitOf(t *testing.T) {
	for _, tc := range []struct {
		in   *swapv1.ProviderCallBudget
		want Limit
	}{
		{nil, Limit{}},
		{&swapv1.ProviderCallBudget{RequestsPerSecond: 50, Burst: 100}, Limit{Rate: 50, Burst: 100}},
		{&swapv1.ProviderCallBudget{RequestsPerSecond: 5}, Limit{Rate: 5, Burst: 1}},
	} {
		if got := LimitOf(tc.in); got != tc.want {
			t.Errorf("LimitOf(%+v) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}
