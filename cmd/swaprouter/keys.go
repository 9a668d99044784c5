package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/swaprouter/swaprouter/internal/auth"
)

func newKeysCommand() *cobra.Command {
	keys := &cobra.Command{Use: "keys", Short: "Manage partner API keys"}

	var partner, namespace string
	create := &cobra.Command{
		Use:   "create --partner NAME",
		Short: "Create an API key for a partner; the secret is printed once and only its hash is stored",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := clusterClient()
			if err != nil {
				return err
			}
			keyID, secret, err := auth.CreateKey(cmd.Context(), c, namespace, partner)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "X-Key-Id: %s\nSecret:   %s\n", keyID, secret)
			fmt.Fprintln(cmd.ErrOrStderr(), "Store the secret now: it is not kept anywhere and cannot be shown again.")
			return nil
		},
	}
	create.Flags().StringVar(&partner, "partner", "", "name of the Partner")
	create.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace(), "namespace of the Partner (default: the kubeconfig context's)")
	_ = create.MarkFlagRequired("partner")
	keys.AddCommand(create)
	return keys
}
