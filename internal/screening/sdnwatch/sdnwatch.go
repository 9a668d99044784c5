// Package sdnwatch keeps a screening.Sanctions list in step with the operator's ConfigMap
// swaprouter-sanctions: a watch on that one ConfigMap reloads the list as soon as the
// ConfigMap changes, in every process that screens, with no restart. What the list is worth
// (its state) follows from the ConfigMap alone, the same on every replica.
package sdnwatch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

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
	// ExtractKey holds the extract `swaprouter sanctions update` writes (the sanctions
	// CronJob's list).
	ExtractKey = "digital-currency-addresses.csv"
	// Key holds SDN.CSV as published (all of it, or the records that matter), and
	// CommentsKey SDN_COMMENTS.CSV, which continues its long remarks.
	Key         = "sdn.csv"
	CommentsKey = "sdn_comments.csv"
	// DateAnnotation, when set, is the publication date of the SDN.CSV under Key, recorded
	// with every screening decision (an extract carries its own).
	DateAnnotation = "swap.swaprouter.dev/list-date"
)

// Where names the list in messages.
const Where = "ConfigMap " + ConfigMapName

// Published is the list the ConfigMap holds; nil is no ConfigMap.
func Published(cm *corev1.ConfigMap) screening.Published {
	p := screening.Published{Where: Where}
	if cm == nil {
		return p
	}
	p.Present, p.Date = true, cm.Annotations[DateAnnotation]
	p.SDN, p.Comments, p.Extract = value(cm, Key), value(cm, CommentsKey), value(cm, ExtractKey)
	return p
}

// value is the ConfigMap's key as text or binary data; nil when it has none.
func value(cm *corev1.ConfigMap, key string) []byte {
	if s, ok := cm.Data[key]; ok {
		return []byte(s)
	}
	if b, ok := cm.BinaryData[key]; ok {
		return append([]byte{}, b...)
	}
	return nil
}

// Watch is a manager Runnable on every replica (no leader election).
type Watch struct {
	// Informers must hold ConfigMaps of Namespace (a cache narrowed to ConfigMapName).
	Informers cache.Informers
	Namespace string
	List      *screening.Sanctions
	Log       logr.Logger

	mu sync.Mutex
	// loaded is the resourceVersion last applied ("" for none): a resync is not a change.
	loaded string
	// seen: a ConfigMap was applied; synced: the watch has delivered what existed at start.
	seen, synced bool
}

var (
	_ manager.Runnable               = (*Watch)(nil)
	_ manager.LeaderElectionRunnable = (*Watch)(nil)
)

// NeedLeaderElection: every frontend replica screens.
func (w *Watch) NeedLeaderElection() bool { return false }

// Start watches the ConfigMap until ctx ends. Once the watch has delivered what existed, no
// ConfigMap is the Missing state, not a list still to come.
func (w *Watch) Start(ctx context.Context) error {
	inf, err := w.Informers.GetInformer(ctx, &corev1.ConfigMap{})
	if err != nil {
		return fmt.Errorf("watching the sanctions list ConfigMap: %w", err)
	}
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    w.apply,
		UpdateFunc: func(_, obj any) { w.apply(obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if w.ours(obj) != nil {
				w.mu.Lock()
				defer w.mu.Unlock()
				w.loaded = ""
				w.load(nil, "")
			}
		},
	})
	if err != nil {
		return err
	}
	defer func() { _ = inf.RemoveEventHandler(reg) }()
	if !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return nil // stopped before the first list
	}
	w.mu.Lock()
	if !w.seen {
		w.load(nil, "")
	}
	w.synced = true
	w.mu.Unlock()
	<-ctx.Done()
	return nil
}

// Ready is a readiness check: a replica answers orders only once it knows the list's state.
func (w *Watch) Ready(*http.Request) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.synced {
		return errors.New("the sanctions list ConfigMap has not been read yet")
	}
	return nil
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
	if cm == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = true
	if cm.ResourceVersion == w.loaded {
		return
	}
	w.loaded = cm.ResourceVersion
	w.load(cm, cm.ResourceVersion)
}

// load reads cm (nil: none) into the list and says what it is worth.
func (w *Watch) load(cm *corev1.ConfigMap, version string) {
	a := w.List.Load(Published(cm))
	if !a.State.Usable() {
		w.Log.Error(errors.New(a.Detail), "no usable sanctions list: orders are refused (fail-closed) or created unscreened by it (fail-open) until there is one",
			"configMap", ConfigMapName, "state", a.State, "resourceVersion", version)
		return
	}
	w.Log.Info("sanctions list loaded", "configMap", ConfigMapName, "resourceVersion", version, "version", a.Version(), "detail", a.Detail)
}
