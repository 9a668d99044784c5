package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// FuzzAuthenticate: whatever X-Key-Id and Authorization carry, Authenticate lets in only the
// live key with its own secret, answers every refusal with ErrUnauthorized (nothing that tells
// the cases apart), and never an expired key, a key without a stored hash, a key id two
// partners claim or another key's secret.
func FuzzAuthenticate(f *testing.F) {
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	c := newFakeClient(
		partnerWithKeys("acme",
			key("acme-live", "acme-live", &future),
			key("acme-old", "acme-old", &past),
			key("acme-nosecret", "missing", nil),
			key("shared-id", "acme-shared", nil)),
		partnerWithKeys("evil", key("shared-id", "evil-shared", nil), key("evil-live", "evil-live", nil)),
		keySecret("acme-live", "s3cret"), keySecret("acme-old", "s3cret"),
		keySecret("acme-shared", "s3cret"), keySecret("evil-shared", "s3cret"), keySecret("evil-live", "ev1l"),
	)
	a := NewAuthenticator(c, ns, func() time.Time { return now })
	for _, seed := range [][2]string{
		{"acme-live", "Bearer s3cret"}, {"acme-live", "bearer s3cret"}, {"acme-live", "  BEARER   s3cret  "},
		{"acme-live", "Bearer ev1l"}, {"evil-live", "Bearer s3cret"}, {"acme-old", "Bearer s3cret"},
		{"acme-nosecret", "Bearer "}, {"shared-id", "Bearer s3cret"}, {"", ""}, {"acme-live", "s3cret"},
		{"acme-live", "Bearer\ts3cret"}, {"acme-live", "Basic s3cret"}, {"acme-live", "Bearer s3cret x"},
		{"ACME-LIVE", "Bearer s3cret"}, {"acme-live ", "Bearer s3cret"}, {strings.Repeat("a", 65), "Bearer s3cret"},
		{"acme-live", "Bearer " + HashSecret("s3cret")},
	} {
		f.Add(seed[0], seed[1])
	}
	secrets := map[string]string{"acme-live": "s3cret", "evil-live": "ev1l"}
	f.Fuzz(func(t *testing.T, keyID, authorization string) {
		p, err := a.Authenticate(context.Background(), keyID, authorization)
		if err != nil {
			if !errors.Is(err, ErrUnauthorized) || err.Error() != ErrUnauthorized.Error() {
				t.Fatalf("Authenticate(%q, %q) failed with %v, want the plain ErrUnauthorized", keyID, authorization, err)
			}
			if p != nil {
				t.Fatalf("a refusal returned a principal")
			}
			if want, live := secrets[keyID]; live && authorization == "Bearer "+want {
				t.Fatalf("the live key %q with its secret was refused", keyID)
			}
			return
		}
		want, live := secrets[keyID]
		fields := strings.Fields(authorization)
		if !live || len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") || fields[1] != want {
			t.Fatalf("Authenticate let in X-Key-Id %q with Authorization %q", keyID, authorization)
		}
		if p.KeyID != keyID || p.Partner == nil || !hasKey(p.Partner, keyID) {
			t.Fatalf("principal %+v does not own key %q", p, keyID)
		}
	})
}

func hasKey(p *swapv1.Partner, id string) bool {
	for _, k := range p.Spec.Keys {
		if k.ID == id {
			return true
		}
	}
	return false
}
