// Package opctl is the kubectl plugin `kubectl swaprouter`: operator controls on one
// SwapOrder, written as the annotations the order reconciler acts on (api/v1alpha1
// swaporder_operator_types.go). The plugin reads the order first and refuses at once what
// the reconciler would refuse (verbs.Decide, which both use); after writing it waits until
// the reconciler has acted and reports the outcome, a refusal included, as its exit status.
package opctl

import (
	"encoding/json"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/opctl/verbs"
)

// DefaultWait bounds the wait for the order reconciler. Requests on archived orders still in
// etcd are answered by the TTL sweep, which runs at least once a minute.
const DefaultWait = 2 * time.Minute

// NewCommand returns the root command. Kubeconfig flags (--kubeconfig, --context,
// -n/--namespace, --server, --token, ...) are client-go's, as kubectl's own.
func NewCommand() *cobra.Command {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	overrides := &clientcmd.ConfigOverrides{}
	root := &cobra.Command{
		Use:           "kubectl-swaprouter",
		Short:         "Operator controls on swaprouter orders: pause, resume, poll, resolve, redeliver, approve, reject",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&loading.ExplicitPath, "kubeconfig", "", "path to the kubeconfig file")
	clientcmd.BindOverrideFlags(overrides, root.PersistentFlags(), clientcmd.RecommendedConfigOverrideFlags(""))
	var by, dsn string
	wait := DefaultWait
	root.PersistentFlags().StringVar(&by, "by", "", "a name recorded in the request's text (default: the kubeconfig user, else $USER); who asked is always the user the API server authenticated")
	root.PersistentFlags().StringVar(&dsn, "archive-dsn", os.Getenv("SWAPROUTER_ARCHIVE_DSN"),
		"PostgreSQL DSN of the order archive (default $SWAPROUTER_ARCHIVE_DSN): tells an archived order from one that does not exist, and lets redeliver act on orders that left etcd")
	root.PersistentFlags().DurationVar(&wait, "wait", wait, "how long to wait for the order controller to act")

	open := func(cmd *cobra.Command) (*session, error) {
		return openSession(cmd, loading, overrides, by, dsn, wait)
	}

	var reason string
	pause := &cobra.Command{
		Use:   "pause ORDER",
		Short: "Stop the order's provider steps (address creation, hints, polls) until resume",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := open(cmd)
			if err != nil {
				return err
			}
			defer s.close()
			why := strings.TrimSpace(reason)
			if why == "" {
				why = "no reason given"
			}
			return s.ask(cmd.Context(), args[0], verbs.Request{Verb: verbs.Pause}, why)
		},
	}
	pause.Flags().StringVar(&reason, "reason", "", "why the order is paused (shown in its Paused condition, after who paused it)")

	resume := &cobra.Command{
		Use:   "resume ORDER",
		Short: "Let a paused order take provider steps again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := open(cmd)
			if err != nil {
				return err
			}
			defer s.close()
			// A resume removes the pause and its stamp: who resumes is who the API server
			// says this user is.
			return s.ask(cmd.Context(), args[0], verbs.Request{Verb: verbs.Resume}, s.whoami(cmd.Context()))
		},
	}

	// A request annotation carries the time of the request, so asking twice changes it and
	// the reconciler looks again even if it has not consumed the first.
	request := func(v verbs.Verb, short string) *cobra.Command {
		return &cobra.Command{
			Use: string(v) + " ORDER", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				s, err := open(cmd)
				if err != nil {
					return err
				}
				defer s.close()
				return s.ask(cmd.Context(), args[0], verbs.Request{Verb: v}, s.by+"@"+time.Now().UTC().Format(time.RFC3339Nano))
			},
		}
	}
	poll := request(verbs.Poll, "Ask the provider for the order's status now (paused or not)")
	redeliver := request(verbs.Redeliver, "Send every webhook event of the order again (same webhook-id), also of an archived order")

	var status string
	resolve := &cobra.Command{
		Use:   "resolve ORDER --status SUCCESS|REFUNDED|FAILED --reason TEXT",
		Short: "End a non-terminal (stalled, unknown) order with a terminal status: the operator's statement, recorded and sent as a webhook",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := open(cmd)
			if err != nil {
				return err
			}
			defer s.close()
			res := swapv1.OperatorResolution{Status: swapv1.OrderStatus(strings.ToUpper(status)), Reason: reason, By: s.by}
			if err := res.Validate(); err != nil {
				return err
			}
			value, err := json.Marshal(res)
			if err != nil {
				return err
			}
			return s.ask(cmd.Context(), args[0], verbs.Request{Verb: verbs.Resolve, ResolveTo: res.Status}, string(value))
		},
	}
	resolve.Flags().StringVar(&status, "status", "", "terminal status: SUCCESS, REFUNDED or FAILED")
	resolve.Flags().StringVar(&reason, "reason", "", "why (required; e.g. the on-chain refund tx you checked)")

	approve := request(verbs.Approve, "Let an order screening held for review request its deposit address")
	var rejectWhy string
	reject := &cobra.Command{
		Use:   "reject ORDER --reason TEXT",
		Short: "Fail an order screening held for review (FAILED ScreeningRejected)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := open(cmd)
			if err != nil {
				return err
			}
			defer s.close()
			return s.ask(cmd.Context(), args[0], verbs.Request{Verb: verbs.Reject, Reason: rejectWhy}, strings.TrimSpace(rejectWhy))
		},
	}
	reject.Flags().StringVar(&rejectWhy, "reason", "", "why (required; recorded on the order)")

	root.AddCommand(pause, resume, poll, resolve, redeliver, approve, reject)
	return root
}
