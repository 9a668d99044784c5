package auth

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestCreateKeyAuthenticatesAndRotates(t *testing.T) {
	ctx := context.Background()
	gitops := keySecret("declared-in-git", "from-git")
	c := newFakeClient(partnerWithKeys("acme", key("git-key", "declared-in-git", nil)), gitops)
	a := NewAuthenticator(c, ns, nil)

	id1, secret1, err := CreateKey(ctx, c, ns, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{4,64}$`).MatchString(id1) || len(secret1) < 40 {
		t.Fatalf("key %q secret %q", id1, secret1)
	}
	if got := storedHashes(t, c); len(got) != 1 || got[id1] != HashSecret(secret1) {
		t.Errorf("%s holds %v, want only the new key's hash under its id", FrontendSecret, got)
	}
	if _, err := a.Authenticate(ctx, id1, "Bearer "+secret1); err != nil {
		t.Fatalf("new key rejected: %v", err)
	}
	// git-key + id1 are the two live keys; the next key retires git-key but keeps its Secret.
	id2, secret2, err := CreateKey(ctx, c, ns, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if got := keyIDs(t, c); len(got) != 2 || got[0] != id1 || got[1] != id2 {
		t.Fatalf("keys %v, want [%s %s]", got, id1, id2)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(gitops), &corev1.Secret{}); err != nil {
		t.Errorf("secret declared in git was deleted: %v", err)
	}
	// The third retires id1 and removes the hash CreateKey stored for it.
	id3, _, err := CreateKey(ctx, c, ns, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if got := storedHashes(t, c); len(got) != 2 || got[id1] != "" || got[id2] != HashSecret(secret2) || got[id3] == "" {
		t.Errorf("%s holds %v, want the hashes of %s and %s only", FrontendSecret, got, id2, id3)
	}
	if _, err := a.Authenticate(ctx, id1, "Bearer "+secret1); err == nil {
		t.Error("retired key still authenticates")
	}
	if _, err := a.Authenticate(ctx, id2, "Bearer "+secret2); err != nil {
		t.Errorf("live key rejected: %v", err)
	}
}

// A key made by an earlier version has a Secret of its own; retiring it deletes that Secret.
func TestCreateKeyRetiresAPerKeySecret(t *testing.T) {
	ctx := context.Background()
	old := keySecret("swaprouter-apikey-key-old", "old")
	old.Labels = map[string]string{managedByLabel: managedByValue}
	c := newFakeClient(partnerWithKeys("acme", key("key_old", old.Name, nil), key("key_mid", "declared-in-git", nil)), old)
	if _, _, err := CreateKey(ctx, c, ns, "acme"); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("retired key's own Secret still there: %v", err)
	}
}

func storedHashes(t *testing.T, c client.Client) map[string]string {
	t.Helper()
	var s corev1.Secret
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: FrontendSecret}, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	return out
}

func TestCreateKeyUnknownPartner(t *testing.T) {
	c := newFakeClient()
	if _, _, err := CreateKey(context.Background(), c, ns, "ghost"); !apierrors.IsNotFound(err) {
		t.Fatalf("err %v, want not found", err)
	}
	var secrets corev1.SecretList
	_ = c.List(context.Background(), &secrets)
	if len(secrets.Items) != 0 {
		t.Error("secret created for a missing partner")
	}
}

func TestRotate(t *testing.T) {
	past := now.Add(-time.Hour)
	k := func(id string, exp *time.Time) swapv1.PartnerKey { return key(id, id, exp) }
	tests := []struct {
		name          string
		keys          []swapv1.PartnerKey
		kept, retired []string
	}{
		{"none", nil, nil, nil},
		{"one live stays", []swapv1.PartnerKey{k("a", nil)}, []string{"a"}, nil},
		{"two live: oldest goes", []swapv1.PartnerKey{k("a", nil), k("b", nil)}, []string{"b"}, []string{"a"}},
		{"expired pruned", []swapv1.PartnerKey{k("x", &past), k("a", nil)}, []string{"a"}, []string{"x"}},
		{"three live", []swapv1.PartnerKey{k("a", nil), k("b", nil), k("c", nil)}, []string{"c"}, []string{"a", "b"}},
	}
	for _, tt := range tests {
		kept, retired := Rotate(tt.keys, now)
		if ids(kept) != join(tt.kept) || ids(retired) != join(tt.retired) {
			t.Errorf("%s: kept %v retired %v", tt.name, ids(kept), ids(retired))
		}
	}
}

func keyIDs(t *testing.T, c client.Client) []string {
	t.Helper()
	var p swapv1.Partner
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "acme"}, &p); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range p.Spec.Keys {
		out = append(out, k.ID)
	}
	return out
}

func ids(keys []swapv1.PartnerKey) string {
	var out []string
	for _, k := range keys {
		out = append(out, k.ID)
	}
	return join(out)
}

func join(s []string) string { return strings.Join(s, ",") }
