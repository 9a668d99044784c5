package auth

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

const (
	// SecretHashKey is the data key of a key Secret made by CreateKey.
	SecretHashKey = "sha256"
	// MaxLiveKeys is how many unexpired keys a partner keeps: the current one and the next,
	// so a partner can roll its integration over without downtime.
	MaxLiveKeys = 2

	// managedByLabel marks Secrets CreateKey made; only those are deleted when their key is
	// retired, never a Secret someone declared in git.
	managedByLabel = "app.kubernetes.io/managed-by"
	managedByValue = "swaprouter-keys"
	// PartnerLabel names the partner a key Secret belongs to.
	PartnerLabel = "swap.swaprouter.dev/partner"
)

var keyIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// CreateKey makes a new API key for partner: a random secret, a Secret in namespace holding
// only its SHA-256, and the key appended to the Partner. When the partner already has
// MaxLiveKeys live keys the oldest live ones are retired (removed with their Secrets, when
// CreateKey made them) so that, with the new key, MaxLiveKeys remain; expired keys are pruned.
// The secret is returned once and stored nowhere.
func CreateKey(ctx context.Context, c client.Client, namespace, partner string) (keyID, secret string, err error) {
	var p swapv1.Partner
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: partner}, &p); err != nil {
		return "", "", fmt.Errorf("partner %s/%s: %w", namespace, partner, err)
	}
	keyID, secret = newKeyID(), newSecret()

	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      SecretName(keyID),
			Namespace: namespace,
			Labels:    map[string]string{managedByLabel: managedByValue},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: swapv1.GroupVersion.String(), Kind: "Partner", Name: p.Name, UID: p.UID,
			}},
		},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{SecretHashKey: []byte(HashSecret(secret))},
	}
	if len(partner) <= 63 {
		s.Labels[PartnerLabel] = partner
	}
	if err := c.Create(ctx, s); err != nil {
		return "", "", fmt.Errorf("creating key secret: %w", err)
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
			SecretRef: swapv1.SecretKeyRef{Name: s.Name, Key: SecretHashKey},
		})
		return c.Update(ctx, &p)
	})
	if err != nil {
		_ = c.Delete(ctx, s) // nothing points at it; do not leave it behind
		return "", "", fmt.Errorf("adding key to partner %s: %w", partner, err)
	}
	for _, k := range retired {
		deleteManagedSecret(ctx, c, namespace, k.SecretRef.Name)
	}
	return keyID, secret, nil
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

// deleteManagedSecret removes a retired key's Secret when CreateKey made it. Failing here only
// leaves an unreferenced hash behind, so errors are ignored.
func deleteManagedSecret(ctx context.Context, c client.Client, namespace, name string) {
	var s corev1.Secret
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, &s); err != nil {
		return
	}
	if s.Labels[managedByLabel] != managedByValue {
		return
	}
	_ = c.Delete(ctx, &s, client.Preconditions{UID: &s.UID})
}

// SecretName is the name of the Secret CreateKey makes for keyID.
func SecretName(keyID string) string {
	return "swaprouter-apikey-" + strings.ReplaceAll(strings.ToLower(keyID), "_", "-")
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
