// Package opctl is the kubectl plugin `kubectl swaprouter`: operator controls on one
// SwapOrder, written as the annotations the order reconciler acts on (api/v1alpha1
// swaporder_operator_types.go). The plugin only asks; the reconciler decides and records.
package opctl

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// NewCommand returns the root command. Kubeconfig flags (--kubeconfig, --context,
// -n/--namespace, --server, --token, ...) are client-go's, as kubectl's own.
func NewCommand() *cobra.Command {
	loading := clientcmd.NewDefaultClientConfigLoadingRules()
	overrides := &clientcmd.ConfigOverrides{}
	root := &cobra.Command{
		Use:           "kubectl-swaprouter",
		Short:         "Operator controls on swaprouter orders: pause, resume, poll, resolve, redeliver",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&loading.ExplicitPath, "kubeconfig", "", "path to the kubeconfig file")
	clientcmd.BindOverrideFlags(overrides, root.PersistentFlags(), clientcmd.RecommendedConfigOverrideFlags(""))
	var by string
	root.PersistentFlags().StringVar(&by, "by", "", "who asks, recorded with the request (default: the kubeconfig user, else $USER)")

	target := func(cmd *cobra.Command, id string) (*orderTarget, error) {
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loading, overrides)
		cfg, err := cc.ClientConfig()
		if err != nil {
			return nil, err
		}
		ns, _, err := cc.Namespace()
		if err != nil {
			return nil, err
		}
		c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
		if err != nil {
			return nil, err
		}
		who := by
		if who == "" {
			who = kubeconfigUser(cc)
		}
		return &orderTarget{c: c, key: types.NamespacedName{Namespace: ns, Name: objectName(id)}, by: who}, nil
	}

	var reason string
	pause := &cobra.Command{
		Use:   "pause ORDER",
		Short: "Stop the order's provider steps (address creation, hints, polls) until resume",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := target(cmd, args[0])
			if err != nil {
				return err
			}
			why := t.by
			if reason != "" {
				why += ": " + reason
			}
			return t.annotate(cmd, map[string]any{swapv1.AnnotationPaused: why}, "paused")
		},
	}
	pause.Flags().StringVar(&reason, "reason", "", "why the order is paused (shown in its Paused condition)")

	resume := &cobra.Command{
		Use:   "resume ORDER",
		Short: "Let a paused order take provider steps again",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := target(cmd, args[0])
			if err != nil {
				return err
			}
			return t.annotate(cmd, map[string]any{swapv1.AnnotationPaused: nil}, "resumed")
		},
	}

	// A request annotation carries the time of the request, so asking twice changes it and
	// the reconciler looks again even if it has not consumed the first.
	request := func(use, short, annotation, done string) *cobra.Command {
		return &cobra.Command{
			Use: use + " ORDER", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				t, err := target(cmd, args[0])
				if err != nil {
					return err
				}
				return t.annotate(cmd, map[string]any{annotation: t.by + "@" + time.Now().UTC().Format(time.RFC3339Nano)}, done)
			},
		}
	}
	poll := request("poll", "Ask the provider for the order's status now (paused or not)", swapv1.AnnotationPoll, "poll requested")
	redeliver := request("redeliver", "Send every webhook event of the order again (same webhook-id)", swapv1.AnnotationRedeliver, "redelivery requested")

	var status string
	resolve := &cobra.Command{
		Use:   "resolve ORDER --status SUCCESS|REFUNDED|FAILED --reason TEXT",
		Short: "End a non-terminal (stalled, unknown) order with a terminal status: the operator's statement, recorded and sent as a webhook",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := target(cmd, args[0])
			if err != nil {
				return err
			}
			res := swapv1.OperatorResolution{Status: swapv1.OrderStatus(strings.ToUpper(status)), Reason: reason, By: t.by}
			if err := res.Validate(); err != nil {
				return err
			}
			value, err := json.Marshal(res)
			if err != nil {
				return err
			}
			return t.annotate(cmd, map[string]any{swapv1.AnnotationResolve: string(value)}, "resolve to "+string(res.Status)+" requested")
		},
	}
	resolve.Flags().StringVar(&status, "status", "", "terminal status: SUCCESS, REFUNDED or FAILED")
	resolve.Flags().StringVar(&reason, "reason", "", "why (required; e.g. the on-chain refund tx you checked)")

	root.AddCommand(pause, resume, poll, resolve, redeliver)
	return root
}

// orderTarget is one SwapOrder and who acts on it.
type orderTarget struct {
	c   client.Client
	key types.NamespacedName
	by  string
}

// annotate merge-patches the order's annotations (nil removes one). It first reads the
// order, so a wrong name is "not found" rather than a patch creating nothing.
func (t *orderTarget) annotate(cmd *cobra.Command, annotations map[string]any, done string) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	o := &swapv1.SwapOrder{}
	if err := t.c.Get(ctx, t.key, o); err != nil {
		return fmt.Errorf("swaporder %s: %w", t.key, err)
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return err
	}
	if err := t.c.Patch(ctx, o, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("swaporder %s: %w", t.key, err)
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "swaporder %s/%s (%s) %s\n", t.key.Namespace, t.key.Name, o.Spec.OrderID, done)
	return err
}

// objectName accepts an order id (ord_…) or the SwapOrder name (ord-…).
func objectName(id string) string { return strings.ReplaceAll(id, "_", "-") }

// kubeconfigUser is the user of the current context, else $USER.
func kubeconfigUser(cc clientcmd.ClientConfig) string {
	if raw, err := cc.RawConfig(); err == nil {
		if ctx, ok := raw.Contexts[raw.CurrentContext]; ok && ctx.AuthInfo != "" {
			return ctx.AuthInfo
		}
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}
