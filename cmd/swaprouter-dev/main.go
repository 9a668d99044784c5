// Command swaprouter-dev runs the whole system on this machine (what `make run` runs): the
// envtest control plane, PostgreSQL, the provider simulator, the controllers, the /v1 frontend
// and the swap app. It is a development tool and never ships in the image; the service itself
// is cmd/swaprouter.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/swaprouter/swaprouter/internal/dev/devenv"
)

func main() {
	if err := newCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func newCommand() *cobra.Command {
	opts := devenv.DefaultOptions()
	cmd := &cobra.Command{
		Use:           "swaprouter-dev",
		Short:         "Run the whole system locally: control plane, CRDs, simulator, controllers, frontend, swap app",
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// First signal: an orderly stop of every part. A second one: end the control
			// plane at once and exit, rather than leave it running without us.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				again := make(chan os.Signal, 1)
				signal.Notify(again, os.Interrupt, syscall.SIGTERM)
				<-again
				fmt.Fprintln(cmd.ErrOrStderr(), "second signal: killing the control plane and exiting")
				devenv.KillControlPlane()
				os.Exit(130)
			}()
			return devenv.Run(ctx, opts, cmd.OutOrStdout())
		},
	}
	opts.BindFlags(cmd.Flags())
	return cmd
}
