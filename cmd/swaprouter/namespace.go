package main

import (
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/scheme"
)

// deployedNamespace is where config/default puts the service.
const deployedNamespace = "swaprouter-system"

// defaultNamespace is the namespace of the kubeconfig's current context, as kubectl would use
// it, else deployedNamespace.
func defaultNamespace() string {
	raw, err := clientcmd.NewDefaultClientConfigLoadingRules().Load()
	if err != nil {
		return deployedNamespace
	}
	if c := raw.Contexts[raw.CurrentContext]; c != nil && c.Namespace != "" {
		return c.Namespace
	}
	return deployedNamespace
}

// clusterClient talks to the cluster of the kubeconfig (or the Pod's service account).
func clusterClient() (client.Client, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: scheme.New()})
}
