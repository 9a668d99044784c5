// Command kubectl-swaprouter is the kubectl plugin for swaprouter operators
// (`go install ./cmd/kubectl-swaprouter`, then `kubectl swaprouter pause ORDER -n NS`). It
// exits 1 with the reason when a request is refused, by the plugin or by the controller.
package main

import (
	"fmt"
	"os"

	"github.com/swaprouter/swaprouter/internal/opctl"
)

func main() {
	if err := opctl.NewCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
