package keyuse

import (
	"context"
	"errors"
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

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func TestDue(t *testing.T) {
	at := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(d)} }
	for _, tc := range []struct {
		name     string
		recorded *metav1.Time
		noted    time.Time
		want     bool
	}{
		{"never used", nil, time.Time{}, true},
		{"recorded a moment ago", at(-time.Minute), time.Time{}, false},
		{"recorded long ago", at(-Resolution), time.Time{}, true},
		{"noted here, not yet in the cache", nil, now.Add(-time.Minute), false},
		{"recorded long ago, noted here since", at(-time.Hour), now.Add(-time.Minute), false},
		{"both long ago", at(-time.Hour), now.Add(-Resolution), true},
	} {
		if got := Due(tc.recorded, tc.noted, now); got != tc.want {
			t.Errorf("%s: Due = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func partner(name string, lastUsed map[string]metav1.Time) *swapv1.Partner {
	return &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "swap"},
		Spec:       swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{{ID: "key_a"}, {ID: "key_b"}}},
		Status:     swapv1.PartnerStatus{KeysLastUsed: lastUsed},
	}
}

func lastUsed(t *testing.T, c client.Client, name string) map[string]metav1.Time {
	t.Helper()
	var p swapv1.Partner
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: "swap", Name: name}, &p); err != nil {
		t.Fatal(err)
	}
	return p.Status.KeysLastUsed
}

func TestRecorderWritesOncePerResolution(t *testing.T) {
	ctx := context.Background()
	old := metav1.Time{Time: now.Add(-time.Hour)}
	acme := partner("acme", map[string]metav1.Time{"key_b": old})
	patches := 0
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithStatusSubresource(&swapv1.Partner{}).WithObjects(acme).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	r := NewRecorder(c, logr.Discard())

	for i := range 100 {
		r.Used(acme, "key_a", now.Add(time.Duration(i)*time.Second))
	}
	must(t, r.Flush(ctx))
	got := lastUsed(t, c, "acme")
	if !got["key_a"].Time.Equal(now) || !got["key_b"].Time.Equal(old.Time) {
		t.Errorf("last used %v, want key_a at %s and key_b untouched", got, now)
	}
	if patches != 1 {
		t.Errorf("%d writes for 100 uses, want 1", patches)
	}

	// The cache shows the record: further uses within the resolution write nothing; a use
	// after it writes again.
	cached := partner("acme", got)
	r.Used(cached, "key_a", now.Add(Resolution-time.Second))
	must(t, r.Flush(ctx))
	if patches != 1 {
		t.Errorf("a use within the resolution was written")
	}
	r.Used(cached, "key_a", now.Add(Resolution))
	must(t, r.Flush(ctx))
	if got := lastUsed(t, c, "acme")["key_a"]; !got.Time.Equal(now.Add(Resolution)) {
		t.Errorf("key_a last used %s, want %s", got, now.Add(Resolution))
	}
}

func TestRecorderKeepsWhatFailedAndDropsWhatWasRefused(t *testing.T) {
	ctx := context.Background()
	acme := partner("acme", nil)
	fail := errors.New("connection reset")
	c := fake.NewClientBuilder().WithScheme(scheme.New()).WithStatusSubresource(&swapv1.Partner{}).WithObjects(acme).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			if fail != nil {
				return fail
			}
			return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
		}}).Build()
	r := NewRecorder(c, logr.Discard())

	r.Used(acme, "key_a", now)
	if err := r.Flush(ctx); err == nil {
		t.Fatal("a failed write was not reported")
	}
	fail = nil
	must(t, r.Flush(ctx))
	if got := lastUsed(t, c, "acme"); len(got) != 1 {
		t.Errorf("last used %v after the retry, want key_a's", got)
	}

	// The policy refuses a record of a key the Partner no longer lists: dropped, not retried.
	fail = apierrors.NewForbidden(schema.GroupResource{Group: "swap.swaprouter.dev", Resource: "partners"}, "acme", errors.New("revoked"))
	r.Used(acme, "key_b", now)
	must(t, r.Flush(ctx))
	fail = nil
	must(t, r.Flush(ctx))
	if got := lastUsed(t, c, "acme"); len(got) != 1 {
		t.Errorf("last used %v, want the refused record dropped", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
