package auth

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

const (
	// FrontendSecret is the one Secret of the service's namespace the frontend may read (its
	// cache and its RBAC name it): the hashes of the partners' API keys, under their key ids,
	// and the providers' API tokens the frontend quotes with. Webhook signing secrets and
	// everything else stay out of it and out of the frontend's reach.
	FrontendSecret = "swaprouter-frontend-credentials"
	// SecretHashKey is the data key of the per-key Secrets earlier versions made.
	SecretHashKey = "sha256"
	// MaxLiveKeys is how many unexpired keys a partner keeps: the current one and the next,
	// so a partner can roll its integration over without downtime.
	MaxLiveKeys = 2

	// managedByLabel marks the per-key Secrets earlier versions made; only those are deleted
	// when their key is retired, never a Secret someone declared in git.
	managedByLabel = "app.kubernetes.io/managed-by"
	managedByValue = "swaprouter-keys"
	// PartnerLabel names the partner an object (an order) belongs to.
	PartnerLabel = "swap.swaprouter.dev/partner"
)

var keyIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// CreateKey makes a new API key for partner: a random secret, its SHA-256 stored under the
// key id in FrontendSecret (created when missing), and the key appended to the Partner. When
// the partner already has MaxLiveKeys live keys the oldest live ones are retired (their
// hashes removed, when CreateKey stored them) so that, with the new key, MaxLiveKeys remain;
// expired keys are pruned. The secret is returned once and stored nowhere.
func CreateKey(ctx context.Context, c client.Client, namespace, partner string) (keyID, secret string, err error) {
	var p swapv1.Partner
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: partner}, &p); err != nil {
		return "", "", fmt.Errorf("partner %s/%s: %w", namespace, partner, err)
	}
	keyID, secret = newKeyID(), newSecret()
	if err := setHash(ctx, c, namespace, keyID, HashSecret(secret)); err != nil {
		return "", "", fmt.Errorf("storing the key's hash: %w", err)
	}

	var retired []swapv1.PartnerKey
	err = retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(&p), &p); err != nil {
			return err
		}
		var kept []swapv1.PartnerKey
		kept, retired = Rotate(p.Spec.Keys, time.Now())
		p.Spec.Keys = append(kept, swapv1.PartnerKey{
			ID:        keyID,
			SecretRef: swapv1.SecretKeyRef{Name: FrontendSecret, Key: keyID},
		})
		return c.Update(ctx, &p)
	})
	if err != nil {
		_ = setHash(ctx, c, namespace, keyID, "") // nothing points at it; do not leave it behind
		return "", "", fmt.Errorf("adding key to partner %s: %w", partner, err)
	}
	for _, k := range retired {
		forgetHash(ctx, c, namespace, k)
	}
	return keyID, secret, nil
}

// setHash stores hash under keyID in FrontendSecret, creating the Secret when missing; an
// empty hash removes the entry.
func setHash(ctx context.Context, c client.Client, namespace, keyID, hash string) error {
	return retry.OnError(retry.DefaultBackoff, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		var s corev1.Secret
		err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: FrontendSecret}, &s)
		switch {
		case apierrors.IsNotFound(err) && hash != "":
			s = corev1.Secret{
				ObjectMeta: metav1.ObjectMeta{Name: FrontendSecret, Namespace: namespace},
				Type:       corev1.SecretTypeOpaque,
				Data:       map[string][]byte{keyID: []byte(hash)},
			}
			return c.Create(ctx, &s)
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		}
		if hash == "" {
			if _, ok := s.Data[keyID]; !ok {
				return nil
			}
			delete(s.Data, keyID)
		} else {
			if s.Data == nil {
				s.Data = map[string][]byte{}
			}
			s.Data[keyID] = []byte(hash)
		}
		return c.Update(ctx, &s)
	})
}

// Rotate splits keys into those kept next to one new key and those retired: expired keys go,
// and of the live ones only the newest MaxLiveKeys-1 stay (keys are appended, so the last are
// the newest).
func Rotate(keys []swapv1.PartnerKey, now time.Time) (kept, retired []swapv1.PartnerKey) {
	var live []swapv1.PartnerKey
	for _, k := range keys {
		if expired(&k, now) {
			retired = append(retired, k)
		} else {
			live = append(live, k)
		}
	}
	if drop := len(live) - (MaxLiveKeys - 1); drop > 0 {
		retired = append(retired, live[:drop]...)
		live = live[drop:]
	}
	return live, retired
}

// forgetHash removes a retired key's hash: its entry in FrontendSecret when CreateKey stored
// it there, or the per-key Secret an earlier version made. Failing here only leaves an
// unreferenced hash behind, so errors are ignored.
func forgetHash(ctx context.Context, c client.Client, namespace string, k swapv1.PartnerKey) {
	if k.SecretRef.Name == FrontendSecret && k.SecretRef.Key == k.ID {
		_ = setHash(ctx, c, namespace, k.ID, "")
		return
	}
	var s corev1.Secret
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: k.SecretRef.Name}, &s); err != nil {
		return
	}
	if s.Labels[managedByLabel] != managedByValue {
		return
	}
	_ = c.Delete(ctx, &s, client.Preconditions{UID: &s.UID})
}

// newKeyID is "key_" and 20 base32 characters (100 random bits): not secret, but unguessable
// so key ids do not enumerate partners.
func newKeyID() string {
	return "key_" + keyIDEncoding.EncodeToString(randomBytes(13))[:20]
}

// newSecret is "sk_" and 256 random bits, URL-safe so it fits any header or env file.
func newSecret() string {
	return "sk_" + base64.RawURLEncoding.EncodeToString(randomBytes(32))
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("auth: crypto/rand failed: " + err.Error())
	}
	return b
}
