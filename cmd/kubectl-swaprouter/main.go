// Command kubectl-swaprouter is the kubectl plugin for swaprouter operators
// (`go install ./cmd/kubectl-swaprouter`, then `kubectl swaprouter pause ORDER -n NS`).
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
