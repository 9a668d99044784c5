package controllers

import (
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// withWake adds wake, when set, as one more source of a controller's reconcile requests. It
// is the tests' hook (each reconciler's Wake field, nil in production): a test that moved a
// reconciler's Now past a timer wakes the objects waiting on it, since a RequeueAfter
// already queued keeps its wall-clock delay.
func withWake(b *builder.Builder, wake source.Source) *builder.Builder {
	if wake != nil {
		return b.WatchesRawSource(wake)
	}
	return b
}
