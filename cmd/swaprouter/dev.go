package main

import (
	"context"
	"fmt"
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
		// Instead of the root's console logger, Run sends the logs to the data folder (after
		// --reset wiped it), so the summary stays readable.
		PersistentPreRun: func(*cobra.Command, []string) {},
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
