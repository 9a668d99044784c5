package main

import "k8s.io/client-go/tools/clientcmd"

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
