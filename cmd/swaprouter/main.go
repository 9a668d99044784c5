// Command swaprouter is the swap routing service, the one binary of the image: `manager` runs
// controllers and the /v1 frontend against a cluster, `app` serves the consumer swap page and
// its backend, `keys` manages partner API keys, `quote-keys` the keyset that seals quoteIds
// and cursors, `orders` reads live and archived orders, `receipt` verifies order receipts and
// rotates their signing keys, `sanctions` keeps the sanctions list current, `version` prints
// the build. The local dev system is cmd/swaprouter-dev.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	logOpts := zap.Options{Development: false}
	root := &cobra.Command{
		Use:           "swaprouter",
		Short:         "Cross-chain swap routing service (Kubernetes operator and /v1 partner API)",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(*cobra.Command, []string) {
			ctrl.SetLogger(zap.New(zap.UseFlagOptions(&logOpts)))
		},
	}
	logFlags := flag.NewFlagSet("log", flag.ContinueOnError)
	logOpts.BindFlags(logFlags)
	root.PersistentFlags().AddGoFlagSet(logFlags)

	root.AddCommand(newManagerCommand(), newAppCommand(), newKeysCommand(clusterClient), newOrdersCommand(), newQuoteKeysCommand(), newReceiptCommand(), newSanctionsCommand(), newVersionCommand())
	return root
}
