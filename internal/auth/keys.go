package auth

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
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
	// MaxLiveKeys is how many unexpired keys a partner may hold: the current one and the next,
	// so a partner can roll its integration over without downtime. During a rotation's grace
	// period the retiring key is one more.
	MaxLiveKeys = 2
	// DefaultRotationGrace is how long `swaprouter keys rotate` keeps the retired key working
	// beside its successor: a day to roll the new secret out everywhere.
	DefaultRotationGrace = 24 * time.Hour

	// managedByLabel marks the per-key Secrets earlier versions made; only those are deleted
	// when their key is retired, never a Secret someone declared in git.
	managedByLabel = "app.kubernetes.io/managed-by"
	managedByValue = "swaprouter-keys"
	// PartnerLabel names the partner an object (an order) belongs to.
	PartnerLabel = "swap.swaprouter.dev/partner"
)

var keyIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// CreateKey makes a new API key for partner: a random secret, its SHA-256 stored under the
// key id in FrontendSecret (created when missing), and the key appended to the Partner with its
// creation time. It refuses (a *KeyRefusal) when the partner already has MaxLiveKeys live keys,
// and never retires one; expired keys are pruned. The secret is returned once and stored nowhere.
func CreateKey(ctx context.Context, c client.Client, namespace, partner string) (keyID, secret string, err error) {
	k, err := addKey(ctx, c, namespace, partner, func(keys []swapv1.PartnerKey, added swapv1.PartnerKey, now time.Time) (KeyPlan, error) {
		return PlanCreate(partner, keys, added, now)
	})
	return k.ID, k.Secret, err
}

// NewKey is a key CreateKey or RotateKey made; Secret is shown once and stored nowhere.
type NewKey struct {
	ID, Secret string
	// Retiring is the key a rotation retires, with the end of its grace period.
	Retiring *swapv1.PartnerKey
}

// RotateKey makes a new key for partner, as CreateKey, and makes the key named retire (empty:
// the oldest live one not already retiring) expire after grace; until then both authenticate.
func RotateKey(ctx context.Context, c client.Client, namespace, partner, retire string, grace time.Duration) (NewKey, error) {
	return addKey(ctx, c, namespace, partner, func(keys []swapv1.PartnerKey, added swapv1.PartnerKey, now time.Time) (KeyPlan, error) {
		return PlanRotate(partner, keys, retire, added, now, grace)
	})
}

// RevokeKey removes the key keyID from its partner (partner empty: whichever Partner of the
// namespace lists it) and its hash, so it stops authenticating as soon as each frontend
// replica's cache has the change. It returns the partner's name.
func RevokeKey(ctx context.Context, c client.Client, namespace, partner, keyID string) (string, error) {
	if partner == "" {
		var err error
		if partner, err = ownerOf(ctx, c, namespace, keyID); err != nil {
			return "", err
		}
	}
	_, err := changeKeys(ctx, c, namespace, partner, func(keys []swapv1.PartnerKey, _ time.Time) (KeyPlan, error) {
		return PlanRevoke(partner, keys, keyID)
	})
	return partner, err
}

// ownerOf finds the one Partner of namespace that lists keyID.
func ownerOf(ctx context.Context, c client.Reader, namespace, keyID string) (string, error) {
	var list swapv1.PartnerList
	if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
		return "", fmt.Errorf("listing partners: %w", err)
	}
	var owners []string
	for _, p := range list.Items {
		if slices.ContainsFunc(p.Spec.Keys, func(k swapv1.PartnerKey) bool { return k.ID == keyID }) {
			owners = append(owners, p.Name)
		}
	}
	switch len(owners) {
	case 0:
		return "", refuse("no partner in namespace %s has a key %s", namespace, keyID)
	case 1:
		return owners[0], nil
	default:
		return "", refuse("partners %s all list key %s: name one with --partner", strings.Join(owners, ", "), keyID)
	}
}

// KeyInfo is one key as `swaprouter keys list` shows it.
type KeyInfo struct {
	Partner string
	swapv1.PartnerKey
	// LastUsed is when the key last authenticated a request (to within the frontend's
	// recording resolution); nil: never, as far as recorded.
	LastUsed *metav1.Time
}

// ListKeys lists the keys of partner (empty: of every Partner of namespace), live and expired,
// in the order the Partners list them.
func ListKeys(ctx context.Context, c client.Reader, namespace, partner string) ([]KeyInfo, error) {
	var partners []swapv1.Partner
	if partner != "" {
		var p swapv1.Partner
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: partner}, &p); err != nil {
			return nil, fmt.Errorf("partner %s/%s: %w", namespace, partner, err)
		}
		partners = []swapv1.Partner{p}
	} else {
		var list swapv1.PartnerList
		if err := c.List(ctx, &list, client.InNamespace(namespace)); err != nil {
			return nil, fmt.Errorf("listing partners: %w", err)
		}
		partners = list.Items
	}
	var out []KeyInfo
	for _, p := range partners {
		for _, k := range p.Spec.Keys {
			info := KeyInfo{Partner: p.Name, PartnerKey: k}
			if t, ok := p.Status.KeysLastUsed[k.ID]; ok {
				info.LastUsed = &t
			}
			out = append(out, info)
		}
	}
	return out, nil
}

// addKey makes a key and adds it to partner's keys as plan decides.
func addKey(ctx context.Context, c client.Client, namespace, partner string,
	plan func(keys []swapv1.PartnerKey, added swapv1.PartnerKey, now time.Time) (KeyPlan, error)) (NewKey, error) {
	keyID, secret := newKeyID(), newSecret()
	added := swapv1.PartnerKey{
		ID:        keyID,
		SecretRef: swapv1.SecretKeyRef{Name: FrontendSecret, Key: keyID},
		CreatedAt: &metav1.Time{Time: time.Now().Truncate(time.Second)},
	}
	decide := func(keys []swapv1.PartnerKey, now time.Time) (KeyPlan, error) { return plan(keys, added, now) }
	// Refuse before storing anything when the Partner as it stands already says no.
	var p swapv1.Partner
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: partner}, &p); err != nil {
		return NewKey{}, fmt.Errorf("partner %s/%s: %w", namespace, partner, err)
	}
	if _, err := decide(p.Spec.Keys, time.Now()); err != nil {
		return NewKey{}, err
	}
	if err := setHash(ctx, c, namespace, keyID, HashSecret(secret)); err != nil {
		return NewKey{}, fmt.Errorf("storing the key's hash: %w", err)
	}
	done, err := changeKeys(ctx, c, namespace, partner, decide)
	if err != nil {
		_ = setHash(ctx, c, namespace, keyID, "") // nothing points at it; do not leave it behind
		return NewKey{}, err
	}
	return NewKey{ID: keyID, Secret: secret, Retiring: done.Retiring}, nil
}

// changeKeys sets partner's keys to what decide makes of the fresh Partner (again after a
// conflict), then removes the hashes and last-use records of the keys it removed.
func changeKeys(ctx context.Context, c client.Client, namespace, partner string,
	decide func(keys []swapv1.PartnerKey, now time.Time) (KeyPlan, error)) (KeyPlan, error) {
	var p swapv1.Partner
	var plan KeyPlan
	err := retry.RetryOnConflict(retry.DefaultBackoff, func() error {
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: partner}, &p); err != nil {
			return fmt.Errorf("partner %s/%s: %w", namespace, partner, err)
		}
		var err error
		if plan, err = decide(p.Spec.Keys, time.Now()); err != nil {
			return err
		}
		p.Spec.Keys = plan.Keys
		return c.Update(ctx, &p)
	})
	if err != nil {
		return KeyPlan{}, err
	}
	for _, k := range plan.Removed {
		forgetHash(ctx, c, namespace, k)
	}
	forgetLastUse(ctx, c, &p, plan.Removed)
	return plan, nil
}

// forgetLastUse removes the last-use records of removed keys from the Partner's status. It
// only tidies (a record without its key shows nowhere), so errors are ignored.
func forgetLastUse(ctx context.Context, c client.Client, p *swapv1.Partner, removed []swapv1.PartnerKey) {
	gone := map[string]any{}
	for _, k := range removed {
		if _, ok := p.Status.KeysLastUsed[k.ID]; ok {
			gone[k.ID] = nil
		}
	}
	if len(gone) == 0 {
		return
	}
	patch, _ := json.Marshal(map[string]any{"status": map[string]any{"keysLastUsed": gone}})
	_ = c.Status().Patch(ctx, p, client.RawPatch(types.MergePatchType, patch))
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

// forgetHash removes a removed key's hash: its entry in FrontendSecret when CreateKey stored
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
