package system

import (
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
)

// catalogReady is a frontend's readyz check: ready once it has loaded the assets of every
// enabled provider the controllers report Ready. A frontend that just started has synced its
// informers before its own asset fetches answer; until then it would tell partners that
// valid assets are unknown (400), so it must not take traffic yet. A provider that is down
// (not Ready) does not hold readiness back: the frontend answers its per-provider error.
func catalogReady(c client.Reader, namespace string, cat *catalog.Catalog) func(*http.Request) error {
	return func(req *http.Request) error {
		var list swapv1.RoutingProviderList
		if err := c.List(req.Context(), &list, client.InNamespace(namespace)); err != nil {
			return err
		}
		if missing := missingCatalogs(list.Items, cat.Has); len(missing) > 0 {
			return fmt.Errorf("assets of %v not loaded yet", missing)
		}
		return nil
	}
}

// missingCatalogs lists the enabled, Ready providers whose assets has does not know.
func missingCatalogs(providers []swapv1.RoutingProvider, has func(swapv1.ProviderID) bool) []swapv1.ProviderID {
	var missing []swapv1.ProviderID
	for _, p := range providers {
		if p.Spec.Enabled && meta.IsStatusConditionTrue(p.Status.Conditions, swapv1.ConditionReady) && !has(p.Spec.ProviderID) {
			missing = append(missing, p.Spec.ProviderID)
		}
	}
	return missing
}
