package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/swaprouter/swaprouter/internal/auth"
)

// newKeysCommand is `swaprouter keys`; connect gives the cluster client (the kubeconfig's).
func newKeysCommand(connect func() (client.Client, error)) *cobra.Command {
	keys := &cobra.Command{
		Use:   "keys",
		Short: "Manage partner API keys: create, list, rotate, revoke",
		Long: `A partner holds at most two live keys. create adds one while there is room and never
retires another; rotate replaces one, which keeps working for a grace period beside its
successor; revoke ends a key at once. Secrets are printed once; only their SHA-256 is stored.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var namespace string
	keys.PersistentFlags().StringVarP(&namespace, "namespace", "n", defaultNamespace(), "namespace of the Partners (default: the kubeconfig context's)")

	var partner string
	create := &cobra.Command{
		Use:   "create --partner NAME",
		Short: "Create an API key for a partner that has fewer than two live keys; the secret is printed once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			keyID, secret, err := auth.CreateKey(cmd.Context(), c, namespace, partner)
			if err != nil {
				return err
			}
			printNewKey(cmd, keyID, secret)
			return nil
		},
	}
	create.Flags().StringVar(&partner, "partner", "", "name of the Partner")
	_ = create.MarkFlagRequired("partner")

	var retire string
	var grace time.Duration
	rotate := &cobra.Command{
		Use:   "rotate --partner NAME [--key KEY] [--grace DURATION]",
		Short: "Create a key that replaces one (default: the oldest); the replaced key works until the grace period ends",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			k, err := auth.RotateKey(cmd.Context(), c, namespace, partner, retire, grace)
			if err != nil {
				return err
			}
			printNewKey(cmd, k.ID, k.Secret)
			fmt.Fprintf(cmd.ErrOrStderr(), "Key %s keeps working until %s (%s from now); move every client to the new key before then.\n",
				k.Retiring.ID, k.Retiring.ExpiresAt.UTC().Format(time.RFC3339), grace)
			return nil
		},
	}
	rotate.Flags().StringVar(&partner, "partner", "", "name of the Partner")
	rotate.Flags().StringVar(&retire, "key", "", "the key to replace (default: the partner's oldest live key not already expiring)")
	rotate.Flags().DurationVar(&grace, "grace", auth.DefaultRotationGrace, "how long the replaced key keeps working beside the new one")
	_ = rotate.MarkFlagRequired("partner")

	revoke := &cobra.Command{
		Use:   "revoke KEY [--partner NAME]",
		Short: "End a key now: it stops authenticating as soon as each frontend replica sees the change (seconds)",
		Args:  exactlyOne("the key id to revoke (X-Key-Id, see `swaprouter keys list`)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			owner, err := auth.RevokeKey(cmd.Context(), c, namespace, partner, args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked key %s of partner %s\n", args[0], owner)
			return nil
		},
	}
	revoke.Flags().StringVar(&partner, "partner", "", "name of the Partner (default: the one that lists the key)")

	list := &cobra.Command{
		Use:   "list [--partner NAME]",
		Short: "List keys with when each was created, last used and expires",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := connect()
			if err != nil {
				return err
			}
			infos, err := auth.ListKeys(cmd.Context(), c, namespace, partner)
			if err != nil {
				return err
			}
			return printKeys(cmd.OutOrStdout(), infos, time.Now())
		},
	}
	list.Flags().StringVar(&partner, "partner", "", "name of the Partner (default: every Partner of the namespace)")

	keys.AddCommand(create, list, rotate, revoke)
	return keys
}

// exactlyOne wants one argument, named what in the error when it is missing.
func exactlyOne(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("want one argument, %s; got %d", what, len(args))
		}
		return nil
	}
}

func printNewKey(cmd *cobra.Command, keyID, secret string) {
	fmt.Fprintf(cmd.OutOrStdout(), "X-Key-Id: %s\nSecret:   %s\n", keyID, secret)
	fmt.Fprintln(cmd.ErrOrStderr(), "Store the secret now: it is not kept anywhere and cannot be shown again.")
}

// printKeys writes the keys as a table: times in UTC to the second, "never" for a key no
// request used (as far as the frontend recorded), the state beside an expiry.
func printKeys(w io.Writer, infos []auth.KeyInfo, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PARTNER\tKEY\tCREATED\tLAST USED\tEXPIRES")
	for _, k := range infos {
		expires := "never"
		if k.ExpiresAt != nil {
			state := "in " + k.ExpiresAt.Sub(now).Round(time.Minute).String()
			if !now.Before(k.ExpiresAt.Time) {
				state = "expired"
			}
			expires = stamp(k.ExpiresAt, "") + " (" + state + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Partner, k.ID, stamp(k.CreatedAt, "unknown"), stamp(k.LastUsed, "never"), expires)
	}
	return tw.Flush()
}

func stamp(t *metav1.Time, none string) string {
	if t == nil {
		return none
	}
	return t.UTC().Format(time.RFC3339)
}
