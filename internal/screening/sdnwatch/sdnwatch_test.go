package sdnwatch

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllertest"

	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/screening"
)

// A replica is not ready before it has read what exists; once it has, no ConfigMap is the
// Missing state, and every later change (a broken list after a good one, a deletion) is
// the state of that ConfigMap alone.
func TestWatchFollowsTheConfigMap(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := NewWithT(t)
	inf := controllertest.NewFakeInformer()
	informers := &informertest.FakeInformers{Scheme: scheme.New(),
		InformersByGVK: map[schema.GroupVersionKind]toolscache.SharedIndexInformer{corev1.SchemeGroupVersion.WithKind("ConfigMap"): inf}}
	list, err := screening.NewSanctions(prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	w := &Watch{Informers: informers, Namespace: "swap", List: list, Log: logr.Discard()}
	done := make(chan error, 1)
	go func() { done <- w.Start(ctx) }()
	if err := w.Ready(nil); err == nil {
		t.Fatal("ready before the ConfigMap was read")
	}
	inf.Synced()
	g.Eventually(func() error { return w.Ready(nil) }).WithTimeout(time.Minute).Should(Succeed(), "ready once synced")
	if st := list.Assessment().State; st != screening.StateMissing {
		t.Fatalf("no ConfigMap reads as %q", st)
	}

	var extract bytes.Buffer
	if err := screening.WriteExtract(&extract, screening.Extract{Published: "2022-01-20T15:04:05Z", Records: 1,
		Entries: []screening.Entry{{EntNum: 1, Ticker: "ETH", Address: "0x098B716B8Aaf21512996dC57EB0615e2383E2f96"}}}); err != nil {
		t.Fatal(err)
	}
	good := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ConfigMapName, Namespace: "swap", ResourceVersion: "1"},
		Data: map[string]string{ExtractKey: extract.String()}}
	inf.Add(good)
	if st := list.Assessment().State; st != screening.StateLoaded {
		t.Fatalf("the extract reads as %q", st)
	}
	other := good.DeepCopy()
	other.Name, other.ResourceVersion, other.Data = "another", "2", nil
	inf.Add(other)
	if st := list.Assessment().State; st != screening.StateLoaded {
		t.Fatalf("another ConfigMap changed the list: %q", st)
	}
	broken := good.DeepCopy()
	broken.ResourceVersion, broken.Data = "3", map[string]string{Key: "<html>503</html>"}
	inf.Update(good, broken)
	if st := list.Assessment().State; st != screening.StateBroken {
		t.Fatalf("a broken list after a good one reads as %q", st)
	}
	inf.Delete(broken)
	if st := list.Assessment().State; st != screening.StateMissing {
		t.Fatalf("a deleted ConfigMap reads as %q", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
