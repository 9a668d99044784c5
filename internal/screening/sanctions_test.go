package screening

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The list answers from the ConfigMap it last read alone: a broken list after a good one is
// broken, as it is on a replica that never saw the good one.
func TestSanctionsAnswersFromTheListItLastRead(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	s, err := NewSanctions(reg, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	sender := []Subject{{Field: "sender", Chain: "tron", Address: "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"}}
	screen := func() Answer {
		t.Helper()
		a, ok := s.Screen(context.Background(), sender)
		if !ok {
			t.Fatal("the list is not consulted")
		}
		return a
	}
	state := func(st State) float64 {
		return testutil.ToFloat64(s.m.state.WithLabelValues(strings.ToLower(string(st))))
	}
	if a := screen(); !a.NoList || a.Source.Unavailable != "the sanctions list has not been read yet" {
		t.Fatalf("before the first read: %+v", a)
	}

	s.Load(Published{Where: "ConfigMap swaprouter-sanctions"})
	if a := screen(); !a.NoList || a.Source.Unavailable != "the sanctions list is missing: ConfigMap swaprouter-sanctions does not exist" {
		t.Fatalf("no ConfigMap: %+v", a)
	}
	if state(StateMissing) != 1 || state(StateLoaded) != 0 {
		t.Errorf("state gauge: missing %v, loaded %v", state(StateMissing), state(StateLoaded))
	}

	s.Load(Published{Present: true, SDN: []byte(sampleSDN), Date: "2026-01-02"})
	a := screen()
	if a.NoList || a.Source.Unavailable != "" || len(a.Matches) != 1 || !strings.HasPrefix(a.Source.Version, "2026-01-02 sha256:") {
		t.Fatalf("a good list: %+v", a)
	}
	if got := testutil.ToFloat64(s.m.addresses.WithLabelValues(SchemeEVM)); got != 4 {
		t.Errorf("evm keys metric %v, want 4", got)
	}
	if state(StateLoaded) != 1 || state(StateMissing) != 0 {
		t.Errorf("state gauge: loaded %v, missing %v", state(StateLoaded), state(StateMissing))
	}

	failures := testutil.ToFloat64(s.m.unusable)
	s.Load(Published{Present: true, SDN: []byte("<html>503 Service Unavailable</html>"), Date: "2026-01-03"})
	a = screen()
	if !a.NoList || !strings.HasPrefix(a.Source.Unavailable, "the sanctions list is broken: SDN.CSV line 1") || len(a.Matches) != 0 {
		t.Fatalf("a broken list after a good one: %+v", a)
	}
	if state(StateBroken) != 1 || state(StateLoaded) != 0 || testutil.ToFloat64(s.m.unusable) != failures+1 {
		t.Errorf("broken %v, loaded %v, failures %v", state(StateBroken), state(StateLoaded), testutil.ToFloat64(s.m.unusable))
	}
	if n := testutil.CollectAndCount(s.m.addresses); n != 0 {
		t.Errorf("a broken list still counts %d key schemes", n)
	}
}

// An incomplete list cannot clear anyone, but what it does list still matches.
func TestIncompleteListStillMatches(t *testing.T) {
	s, err := NewSanctions(prometheus.NewRegistry(), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	s.Load(Published{Present: true, SDN: readFixture(t, "SDN.CSV")})
	a, _ := s.Screen(context.Background(), []Subject{{Field: "recipient", Chain: "eth", Address: mixerETH}})
	if !a.NoList || !strings.HasPrefix(a.Source.Unavailable, "the sanctions list is incomplete: SDN.CSV cuts the remarks of ent_num 90201, 90202, 90203") ||
		len(a.Matches) != 1 || a.Source.Version == "" {
		t.Fatalf("an incomplete list: %+v", a)
	}
}
