package main

import (
	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/swaprouter/swaprouter/internal/system"
)

func newManagerCommand() *cobra.Command {
	opts := system.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "manager",
		Short: "Run the controllers and/or the /v1 frontend against a cluster (kubeconfig or in-cluster)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := ctrl.GetConfig()
			if err != nil {
				return err
			}
			sys, err := system.New(cfg, opts)
			if err != nil {
				return err
			}
			return sys.Manager.Start(ctrl.SetupSignalHandler())
		},
	}
	opts.BindFlags(cmd.Flags())
	return cmd
}
