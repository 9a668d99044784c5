package screening

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// BenchmarkReload10k is a reload of a 10,000-address list: parse and swap in.
func BenchmarkReload10k(b *testing.B) {
	data := SyntheticSDN(10000)
	s, err := NewSanctions(prometheus.NewRegistry(), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if a := s.Load(Published{Present: true, SDN: data, Date: "2026-01-01"}); a.State != StateLoaded {
			b.Fatal(a.Detail)
		}
	}
	b.StopTimer()
	if n := s.Assessment().List.Len(); n != 10000 {
		b.Fatalf("%d addresses", n)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	l := Assess(Published{Present: true, SDN: data})
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-retained")
	runtime.KeepAlive(l)
}

// BenchmarkScreenOrder10k is what screening adds to one order with the list as its source:
// three lookups and the answer.
func BenchmarkScreenOrder10k(b *testing.B) {
	s, err := NewSanctions(prometheus.NewRegistry(), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	if a := s.Load(Published{Present: true, SDN: SyntheticSDN(10000)}); a.State != StateLoaded {
		b.Fatal(a.Detail)
	}
	subjects := []Subject{
		{Field: "sender", Chain: "arb", Address: "0x1111111111111111111111111111111111111111"},
		{Field: "recipient", Chain: "sol", Address: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"},
		{Field: "refundTo", Chain: "arb", Address: fmt.Sprintf("0x%040X", 4)},
	}
	sources := Sources{s}
	b.ReportAllocs()
	for b.Loop() {
		if a := sources.Screen(context.Background(), subjects); len(a[0].Matches) != 1 {
			b.Fatalf("answer %+v", a)
		}
	}
}
