package bench

import (
	"reflect"
	"testing"
)

func TestParseAPIWrites(t *testing.T) {
	text := `# HELP apiserver_request_total Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="swap.swaprouter.dev",resource="swaporders",scope="resource",subresource="",verb="POST",version="v1alpha1"} 12
apiserver_request_total{code="409",component="apiserver",dry_run="",group="swap.swaprouter.dev",resource="swaporders",scope="resource",subresource="",verb="POST",version="v1alpha1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="swap.swaprouter.dev",resource="swaporders",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 30
apiserver_request_total{code="200",component="apiserver",dry_run="",group="swap.swaprouter.dev",resource="swaporders",scope="resource",subresource="",verb="GET",version="v1alpha1"} 99
apiserver_request_total{code="201",component="apiserver",dry_run="",group="events.k8s.io",resource="events",scope="resource",subresource="",verb="POST",version="v1"} 7
apiserver_request_duration_seconds_count{verb="POST"} 5
`
	got := parseAPIWrites(text)
	want := map[string]float64{"POST swaporders": 13, "PATCH swaporders/status": 30, "POST events": 7}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if d := writesBetween(map[string]float64{"POST swaporders": 10}, got); d["POST swaporders"] != 3 || sumWrites(d) != 40 {
		t.Fatalf("between: %v", d)
	}
}
