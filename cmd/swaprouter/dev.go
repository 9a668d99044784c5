package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/swaprouter/swaprouter/internal/devenv"
)

func newDevCommand() *cobra.Command {
	opts := devenv.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run the whole system locally: control plane, CRDs, simulator, controllers, frontend",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// First signal: graceful stop of every part. A second one ends the process.
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			go func() {
				<-ctx.Done()
				stop()
			}()
			return devenv.Run(ctx, opts, cmd.OutOrStdout())
		},
	}
	opts.BindFlags(cmd.Flags())
	return cmd
}
