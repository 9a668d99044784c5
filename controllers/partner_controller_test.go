package controllers

import (
	"bytes"
	"context"
	"strconv"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/partners"
	"github.com/swaprouter/swaprouter/internal/screening"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
	"github.com/swaprouter/swaprouter/internal/tiers"
)

var _ = Describe("Partner reconciler", func() {
	var ns string
	var t *timers[*swapv1.Partner]

	BeforeEach(func(ctx context.Context) {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "partner-"}}
		Expect(k8sClient.Create(ctx, n)).To(Succeed())
		ns = n.Name

		mgr := newTestManager()
		t = newTimers[*swapv1.Partner](nil)
		Expect((&PartnerReconciler{Now: t.clock.Now, Wake: t.wake.source()}).SetupWithManager(mgr)).To(Succeed())
		runTestManager(mgr)
	})

	ready := func(ctx context.Context, name string) func(Gomega) *metav1.Condition {
		return func(g Gomega) *metav1.Condition {
			var p swapv1.Partner
			g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &p)).To(Succeed())
			return meta.FindStatusCondition(p.Status.Conditions, swapv1.ConditionReady)
		}
	}

	It("shows live keys and Ready, and says which key Secret is missing", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "acme-key", Namespace: ns},
			Data:       map[string][]byte{"sha256": []byte("00")},
		})).To(Succeed())
		p := &swapv1.Partner{
			ObjectMeta: metav1.ObjectMeta{Name: "acme", Namespace: ns},
			Spec: swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{
				{ID: "key_live", SecretRef: swapv1.SecretKeyRef{Name: "acme-key", Key: "sha256"}},
				{ID: "key_old", SecretRef: swapv1.SecretKeyRef{Name: "old-key", Key: "sha256"},
					ExpiresAt: &metav1.Time{Time: time.Now().Add(-time.Hour)}},
			}},
		}
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
		Eventually(ready(ctx, "acme")).Should(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", partners.ReasonReady)))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		Expect(p.Status.ActiveKeys).To(Equal(int32(1)), "the expired key does not count")

		p.Spec.Keys = append(p.Spec.Keys, swapv1.PartnerKey{ID: "key_next", SecretRef: swapv1.SecretKeyRef{Name: "missing", Key: "sha256"}})
		Expect(k8sClient.Update(ctx, p)).To(Succeed())
		Eventually(ready(ctx, "acme")).Should(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", partners.ReasonKeySecretMissing),
			HaveField("Message", ContainSubstring("key_next"))))
	})

	It("counts a key out of the live keys when it expires, with no change to the Partner", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "rotating-keys", Namespace: ns},
			Data:       map[string][]byte{"key_new": []byte("00"), "key_old": []byte("00")},
		})).To(Succeed())
		p := &swapv1.Partner{
			ObjectMeta: metav1.ObjectMeta{Name: "rotating", Namespace: ns},
			Spec: swapv1.PartnerSpec{Keys: []swapv1.PartnerKey{
				{ID: "key_old", SecretRef: swapv1.SecretKeyRef{Name: "rotating-keys", Key: "key_old"},
					ExpiresAt: &metav1.Time{Time: t.clock.Now().Add(time.Hour)}},
				{ID: "key_new", SecretRef: swapv1.SecretKeyRef{Name: "rotating-keys", Key: "key_new"}},
			}},
		}
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
		activeKeys := func(g Gomega) int32 {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			return p.Status.ActiveKeys
		}
		Eventually(activeKeys).Should(Equal(int32(2)), "both keys work during the grace period")
		t.advanceTo(p.Spec.Keys[0].ExpiresAt.Add(time.Second), p)
		Eventually(activeKeys).Should(Equal(int32(1)), "the retired key stops counting when it expires")
		Expect(ready(ctx, "rotating")(Default)).To(HaveField("Message", "1 live API key(s)"))
	})

	It("shows the limits in effect: the Partner's own, else its tier's", func(ctx context.Context) {
		p := &swapv1.Partner{
			ObjectMeta: metav1.ObjectMeta{Name: "tiered", Namespace: ns},
			Spec:       swapv1.PartnerSpec{Tier: "free"},
		}
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
		limits := func(g Gomega) *swapv1.PartnerLimits {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
			return p.Status.Limits
		}
		free := tiers.Default()["free"]
		Eventually(limits).Should(Equal(&swapv1.PartnerLimits{Tier: "free", RequestsPerMinute: free.RequestsPerMinute,
			MonthlyQuoteQuota: free.MonthlyQuoteQuota, Quota: strconv.FormatInt(free.MonthlyQuoteQuota, 10)}))

		p.Spec.RequestsPerMinute = 7
		Expect(k8sClient.Update(ctx, p)).To(Succeed())
		Eventually(limits).Should(HaveField("RequestsPerMinute", int32(7)))
	})

	It("leaves the frontend's quota usage alone", func(ctx context.Context) {
		p := &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "quota", Namespace: ns}}
		Expect(k8sClient.Create(ctx, p)).To(Succeed())
		Eventually(func() error { // the reconciler may write status first: retry on conflict
			if err := k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
				return err
			}
			p.Status.QuotaUsage = &swapv1.QuotaUsage{Month: "2026-11", Quotes: 42}
			return k8sClient.Status().Update(ctx, p)
		}).Should(Succeed())
		Eventually(ready(ctx, "quota")).Should(HaveField("Reason", partners.ReasonNoLiveKey))
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(p), p)).To(Succeed())
		Expect(p.Status.QuotaUsage).To(Equal(&swapv1.QuotaUsage{Month: "2026-11", Quotes: 42}))
	})

	It("shows the sanctions list each partner's orders are screened with, and what its state does to them", func(ctx context.Context) {
		Expect(k8sClient.Create(ctx, &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "closed", Namespace: ns}})).To(Succeed())
		Expect(k8sClient.Create(ctx, &swapv1.Partner{ObjectMeta: metav1.ObjectMeta{Name: "open", Namespace: ns},
			Spec: swapv1.PartnerSpec{Screening: &swapv1.PartnerScreening{OnUnavailable: swapv1.ScreeningFailOpen}}})).To(Succeed())
		sanctions := func(name string) func(Gomega) *metav1.Condition {
			return func(g Gomega) *metav1.Condition {
				var p swapv1.Partner
				g.Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &p)).To(Succeed())
				return meta.FindStatusCondition(p.Status.Conditions, swapv1.ConditionSanctionsList)
			}
		}
		Eventually(sanctions("closed")).Should(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", "Missing"),
			HaveField("Message", ContainSubstring("refused with 503 service unavailable (onUnavailable: fail-closed)"))))
		Eventually(sanctions("open")).Should(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", "Missing"),
			HaveField("Message", ContainSubstring("recorded FailedOpen (onUnavailable: fail-open)"))))

		var extract bytes.Buffer
		Expect(screening.WriteExtract(&extract, screening.Extract{Published: "2022-01-20T15:04:05Z", Records: 1,
			Entries: []screening.Entry{{EntNum: 25308, Name: "LAZARUS GROUP", Program: "DPRK3", Ticker: "ETH", Address: "0x098B716B8Aaf21512996dC57EB0615e2383E2f96"}}})).To(Succeed())
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sdnwatch.ConfigMapName, Namespace: ns},
			Data: map[string]string{sdnwatch.ExtractKey: extract.String()}}
		Expect(k8sClient.Create(ctx, cm)).To(Succeed())
		for _, name := range []string{"closed", "open"} {
			Eventually(sanctions(name)).Should(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", "Loaded"),
				HaveField("Message", ContainSubstring("screened with the list 2022-01-20T15:04:05Z sha256:"))))
		}

		for state, data := range map[string]map[string]string{
			"Broken": {sdnwatch.Key: "<html>503 Service Unavailable</html>"},
			"Empty":  {sdnwatch.Key: ""},
		} {
			cm.Data = data
			Expect(k8sClient.Update(ctx, cm)).To(Succeed())
			Eventually(sanctions("closed")).Should(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", state)))
		}
		Expect(k8sClient.Delete(ctx, cm)).To(Succeed())
		Eventually(sanctions("open")).Should(HaveField("Reason", "Missing"))
	})
})
