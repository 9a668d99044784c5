// Package scheme builds the runtime scheme every client and manager of swaprouter uses.
package scheme

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
)

// New returns a scheme with the built-in kinds and the swap.swaprouter.dev kinds.
func New() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err) // only fails on programming errors (conflicting registrations)
	}
	if err := swapv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}
