package quotesig

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkMessage is the canonical form and hash of a quote response, the work of every
// 1Click quote twice over in make run and the benchmarks (the simulator signs, the adapter
// verifies).
func BenchmarkMessage(b *testing.B) {
	for _, name := range []string{"dry.json", "bound.json"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Message(raw); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
