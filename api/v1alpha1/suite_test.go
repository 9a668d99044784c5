package v1alpha1_test

import (
	"context"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// These specs run against a real kube-apiserver with the generated CRDs, so they check the
// OpenAPI schema and CEL rules exactly as a cluster enforces them.
func TestAPIValidation(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CRD validation")
}

var (
	env       *envtest.Environment
	k8sClient client.Client
	namespace string
)

var _ = BeforeSuite(func(ctx context.Context) {
	plane, err := testenv.Start()
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(plane.Env.Stop)
	env, k8sClient = plane.Env, plane.Client
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "crd-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	namespace = ns.Name
})
