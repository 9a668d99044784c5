// Package sdnwatch keeps a screening.Sanctions list in step with the operator's ConfigMap
// swaprouter-sanctions (key sdn.csv): a watch on that one ConfigMap reloads the list as soon
// as the ConfigMap changes, in every process that screens, with no restart.
package sdnwatch

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/swaprouter/swaprouter/internal/screening"
)

const (
	// ConfigMapName is the ConfigMap that holds the list, in the service's namespace.
	ConfigMapName = "swaprouter-sanctions"
	// Key is the data key of the list, SDN.CSV as published.
	Key = "sdn.csv"
	// DateAnnotation, when set (e.g. from the download's Last-Modified), is the list's
	// publication date recorded with every screening decision.
	DateAnnotation = "swap.swaprouter.dev/list-date"
)

// Watch is a manager Runnable on every replica (no leader election).
type Watch struct {
	// Informers must hold ConfigMaps of Namespace (a cache narrowed to ConfigMapName).
	Informers cache.Informers
	Namespace string
	List      *screening.Sanctions
	Log       logr.Logger
	// loaded is the resourceVersion last applied: a resync is not a change.
	loaded string
}

var (
	_ manager.Runnable               = (*Watch)(nil)
	_ manager.LeaderElectionRunnable = (*Watch)(nil)
)

// NeedLeaderElection: every frontend replica screens.
func (w *Watch) NeedLeaderElection() bool { return false }

// Start watches the ConfigMap until ctx ends.
func (w *Watch) Start(ctx context.Context) error {
	inf, err := w.Informers.GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		return fmt.Errorf("watching the sanctions list ConfigMap: %w", err)
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    w.apply,
		UpdateFunc: func(_, obj any) { w.apply(obj) },
		DeleteFunc: func(obj any) {
			if w.ours(obj) != nil {
				w.Log.Info("the sanctions list ConfigMap was deleted; screening keeps the last list it loaded", "configMap", ConfigMapName)
			}
		},
	})
	if err != nil {
		return err
	}
	<-ctx.Done()
	return inf.RemoveEventHandler(reg)
}

// ours is obj when it is the list's ConfigMap.
func (w *Watch) ours(obj any) *corev1.ConfigMap {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Namespace != w.Namespace || cm.Name != ConfigMapName {
		return nil
	}
	return cm
}

// apply loads a new version of the ConfigMap into the list.
func (w *Watch) apply(obj any) {
	cm := w.ours(obj)
	if cm == nil || cm.ResourceVersion == w.loaded {
		return
	}
	w.loaded = cm.ResourceVersion
	data, ok := cm.Data[Key]
	if !ok {
		data = string(cm.BinaryData[Key])
	}
	if err := w.List.Load([]byte(data), cm.Annotations[DateAnnotation]); err != nil {
		w.Log.Error(err, "the sanctions list does not parse; screening keeps the last list it loaded", "configMap", ConfigMapName, "key", Key)
		return
	}
	w.Log.Info("sanctions list loaded", "configMap", ConfigMapName, "resourceVersion", cm.ResourceVersion)
}
