package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// AdmissionOverlay holds the admission policies config/default ships: who may write which
// fact of an order, a Partner's usage, a webhook delivery and a redelivery request.
const AdmissionOverlay = "config/admission"

// admissionSyncBound bounds the wait for a stuck API server to enforce freshly applied
// policies (it loads them from its own informers, usually within a second).
const admissionSyncBound = time.Minute

// InstallAdmission applies config/admission as kustomize renders it and waits until the API
// server enforces it, so a control plane for tests or `swaprouter dev` is protected the way
// a cluster is.
func InstallAdmission(ctx context.Context, c client.Client) error {
	rendered, err := Kubectl("", nil, "kustomize", filepath.Join(RepoRoot(), AdmissionOverlay))
	if err != nil {
		return err
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(rendered), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", AdmissionOverlay, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("testenv"), client.ForceOwnership); err != nil {
			return fmt.Errorf("applying %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, admissionSyncBound, true, func(ctx context.Context) (bool, error) {
		return admissionEnforced(ctx, c), nil
	})
}

// admissionEnforced dry-runs two order creations: one setting an operator annotation must
// come back stamped with its requester (the mutating policy), one carrying a stamp without
// its annotation must be refused (the validating policy); and a redelivery request, which
// must come back naming its requester.
func admissionEnforced(ctx context.Context, c client.Client) bool {
	rq := &swapv1.RedeliveryRequest{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "admission-probe"},
		Spec:       swapv1.RedeliveryRequestSpec{Partner: "probe", OrderID: "ord_" + strings.Repeat("a", 26)},
	}
	if err := c.Create(ctx, rq, client.DryRunAll); err != nil || rq.Spec.RequestedBy == "" {
		return false
	}
	stamp := swapv1.RequestedBy(swapv1.AnnotationPoll)
	asked := probeOrder(map[string]string{swapv1.AnnotationPoll: "probe"})
	if err := c.Create(ctx, asked, client.DryRunAll); err != nil || asked.Annotations[stamp] == "" {
		return false
	}
	forged := probeOrder(map[string]string{stamp: "probe"})
	err := c.Create(ctx, forged, client.DryRunAll)
	return err != nil && strings.Contains(err.Error(), "swaprouter-swaporder-writers")
}

func probeOrder(annotations map[string]string) *swapv1.SwapOrder {
	return &swapv1.SwapOrder{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "admission-probe", Annotations: annotations},
		Spec: swapv1.SwapOrderSpec{
			OrderID: "ord_" + strings.Repeat("a", 26), Partner: "probe", ProviderID: swapv1.ProviderRouteA,
			OriginAsset: "eip155:1/slip44:60", DestinationAsset: "eip155:42161/slip44:60", Amount: "1",
			Sender: "probe", Recipient: "probe",
		},
	}
}
