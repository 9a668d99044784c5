package auth

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/index"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

const ns = "swap"

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newFakeClient(objs ...client.Object) client.Client {
	b := fake.NewClientBuilder().WithScheme(scheme.New()).WithObjects(objs...).WithStatusSubresource(&swapv1.Partner{})
	index.Each(func(obj client.Object, field string, fn client.IndexerFunc) { b.WithIndex(obj, field, fn) })
	return b.Build()
}

func keySecret(name, secret string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Data:       map[string][]byte{"hash": []byte(HashSecret(secret) + "\n")},
	}
}

func partnerWithKeys(name string, keys ...swapv1.PartnerKey) *swapv1.Partner {
	return &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: swapv1.PartnerSpec{Keys: keys}}
}

func key(id, secretName string, expires *time.Time) swapv1.PartnerKey {
	k := swapv1.PartnerKey{ID: id, SecretRef: swapv1.SecretKeyRef{Name: secretName, Key: "hash"}}
	if expires != nil {
		k.ExpiresAt = &metav1.Time{Time: *expires}
	}
	return k
}

func TestAuthenticate(t *testing.T) {
	past, future := now.Add(-time.Minute), now.Add(time.Hour)
	c := newFakeClient(
		partnerWithKeys("acme",
			key("acme-live", "acme-live", &future),
			key("acme-old", "acme-old", &past),
			key("acme-nosecret", "missing", nil),
			key("shared-id", "acme-shared", nil)),
		partnerWithKeys("evil", key("shared-id", "evil-shared", nil)),
		keySecret("acme-live", "s3cret"), keySecret("acme-old", "s3cret"),
		keySecret("acme-shared", "s3cret"), keySecret("evil-shared", "s3cret"),
	)
	a := NewAuthenticator(c, ns, func() time.Time { return now })

	tests := []struct {
		name, keyID, authz string
		ok                 bool
	}{
		{"valid", "acme-live", "Bearer s3cret", true},
		{"scheme is case-insensitive", "acme-live", "bearer  s3cret ", true},
		{"wrong secret", "acme-live", "Bearer s3cret2", false},
		{"unknown key id", "nobody", "Bearer s3cret", false},
		{"no key id", "", "Bearer s3cret", false},
		{"no authorization", "acme-live", "", false},
		{"basic scheme", "acme-live", "Basic s3cret", false},
		{"empty bearer", "acme-live", "Bearer ", false},
		{"expired key", "acme-old", "Bearer s3cret", false},
		{"secret missing", "acme-nosecret", "Bearer s3cret", false},
		{"key id claimed twice", "shared-id", "Bearer s3cret", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := a.Authenticate(context.Background(), tt.keyID, tt.authz)
			if tt.ok {
				if err != nil || p.Partner.Name != "acme" || p.KeyID != tt.keyID {
					t.Fatalf("got %+v, %v", p, err)
				}
				return
			}
			if !errors.Is(err, ErrUnauthorized) || p != nil {
				t.Fatalf("got %+v, %v; want ErrUnauthorized", p, err)
			}
		})
	}
}

func TestOriginAllowed(t *testing.T) {
	open := &swapv1.Partner{Spec: swapv1.PartnerSpec{AllowedOrigins: []string{"https://app.example.com", "http://localhost:3000/"}}}
	strict := open.DeepCopy()
	strict.Spec.RequireOrigin = true
	tests := []struct {
		name   string
		p      *swapv1.Partner
		origin string
		want   bool
	}{
		{"no origin, server to server", open, "", true},
		{"no origin, origin required", strict, "", false},
		{"listed", open, "https://app.example.com", true},
		{"listed, different case", open, "HTTPS://App.Example.com", true},
		{"listed with trailing slash in spec", open, "http://localhost:3000", true},
		{"other port", open, "http://localhost:3001", false},
		{"other scheme", open, "http://app.example.com", false},
		{"suffix trick", open, "https://app.example.com.evil.io", false},
		{"null origin", strict, "null", false},
	}
	for _, tt := range tests {
		if got := OriginAllowed(tt.p, tt.origin); got != tt.want {
			t.Errorf("%s: OriginAllowed(%q) = %v", tt.name, tt.origin, got)
		}
	}
	partners := []swapv1.Partner{{}, *open}
	if !AnyPartnerAllows(partners, "https://app.example.com") || AnyPartnerAllows(partners, "https://x.io") || AnyPartnerAllows(partners, "") {
		t.Error("AnyPartnerAllows")
	}
}

func TestBearer(t *testing.T) {
	tests := map[string]struct {
		token string
		ok    bool
	}{
		"Bearer abc": {"abc", true}, "BEARER abc": {"abc", true}, " Bearer  abc ": {"abc", true},
		"Bearer": {"", false}, "Token abc": {"", false}, "": {"", false}, "Bearer a b": {"a b", true},
	}
	for in, want := range tests {
		token, ok := bearer(in)
		if token != want.token || ok != want.ok {
			t.Errorf("bearer(%q) = %q, %v", in, token, ok)
		}
	}
}
