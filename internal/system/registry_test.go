package system_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/swaprouter/swaprouter/internal/system"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// Two systems in one process, each given its own registry, both build (no duplicate
// registration), and each registry holds every metric the shipped alert rules read: nothing
// the service measures goes around the registerer it is given.
func TestSystemsRegisterEveryAlertedMetricWithTheirOwnRegistry(t *testing.T) {
	plane, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = plane.Env.Stop() })

	alerted := alertedMetrics(t)
	for i := range 2 {
		o := system.DefaultOptions()
		o.Namespace = "registry-test"
		o.FrontendAddr, o.ProbeAddr, o.MetricsAddr = "127.0.0.1:0", "0", "0"
		// Never reached: the archive and Redis are only dialled once the manager runs.
		o.ArchiveDSN, o.ArchiveRetention = "postgres://nobody@127.0.0.1:1/none", time.Hour
		o.RedisURL = "redis://127.0.0.1:1/0"
		reg := &describedRegistry{Registry: prometheus.NewRegistry()}
		o.Metrics = reg
		if _, err := system.New(plane.Config, o); err != nil {
			t.Fatalf("system %d: %v", i+1, err)
		}
		var missing []string
		for _, name := range alerted {
			if !slices.Contains(reg.names, name) {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			t.Errorf("system %d: metrics the alert rules read are not in its registry: %v", i+1, missing)
		}
	}
}

// alertedMetrics are the swaprouter metric families the alert rules read.
func alertedMetrics(t *testing.T) []string {
	t.Helper()
	rules, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "config", "prometheus", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range regexp.MustCompile(`swaprouter_[a-z_]+`).FindAllString(string(rules), -1) {
		for _, series := range []string{"_bucket", "_count", "_sum"} {
			n = strings.TrimSuffix(n, series)
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		t.Fatal("no swaprouter metric in the alert rules")
	}
	return names
}

// describedRegistry records the name of every metric registered with it, series or not yet.
type describedRegistry struct {
	*prometheus.Registry
	names []string
}

var fqName = regexp.MustCompile(`fqName: "([^"]+)"`)

func (r *describedRegistry) Register(c prometheus.Collector) error {
	if err := r.Registry.Register(c); err != nil {
		return err
	}
	descs := make(chan *prometheus.Desc)
	go func() { c.Describe(descs); close(descs) }()
	for d := range descs {
		if m := fqName.FindStringSubmatch(d.String()); m != nil {
			r.names = append(r.names, m[1])
		}
	}
	return nil
}

func (r *describedRegistry) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}
