package e2e

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/consumerapp"
	"github.com/swaprouter/swaprouter/internal/testing/secretvolume"
	"github.com/swaprouter/swaprouter/pkg/client"
	"github.com/swaprouter/swaprouter/test/partnerapi"
)

// The README's rotation of the swap app's key: rotate with a grace period, update the app's
// Secret, and the running app moves to the new key with no restart and no failed request;
// the old key then ends without the app noticing.
var _ = Describe("the swap app's key", func() {
	It("is rotated without downtime", func(ctx context.Context) {
		Expect(env.Client.Create(ctx, &swapv1.Partner{
			ObjectMeta: metav1.ObjectMeta{Name: "swap-app", Namespace: env.Namespace},
			Spec:       swapv1.PartnerSpec{Tier: "enterprise"},
		})).To(Succeed())
		oldID, oldSecret, err := auth.CreateKey(ctx, env.Client, env.Namespace, "swap-app")
		Expect(err).NotTo(HaveOccurred())
		secretDir := GinkgoT().TempDir()
		Expect(secretvolume.Write(secretDir, map[string]string{"keyId": oldID, "secret": oldSecret})).To(Succeed())

		appCtx, stop := context.WithCancel(context.Background())
		DeferCleanup(stop)
		keys, err := consumerapp.WatchKeyDir(appCtx, secretDir, 50*time.Millisecond, ctrl.Log.WithName("app"))
		Expect(err).NotTo(HaveOccurred())
		// Every page request reaches /v1 (no cached asset list), within generous end-user limits.
		app, err := consumerapp.New(consumerapp.Options{APIURL: env.FrontendURL, Key: keys, AssetsTTL: time.Nanosecond,
			PerSession: 100000, PerClientAddress: 100000, Log: ctrl.Log.WithName("app")})
		Expect(err).NotTo(HaveOccurred())
		page := httptest.NewServer(app)
		DeferCleanup(page.Close)
		jar, _ := cookiejar.New(nil)
		browser := &http.Client{Jar: jar, Timeout: 30 * time.Second}
		var failures []int
		assets := func() int {
			resp, err := browser.Get(page.URL + "/api/assets")
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				failures = append(failures, resp.StatusCode)
			}
			return resp.StatusCode
		}
		direct := func(keyID, secret string) int {
			r, err := partnerapi.New(env.FrontendURL, keyID, secret).API.SwappableTargetsWithResponse(ctx,
				&client.SwappableTargetsParams{From: partnerapi.ETH})
			Expect(err).NotTo(HaveOccurred())
			return r.StatusCode()
		}
		Eventually(direct).WithArguments(oldID, oldSecret).Should(Equal(http.StatusOK), "the frontend's cache knows the key")
		Expect(assets()).To(Equal(http.StatusOK))

		By("swaprouter keys rotate: both keys work during the grace period")
		rotated, err := auth.RotateKey(ctx, env.Client, env.Namespace, "swap-app", "", time.Hour)
		Expect(err).NotTo(HaveOccurred())
		Expect(rotated.Retiring.ID).To(Equal(oldID))
		Eventually(direct).WithArguments(rotated.ID, rotated.Secret).Should(Equal(http.StatusOK))
		Expect(direct(oldID, oldSecret)).To(Equal(http.StatusOK))
		Expect(assets()).To(Equal(http.StatusOK))

		By("the Secret changes under the running app, which moves to the new key")
		Expect(secretvolume.Write(secretDir, map[string]string{"keyId": rotated.ID, "secret": rotated.Secret})).To(Succeed())
		Eventually(func() string { assets(); return keys.Current().ID }).Should(Equal(rotated.ID))
		Expect(assets()).To(Equal(http.StatusOK))

		By("the old key ends (its grace over, or revoked): the app does not notice")
		_, err = auth.RevokeKey(ctx, env.Client, env.Namespace, "swap-app", oldID)
		Expect(err).NotTo(HaveOccurred())
		Eventually(direct).WithArguments(oldID, oldSecret).Should(Equal(http.StatusUnauthorized))
		Expect(assets()).To(Equal(http.StatusOK))
		Expect(failures).To(BeEmpty(), "page requests that failed during the rotation")
	})
})
