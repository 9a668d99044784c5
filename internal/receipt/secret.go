package receipt

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/auth"
)

// ErrNoKeys: the frontend's Secret holds no receipt keys yet (`swaprouter receipt keys rotate`).
var ErrNoKeys = errors.New("no receipt signing keys: run `swaprouter receipt keys rotate`")

// Load reads the receipt keys from the frontend's Secret in namespace (through the cache in
// the frontend, which holds that one Secret).
func Load(ctx context.Context, c client.Reader, namespace string) (*Keys, error) {
	var s corev1.Secret
	err := c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: auth.FrontendSecret}, &s)
	if apierrors.IsNotFound(err) || (err == nil && len(s.Data[SecretKey]) == 0) {
		return nil, ErrNoKeys
	}
	if err != nil {
		return nil, err
	}
	return ParseKeys(s.Data[SecretKey])
}

// RotateSecret puts a fresh signing key in front of the receipt keys in the frontend's
// Secret, creating the Secret or its entry when missing, and returns its kid.
func RotateSecret(ctx context.Context, c client.Client, namespace string) (kid string, err error) {
	err = updateKeys(ctx, c, namespace, func(data []byte) ([]byte, error) {
		out, k, err := Rotate(data)
		kid = k
		return out, err
	})
	return kid, err
}

// EnsureSecret makes a signing key when the Secret has none and returns the signing kid.
func EnsureSecret(ctx context.Context, c client.Client, namespace string) (kid string, err error) {
	err = updateKeys(ctx, c, namespace, func(data []byte) ([]byte, error) {
		if len(data) > 0 {
			keys, err := ParseKeys(data)
			if err != nil {
				return nil, err
			}
			kid = keys.set.Keys[0].KeyID
			return data, nil
		}
		out, k, err := Rotate(nil)
		kid = k
		return out, err
	})
	return kid, err
}

// RetireSecret removes kid from the receipt keys in the frontend's Secret.
func RetireSecret(ctx context.Context, c client.Client, namespace, kid string) error {
	return updateKeys(ctx, c, namespace, func(data []byte) ([]byte, error) { return Retire(data, kid) })
}

// updateKeys rewrites the SecretKey entry of the frontend's Secret with change (retried on
// conflicts; the Secret is created when missing). An unchanged entry is not written.
func updateKeys(ctx context.Context, c client.Client, namespace string, change func([]byte) ([]byte, error)) error {
	return retry.OnError(retry.DefaultBackoff, func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsAlreadyExists(err)
	}, func() error {
		s := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: auth.FrontendSecret, Namespace: namespace}}
		err := c.Get(ctx, client.ObjectKeyFromObject(&s), &s)
		missing := apierrors.IsNotFound(err)
		if err != nil && !missing {
			return err
		}
		data, err := change(s.Data[SecretKey])
		if err != nil || (!missing && string(data) == string(s.Data[SecretKey])) {
			return err
		}
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[SecretKey] = data
		if missing {
			s.Type = corev1.SecretTypeOpaque
			return c.Create(ctx, &s)
		}
		return c.Update(ctx, &s)
	})
}
