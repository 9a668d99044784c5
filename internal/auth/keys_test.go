package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

func TestCreateKeyAuthenticatesAndRefusesAtTheLimit(t *testing.T) {
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
	if k := partnerKey(t, c, id1); k.CreatedAt == nil || k.ExpiresAt != nil {
		t.Errorf("new key %+v, want a creation time and no expiry", k)
	}

	// git-key and id1 are the two live keys: a third is refused, naming rotate, and nothing
	// changes.
	_, _, err = CreateKey(ctx, c, ns, "acme")
	var refusal *KeyRefusal
	if !errors.As(err, &refusal) || !strings.Contains(err.Error(), "swaprouter keys rotate") {
		t.Fatalf("third key: %v, want a refusal naming rotate", err)
	}
	if got := keyIDs(t, c); len(got) != 2 || got[0] != "git-key" || got[1] != id1 {
		t.Errorf("keys %v after a refused create, want [git-key %s]", got, id1)
	}
	if got := storedHashes(t, c); len(got) != 1 {
		t.Errorf("%s holds %v after a refused create, want the one hash", FrontendSecret, got)
	}
	for id, secret := range map[string]string{"git-key": "from-git", id1: secret1} {
		if _, err := a.Authenticate(ctx, id, "Bearer "+secret); err != nil {
			t.Errorf("key %s stopped working after a refused create: %v", id, err)
		}
	}
}

func TestRotateKeyKeepsBothUntilTheGraceEnds(t *testing.T) {
	ctx := context.Background()
	c := newFakeClient(partnerWithKeys("acme", key("git-key", "declared-in-git", nil)), keySecret("declared-in-git", "from-git"))
	id1, secret1, err := CreateKey(ctx, c, ns, "acme")
	if err != nil {
		t.Fatal(err)
	}

	// Without --key the oldest goes: git-key, which has no creation time.
	first, err := RotateKey(ctx, c, ns, "acme", "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if first.Retiring == nil || first.Retiring.ID != "git-key" {
		t.Fatalf("rotation retires %+v, want git-key", first.Retiring)
	}
	end := first.Retiring.ExpiresAt.Time
	if d := time.Until(end); d < 59*time.Minute || d > time.Hour {
		t.Errorf("git-key expires in %s, want the hour of grace", d)
	}
	during := NewAuthenticator(c, ns, func() time.Time { return end.Add(-time.Second) })
	after := NewAuthenticator(c, ns, func() time.Time { return end })
	for id, secret := range map[string]string{"git-key": "from-git", id1: secret1, first.ID: first.Secret} {
		if _, err := during.Authenticate(ctx, id, "Bearer "+secret); err != nil {
			t.Errorf("key %s rejected during the grace period: %v", id, err)
		}
	}
	if _, err := after.Authenticate(ctx, "git-key", "Bearer from-git"); err == nil {
		t.Error("the retired key still works after its grace period")
	}
	if _, err := after.Authenticate(ctx, first.ID, "Bearer "+first.Secret); err != nil {
		t.Errorf("the new key is rejected after the grace period: %v", err)
	}

	// A second rotation during the grace would leave three keys working.
	if _, err := RotateKey(ctx, c, ns, "acme", id1, time.Hour); err == nil || !strings.Contains(err.Error(), "revoke") {
		t.Errorf("second rotation during the grace: %v, want a refusal", err)
	}
}

func TestRevokeKeyIsImmediate(t *testing.T) {
	ctx := context.Background()
	c := newFakeClient(partnerWithKeys("acme"), partnerWithKeys("globex"))
	a := NewAuthenticator(c, ns, nil)
	id1, secret1, err := CreateKey(ctx, c, ns, "acme")
	if err != nil {
		t.Fatal(err)
	}
	id2, secret2, err := CreateKey(ctx, c, ns, "acme")
	if err != nil {
		t.Fatal(err)
	}
	var p swapv1.Partner
	must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "acme"}, &p))
	p.Status.KeysLastUsed = map[string]metav1.Time{id1: {Time: now}, id2: {Time: now}}
	must(t, c.Status().Update(ctx, &p))

	owner, err := RevokeKey(ctx, c, ns, "", id1)
	if err != nil || owner != "acme" {
		t.Fatalf("revoke: %s, %v", owner, err)
	}
	if _, err := a.Authenticate(ctx, id1, "Bearer "+secret1); err == nil {
		t.Error("a revoked key still authenticates")
	}
	if _, err := a.Authenticate(ctx, id2, "Bearer "+secret2); err != nil {
		t.Errorf("the other key stopped working: %v", err)
	}
	if got := storedHashes(t, c); len(got) != 1 || got[id2] == "" {
		t.Errorf("%s holds %v, want only %s's hash", FrontendSecret, got, id2)
	}
	must(t, c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "acme"}, &p))
	if _, ok := p.Status.KeysLastUsed[id1]; ok || len(p.Status.KeysLastUsed) != 1 {
		t.Errorf("last use records %v, want only %s's", p.Status.KeysLastUsed, id2)
	}

	var refusal *KeyRefusal
	if _, err := RevokeKey(ctx, c, ns, "", id1); !errors.As(err, &refusal) {
		t.Errorf("revoking it again: %v, want a refusal", err)
	}
	if _, err := RevokeKey(ctx, c, ns, "globex", id2); !errors.As(err, &refusal) {
		t.Errorf("revoking acme's key as globex's: %v, want a refusal", err)
	}
}

// A key made by an earlier version has a Secret of its own; revoking it deletes that Secret,
// never one declared in git.
func TestRevokeKeyDeletesAPerKeySecret(t *testing.T) {
	ctx := context.Background()
	old := keySecret("swaprouter-apikey-key-old", "old")
	old.Labels = map[string]string{managedByLabel: managedByValue}
	gitops := keySecret("declared-in-git", "from-git")
	c := newFakeClient(partnerWithKeys("acme", key("key_old", old.Name, nil), key("key_git", gitops.Name, nil)), old, gitops)
	for _, id := range []string{"key_old", "key_git"} {
		if _, err := RevokeKey(ctx, c, ns, "acme", id); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(old), &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("revoked key's own Secret still there: %v", err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(gitops), &corev1.Secret{}); err != nil {
		t.Errorf("secret declared in git was deleted: %v", err)
	}
}

func TestListKeys(t *testing.T) {
	ctx := context.Background()
	future := now.Add(time.Hour)
	p := partnerWithKeys("acme", key("key_a", "s", nil), key("key_b", "s", &future))
	p.Status.KeysLastUsed = map[string]metav1.Time{"key_b": {Time: now}}
	c := newFakeClient(p, partnerWithKeys("globex", key("key_c", "s", nil)))
	all, err := ListKeys(ctx, c, ns, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range all {
		got = append(got, fmt.Sprintf("%s/%s used:%v", k.Partner, k.ID, k.LastUsed != nil))
	}
	if want := "acme/key_a used:false,acme/key_b used:true,globex/key_c used:false"; join(got) != want {
		t.Errorf("list: %s, want %s", join(got), want)
	}
	if one, err := ListKeys(ctx, c, ns, "globex"); err != nil || len(one) != 1 {
		t.Errorf("list --partner globex: %v, %v", one, err)
	}
	if _, err := ListKeys(ctx, c, ns, "ghost"); !apierrors.IsNotFound(err) {
		t.Errorf("list --partner ghost: %v, want not found", err)
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

func TestPlanKeys(t *testing.T) {
	past, soon, later := now.Add(-time.Hour), now.Add(time.Hour), now.Add(48*time.Hour)
	made := func(id string, at time.Time, exp *time.Time) swapv1.PartnerKey {
		k := key(id, id, exp)
		k.CreatedAt = &metav1.Time{Time: at}
		return k
	}
	n := key("new", "new", nil)
	tests := []struct {
		name string
		plan func() (KeyPlan, error)
		// keys after (id, or id+"~" for one that expires), removed, retiring; refused: the
		// refusal's words.
		keys, removed, retiring, refused string
	}{
		{name: "create beside one", plan: func() (KeyPlan, error) { return PlanCreate("p", []swapv1.PartnerKey{key("a", "a", nil)}, n, now) },
			keys: "a,new"},
		{name: "create at the limit refuses", plan: func() (KeyPlan, error) {
			return PlanCreate("p", []swapv1.PartnerKey{key("a", "a", nil), key("b", "b", &later)}, n, now)
		}, refused: "keys rotate --partner p"},
		{name: "create prunes expired keys", plan: func() (KeyPlan, error) {
			return PlanCreate("p", []swapv1.PartnerKey{key("x", "x", &past), key("a", "a", nil)}, n, now)
		}, keys: "a,new", removed: "x"},
		{name: "rotate retires the oldest by creation time", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{made("b", now.Add(-time.Minute), nil), made("a", now.Add(-time.Hour), nil)}, "", n, now, time.Hour)
		}, keys: "b,a~,new", retiring: "a"},
		{name: "rotate takes a key without a creation time as the oldest", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{made("a", now.Add(-time.Hour), nil), key("git", "git", nil)}, "", n, now, time.Hour)
		}, keys: "a,git~,new", retiring: "git"},
		{name: "rotate passes over a key that expires within the grace", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", &soon), key("b", "b", nil)}, "", n, now, 2*time.Hour)
		}, keys: "a~,b~,new", retiring: "b"},
		{name: "rotate the named key", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", nil), key("b", "b", nil)}, "b", n, now, time.Hour)
		}, keys: "a,b~,new", retiring: "b"},
		{name: "rotate a key that already expires sooner", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", &soon)}, "a", n, now, 2*time.Hour)
		}, refused: "already expires"},
		{name: "rotate during another rotation's grace", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", &soon), key("b", "b", nil), key("c", "c", nil)}, "", n, now, time.Hour)
		}, refused: "more than the 2"},
		{name: "rotate an unknown key", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", nil)}, "zz", n, now, time.Hour)
		}, refused: "no live key zz"},
		{name: "rotate with no key", plan: func() (KeyPlan, error) { return PlanRotate("p", nil, "", n, now, time.Hour) },
			refused: "keys create --partner p"},
		{name: "rotate with zero grace ends the old key now", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", nil)}, "", n, now, 0)
		}, keys: "a~,new", retiring: "a"},
		{name: "rotate with a negative grace", plan: func() (KeyPlan, error) {
			return PlanRotate("p", []swapv1.PartnerKey{key("a", "a", nil)}, "", n, now, -time.Hour)
		}, refused: "negative"},
		{name: "revoke", plan: func() (KeyPlan, error) {
			return PlanRevoke("p", []swapv1.PartnerKey{key("a", "a", nil), key("b", "b", nil)}, "a")
		}, keys: "b", removed: "a"},
		{name: "revoke an expired key", plan: func() (KeyPlan, error) {
			return PlanRevoke("p", []swapv1.PartnerKey{key("x", "x", &past)}, "x")
		}, keys: "", removed: "x"},
		{name: "revoke an unknown key", plan: func() (KeyPlan, error) { return PlanRevoke("p", nil, "a") }, refused: "no key a"},
	}
	for _, tt := range tests {
		plan, err := tt.plan()
		if tt.refused != "" {
			var refusal *KeyRefusal
			if !errors.As(err, &refusal) || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("%s: %v, want a refusal saying %q", tt.name, err, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		var after []string
		for _, k := range plan.Keys {
			if k.ExpiresAt != nil && k.ExpiresAt.Before(&metav1.Time{Time: later}) {
				after = append(after, k.ID+"~")
			} else {
				after = append(after, k.ID)
			}
		}
		retiring := ""
		if plan.Retiring != nil {
			retiring = plan.Retiring.ID
		}
		if join(after) != tt.keys || ids(plan.Removed) != tt.removed || retiring != tt.retiring {
			t.Errorf("%s: keys %s removed %s retiring %s, want %s, %s, %s", tt.name, join(after), ids(plan.Removed), retiring, tt.keys, tt.removed, tt.retiring)
		}
	}
}

func partnerKey(t *testing.T, c client.Client, id string) swapv1.PartnerKey {
	t.Helper()
	var p swapv1.Partner
	must(t, c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "acme"}, &p))
	for _, k := range p.Spec.Keys {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("acme has no key %s", id)
	return swapv1.PartnerKey{}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
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
