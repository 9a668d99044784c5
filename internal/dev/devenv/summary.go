package devenv

import (
	"fmt"
	"strings"
)

// Addresses are what the dev system serves, for the summary.
type Addresses struct {
	App, API, Metrics, Simulator, Receiver string
	EnvFile, LogFile, Namespace            string
	// QuoteKey is the key the simulated route_A signs its quotes with.
	QuoteKey string
}

// summary is the screen `swaprouter-dev` leaves on the terminal: where to click first, then
// what a partner or an operator uses; the logs are in a file.
func summary(a Addresses) string {
	var b strings.Builder
	b.WriteString("\nswaprouter-dev is running. Ctrl-C stops everything.\n\n")
	row := func(name, value, note string) {
		if value == "" {
			return
		}
		fmt.Fprintf(&b, "  %s\n", strings.TrimRight(fmt.Sprintf("%-11s %-34s %s", name, value, note), " "))
	}
	row("Swap app", a.App, "open it in a browser")
	row("/v1 API", a.API, "partner key in dev.env")
	row("Metrics", a.Metrics, "")
	row("Simulator", a.Simulator, "")
	row("Quote key", a.QuoteKey, "route_A's signatures; route-a's spec.quoteSigningKey")
	row("Webhooks", a.Receiver, "receiver prints each verified event")
	row("Logs", a.LogFile, "(--verbose prints them here)")
	fmt.Fprintf(&b, "\n  source %s\n", a.EnvFile)
	fmt.Fprintf(&b, "  kubectl get swaporders -n %s\n", a.Namespace)
	b.WriteString("  The API in five minutes: README.md\n")
	return b.String()
}
