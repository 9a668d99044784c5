package controllers

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/catalog"
	"github.com/swaprouter/swaprouter/internal/provider"
	"github.com/swaprouter/swaprouter/internal/provider/health"
	"github.com/swaprouter/swaprouter/internal/providerset"
	"github.com/swaprouter/swaprouter/internal/resilience"
)

var _ = Describe("RoutingProvider health", func() {
	It("reports Available=False Degraded once the provider's breaker opens, and callers fail fast", func() {
		tracker := health.NewTracker(nil)
		tracker.Policy = resilience.Policy{Threshold: 3, Cooldown: time.Hour, MaxCooldown: time.Hour, Jitter: resilience.Jitter}
		mgr := newTestManager()
		providers := providerset.New()
		r := &RoutingProviderReconciler{Providers: providers, Catalog: catalog.New(nil), NewProvider: newScriptedAdapter, Health: tracker}
		Expect(r.SetupWithManager(mgr)).To(Succeed())
		Expect(providers.Loaded()).To(BeFalse(), "the set waits for the RoutingProviders")
		runTestManager(mgr)
		ns := newProviderNamespace()
		rp := routingProvider(ns, "route-b", swapv1.ProviderRouteB, swapv1.ProtocolChannel, "http://unreachable.example/route_B")
		createRoutingProvider(rp)

		available := func() *metav1.Condition {
			var got swapv1.RoutingProvider
			Expect(k8sClient.Get(context.Background(), client.ObjectKeyFromObject(rp), &got)).To(Succeed())
			return meta.FindStatusCondition(got.Status.Conditions, ConditionAvailable)
		}
		// The first probe fails once: the breaker stays closed.
		Eventually(available).Should(And(Not(BeNil()), HaveField("Status", metav1.ConditionTrue), HaveField("Reason", health.ReasonAvailable)))
		Eventually(providers.Loaded).Should(BeTrue())

		// Two more failed calls from anywhere (here: the frontend's, say) open it.
		entry, ok := providers.Get(swapv1.ProviderRouteB)
		Expect(ok).To(BeTrue())
		for range 2 {
			_, err := entry.Provider.Assets(context.Background())
			Expect(provider.IsKind(err, provider.KindUpstream)).To(BeTrue())
		}
		Eventually(available).Should(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", health.ReasonDegraded)))
		_, err := entry.Provider.Assets(context.Background())
		Expect(provider.IsKind(err, provider.KindUnavailable)).To(BeTrue(), "calls are held back while the breaker is open")
	})
})
