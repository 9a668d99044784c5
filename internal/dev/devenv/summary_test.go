package devenv

import (
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	got := summary(Addresses{
		App: "http://127.0.0.1:8088", API: "http://127.0.0.1:8080", Metrics: "http://127.0.0.1:9090/metrics",
		Simulator: "http://127.0.0.1:18080", EnvFile: ".swaprouter/dev.env", LogFile: ".swaprouter/swaprouter.log",
		Namespace: "swaprouter-dev", QuoteKey: "ed25519:DBrZ3teZHzei6fE2SDFvU73xasd1oZa54wc6GbVSfzkD",
	})
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if !strings.Contains(lines[2], "Swap app") || !strings.Contains(lines[2], "http://127.0.0.1:8088") {
		t.Errorf("the app's address is not the first row:\n%s", got)
	}
	for _, want := range []string{"/v1 API     http://127.0.0.1:8080", "Metrics     http://127.0.0.1:9090/metrics",
		"source .swaprouter/dev.env", "Logs        .swaprouter/swaprouter.log",
		"Quote key   ed25519:DBrZ3teZHzei6fE2SDFvU73xasd1oZa54wc6GbVSfzkD route_A's signatures"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("line %q ends in spaces (a copied line drags them along)", l)
		}
	}
	if strings.Contains(got, "Webhooks") {
		t.Errorf("a receiver that is not running is listed:\n%s", got)
	}
}
