package e2e

import (
	"context"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/auth"
)

// newPartnerClient declares another partner with its own key, as an operator would, and
// returns a client for it once the frontend's cache knows the key.
func newPartnerClient(name string, requestsPerMinute int32) *apiClient {
	ctx := context.Background()
	p := &swapv1.Partner{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: env.Namespace},
		Spec:       swapv1.PartnerSpec{RequestsPerMinute: requestsPerMinute},
	}
	Expect(client.IgnoreAlreadyExists(env.Client.Create(ctx, p))).To(Succeed())
	keyID, secret, err := auth.CreateKey(ctx, env.Client, env.Namespace, name)
	Expect(err).NotTo(HaveOccurred())
	c := newAPIClient(env.FrontendURL, keyID, secret)
	Eventually(func() int { return c.get("/v1/swappable-targets?from=" + ethETH).Status }).
		ShouldNot(Equal(401), "the frontend's cache has the new key")
	return c
}
