package devenv

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
)

// demoKeyFile keeps the demo partner's API key in the data folder (mode 0600, like dev.env),
// so a restart reuses it instead of adding a live key each time.
const demoKeyFile = "demo-key.json"

type savedKey struct {
	KeyID  string `json:"keyId"`
	Secret string `json:"secret"`
}

// demoKey returns the key saved in dataDir while partner still lists it with the saved
// secret's hash; otherwise it creates a key and saves it.
func demoKey(ctx context.Context, c client.Client, dataDir, namespace, partner string) (keyID, secret string, err error) {
	path := filepath.Join(dataDir, demoKeyFile)
	var saved savedKey
	if raw, err := os.ReadFile(path); err == nil && json.Unmarshal(raw, &saved) == nil {
		ok, err := stillListed(ctx, c, namespace, partner, saved)
		if err != nil {
			return "", "", err
		}
		if ok {
			return saved.KeyID, saved.Secret, nil
		}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", "", err
	}
	keyID, secret, err = auth.CreateKey(ctx, c, namespace, partner)
	if err != nil {
		return "", "", fmt.Errorf("a key for the demo partner (the one saved in %s is gone): %w", path, err)
	}
	raw, _ := json.Marshal(savedKey{KeyID: keyID, Secret: secret})
	return keyID, secret, os.WriteFile(path, raw, 0o600)
}

// stillListed reports whether the partner lists k and its Secret holds k's hash.
func stillListed(ctx context.Context, c client.Client, namespace, partner string, k savedKey) (bool, error) {
	var p swapv1.Partner
	if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: partner}, &p); err != nil {
		return false, err
	}
	for _, listed := range p.Spec.Keys {
		if listed.ID != k.KeyID {
			continue
		}
		var s corev1.Secret
		if err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: listed.SecretRef.Name}, &s); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		want := []byte(auth.HashSecret(k.Secret))
		return subtle.ConstantTimeCompare(s.Data[listed.SecretRef.Key], want) == 1, nil
	}
	return false, nil
}
