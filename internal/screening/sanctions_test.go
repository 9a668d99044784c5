package screening

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestSanctionsKeepsTheLastGoodList(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	s, err := NewSanctions(reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	sender := []Subject{{Field: "sender", Chain: "tron", Address: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"}}
	if _, ok := s.Screen(context.Background(), sender); ok {
		t.Fatalf("consulted before any ConfigMap was seen")
	}
	if err := s.Load([]byte("not sdn"), ""); err == nil {
		t.Fatalf("garbage loaded")
	}
	a, ok := s.Screen(context.Background(), sender)
	if !ok || !strings.HasPrefix(a.Source.Unavailable, "no sanctions list has parsed yet") {
		t.Fatalf("a ConfigMap that never parsed: %+v", a)
	}
	if err := s.Load([]byte(sampleSDN), "2026-01-02"); err != nil {
		t.Fatal(err)
	}
	if got := testutil.ToFloat64(s.m.addresses.WithLabelValues("evm")); got != 3 {
		t.Errorf("evm addresses metric %v, want 3", got)
	}
	if err := s.Load([]byte("<html>"), "2026-01-03"); err == nil {
		t.Fatalf("garbage loaded")
	}
	a, _ = s.Screen(context.Background(), sender)
	if a.Source.Unavailable != "" || len(a.Matches) != 1 || !strings.HasPrefix(a.Source.Version, "2026-01-02 sha256:") {
		t.Fatalf("after a bad update the last good list no longer answers: %+v", a)
	}
	if testutil.ToFloat64(s.m.failing) != 1 || testutil.ToFloat64(s.m.failures) != 2 {
		t.Errorf("failing %v, failures %v", testutil.ToFloat64(s.m.failing), testutil.ToFloat64(s.m.failures))
	}
	if testutil.ToFloat64(s.m.addresses.WithLabelValues("evm")) != 3 {
		t.Errorf("a failed load changed the size metric")
	}
}
