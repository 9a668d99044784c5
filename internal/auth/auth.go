// Package auth authenticates partner API keys (X-Key-Id + Authorization: Bearer) against the
// Partner resources and the Secrets holding the SHA-256 of each key's secret, and decides
// whether a request's Origin is allowed.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/index"
)

// HeaderKeyID carries the key id.
const HeaderKeyID = "X-Key-Id"

// ErrUnauthorized is the single answer for a missing, unknown, wrong or expired key: the
// caller must not learn which one it was.
var ErrUnauthorized = errors.New("unauthorized")

// Principal is an authenticated caller.
type Principal struct {
	// Partner is the caller's Partner as the cache holds it; do not modify.
	Partner *swapv1.Partner
	KeyID   string
}

// Authenticator checks keys against Partners and Secrets read through reader, normally the
// manager's cache-backed client with the index.PartnerKeyID index.
type Authenticator struct {
	reader    client.Reader
	namespace string
	now       func() time.Time
}

// NewAuthenticator returns an Authenticator for the Partners of namespace.
func NewAuthenticator(reader client.Reader, namespace string, now func() time.Time) *Authenticator {
	if now == nil {
		now = time.Now
	}
	return &Authenticator{reader: reader, namespace: namespace, now: now}
}

// dummyHash is compared against when there is nothing real to compare against, so unknown key
// ids cost the same hashing and comparing as known ones.
var dummyHash = HashSecret("swaprouter: no such key")

// Authenticate returns the caller of a request with the given X-Key-Id and Authorization
// header values. Every rejection is ErrUnauthorized; other errors are failures to read.
func (a *Authenticator) Authenticate(ctx context.Context, keyID, authorization string) (*Principal, error) {
	secret, hasSecret := bearer(authorization)
	partner, key, err := a.findKey(ctx, keyID)
	if err != nil {
		return nil, err
	}
	stored := dummyHash
	if key != nil {
		if stored, err = a.storedHash(ctx, key.SecretRef); err != nil {
			return nil, err
		}
	}
	// Hash and compare on every path; only then look at why it might fail.
	match := subtle.ConstantTimeCompare([]byte(HashSecret(secret)), []byte(stored)) == 1
	if !match || !hasSecret || key == nil || stored == dummyHash || expired(key, a.now()) {
		return nil, ErrUnauthorized
	}
	return &Principal{Partner: partner, KeyID: key.ID}, nil
}

// Holder returns the caller of a key authenticated earlier (a token the service issued names
// it): ErrUnauthorized once the key is gone or expired, so revoking a key ends its tokens too.
func (a *Authenticator) Holder(ctx context.Context, keyID string) (*Principal, error) {
	partner, key, err := a.findKey(ctx, keyID)
	if err != nil {
		return nil, err
	}
	if key == nil || expired(key, a.now()) {
		return nil, ErrUnauthorized
	}
	return &Principal{Partner: partner, KeyID: key.ID}, nil
}

// findKey looks the key id up through the index; nil without error when nobody owns it.
func (a *Authenticator) findKey(ctx context.Context, keyID string) (*swapv1.Partner, *swapv1.PartnerKey, error) {
	if keyID == "" || len(keyID) > 64 {
		return nil, nil, nil
	}
	// Every request authenticates: the cache's own objects, read only (Principal says so),
	// instead of a deep copy of the Partner and its Secret per request.
	var partners swapv1.PartnerList
	if err := a.reader.List(ctx, &partners, client.InNamespace(a.namespace),
		client.MatchingFields{index.PartnerKeyID: keyID}, client.UnsafeDisableDeepCopy); err != nil {
		return nil, nil, fmt.Errorf("listing partners by key id: %w", err)
	}
	// Two partners claiming one key id is a misconfiguration; trust neither.
	if len(partners.Items) != 1 {
		return nil, nil, nil
	}
	p := &partners.Items[0]
	for i := range p.Spec.Keys {
		if p.Spec.Keys[i].ID == keyID {
			return p, &p.Spec.Keys[i], nil
		}
	}
	return nil, nil, nil
}

// storedHash reads the hex hash a key's Secret holds; dummyHash when it is missing or empty, so
// a key whose Secret was deleted simply stops working.
func (a *Authenticator) storedHash(ctx context.Context, ref swapv1.SecretKeyRef) (string, error) {
	var s corev1.Secret
	err := a.reader.Get(ctx, client.ObjectKey{Namespace: a.namespace, Name: ref.Name}, &s, client.UnsafeDisableDeepCopy)
	if apierrors.IsNotFound(err) {
		return dummyHash, nil
	}
	if err != nil {
		return "", fmt.Errorf("reading key secret: %w", err)
	}
	h := strings.ToLower(strings.TrimSpace(string(s.Data[ref.Key])))
	if h == "" {
		return dummyHash, nil
	}
	return h, nil
}

// HashSecret is what a key's Secret stores: the lowercase hex SHA-256 of the API secret.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// bearer extracts the token of an "Authorization: Bearer <token>" header value.
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// expired reports whether key is past its expiry at now.
func expired(key *swapv1.PartnerKey, now time.Time) bool {
	return key.ExpiresAt != nil && !now.Before(key.ExpiresAt.Time)
}
