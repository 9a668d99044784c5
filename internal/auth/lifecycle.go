package auth

import (
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// The lifecycle of a partner's keys, as the API key management partners know elsewhere does
// it: a partner holds at most MaxLiveKeys keys; a new one beyond that comes only by rotating an
// old one, which keeps working for a grace period beside its successor; a revoked key stops at
// once. Nothing is ever retired as a side effect of another verb. These functions decide; the
// verbs in keys.go read the Partner, call one, and write what it returns.

// KeyRefusal is a verb refused because of the partner's keys as they are: the message says
// what to do instead.
type KeyRefusal struct{ Message string }

func (e *KeyRefusal) Error() string { return e.Message }

func refuse(format string, args ...any) error {
	return &KeyRefusal{Message: fmt.Sprintf(format, args...)}
}

// KeyPlan is the partner's keys after a verb: the keys to keep (the spec's new list), the ones
// it removes (their hashes go too) and, for a rotation, the key that now expires.
type KeyPlan struct {
	Keys     []swapv1.PartnerKey
	Removed  []swapv1.PartnerKey
	Retiring *swapv1.PartnerKey
}

// PlanCreate adds added to keys at now. Expired keys are removed. It refuses when the partner
// already has MaxLiveKeys live keys: which one to give up is the operator's decision (rotate or
// revoke), never this verb's.
func PlanCreate(partner string, keys []swapv1.PartnerKey, added swapv1.PartnerKey, now time.Time) (KeyPlan, error) {
	live, expired := splitExpired(keys, now)
	if len(live) >= MaxLiveKeys {
		return KeyPlan{}, refuse("partner %s already has %d live keys (%s), the most it may have: "+
			"replace one with `swaprouter keys rotate --partner %s --key KEY` (both keep working during the grace period), "+
			"or end one now with `swaprouter keys revoke KEY`", partner, len(live), joinIDs(live), partner)
	}
	return KeyPlan{Keys: append(live, added), Removed: expired}, nil
}

// PlanRotate adds added to keys at now and makes the key named retire (empty: the oldest live
// key that is not already retiring) expire after grace. During the grace the partner has one key
// more than MaxLiveKeys; a second rotation in that time is refused, since it would leave a third
// key working.
func PlanRotate(partner string, keys []swapv1.PartnerKey, retire string, added swapv1.PartnerKey, now time.Time, grace time.Duration) (KeyPlan, error) {
	if grace < 0 {
		return KeyPlan{}, refuse("the grace period must not be negative, got %s", grace)
	}
	live, expired := splitExpired(keys, now)
	if len(live) > MaxLiveKeys {
		return KeyPlan{}, refuse("partner %s has %d live keys (%s), more than the %d it may have beside a rotation: "+
			"wait until the retiring one expires, or end one now with `swaprouter keys revoke KEY`", partner, len(live), joinIDs(live), MaxLiveKeys)
	}
	end := now.Add(grace)
	target := -1
	switch {
	case retire != "":
		target = slices.IndexFunc(live, func(k swapv1.PartnerKey) bool { return k.ID == retire })
		if target < 0 {
			return KeyPlan{}, refuse("partner %s has no live key %s (its live keys: %s)", partner, retire, orNone(joinIDs(live)))
		}
		if retiringBy(live[target], end) {
			return KeyPlan{}, refuse("key %s already expires at %s, before a %s grace period would end: rotate another key, or revoke it",
				retire, live[target].ExpiresAt.UTC().Format(time.RFC3339), grace)
		}
	default:
		for i, k := range live {
			if !retiringBy(k, end) && (target < 0 || older(k, live[target])) {
				target = i
			}
		}
		if target < 0 && len(live) == 0 {
			return KeyPlan{}, refuse("partner %s has no live key to rotate: make one with `swaprouter keys create --partner %s`", partner, partner)
		}
		if target < 0 {
			return KeyPlan{}, refuse("every live key of partner %s (%s) already expires within %s", partner, joinIDs(live), grace)
		}
	}
	kept := slices.Clone(live)
	kept[target].ExpiresAt = &metav1.Time{Time: end.Truncate(time.Second)}
	retiring := kept[target]
	return KeyPlan{Keys: append(kept, added), Removed: expired, Retiring: &retiring}, nil
}

// PlanRevoke removes the key named id, live or expired, at once.
func PlanRevoke(partner string, keys []swapv1.PartnerKey, id string) (KeyPlan, error) {
	i := slices.IndexFunc(keys, func(k swapv1.PartnerKey) bool { return k.ID == id })
	if i < 0 {
		return KeyPlan{}, refuse("partner %s has no key %s", partner, id)
	}
	return KeyPlan{Keys: slices.Delete(slices.Clone(keys), i, i+1), Removed: []swapv1.PartnerKey{keys[i]}}, nil
}

// splitExpired splits keys into those live at now and those expired, each in their order.
func splitExpired(keys []swapv1.PartnerKey, now time.Time) (live, gone []swapv1.PartnerKey) {
	for _, k := range keys {
		if expired(&k, now) {
			gone = append(gone, k)
		} else {
			live = append(live, k)
		}
	}
	return live, gone
}

// retiringBy reports whether k expires at or before end.
func retiringBy(k swapv1.PartnerKey, end time.Time) bool {
	return k.ExpiresAt != nil && !k.ExpiresAt.After(end)
}

// older reports whether a was made before b; a key without a creation time (declared, or made
// by an earlier version) is older than any with one. Ties keep the list's order.
func older(a, b swapv1.PartnerKey) bool {
	if a.CreatedAt == nil || b.CreatedAt == nil {
		return a.CreatedAt == nil && b.CreatedAt != nil
	}
	return a.CreatedAt.Before(b.CreatedAt)
}

func joinIDs(keys []swapv1.PartnerKey) string {
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	return strings.Join(ids, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
