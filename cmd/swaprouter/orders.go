package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	swapv1 "github.com/swaprouter/swaprouter/api/v1alpha1"
	"github.com/swaprouter/swaprouter/internal/archive"
	"github.com/swaprouter/swaprouter/internal/orderquery"
	"github.com/swaprouter/swaprouter/internal/scheme"
)

// maxOperatorLimit bounds one listing (the archive answers it in one query).
const maxOperatorLimit = 1000

func newOrdersCommand() *cobra.Command {
	var namespace, dsn string
	orders := &cobra.Command{
		Use:   "orders",
		Short: "Read orders, live (API server) and archived (PostgreSQL)",
	}
	orders.PersistentFlags().StringVarP(&namespace, "namespace", "n", defaultNamespace(), "namespace of the SwapOrders (default: the kubeconfig context's)")
	orders.PersistentFlags().StringVar(&dsn, "archive-dsn", os.Getenv("SWAPROUTER_ARCHIVE_DSN"),
		"PostgreSQL DSN of the order archive (default $SWAPROUTER_ARCHIVE_DSN; empty reads live orders only)")

	reader := func(cmd *cobra.Command) (orderquery.Reader, func(), error) {
		cfg, err := ctrl.GetConfig()
		if err != nil {
			return orderquery.Reader{}, nil, err
		}
		kube, err := client.New(cfg, client.Options{Scheme: scheme.New()})
		if err != nil {
			return orderquery.Reader{}, nil, err
		}
		r := orderquery.Reader{Kube: kube, Namespace: namespace}
		if dsn == "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "no --archive-dsn: reading live orders only")
			return r, func() {}, nil
		}
		a, err := archive.Open(dsn)
		if err != nil {
			return r, nil, err
		}
		// Read only: the manager migrates the schema at start; a read-only user cannot.
		if err := a.CheckSchema(cmd.Context()); err != nil {
			a.Close()
			return r, nil, err
		}
		r.Archive = a
		return r, a.Close, nil
	}

	get := &cobra.Command{
		Use:   "get ID",
		Short: "Print one order as JSON with where it was found (live or archived)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, done, err := reader(cmd)
			if err != nil {
				return err
			}
			defer done()
			found, err := r.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printFound(cmd.OutOrStdout(), found)
		},
	}

	var (
		partner, status string
		limit           int
	)
	list := &cobra.Command{
		Use:   "list [--partner P] [--status S] [--limit N]",
		Short: "List a partner's orders, live and archived, newest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if partner == "" {
				return errors.New("--partner is required (or set $SWAPROUTER_PARTNER, as make run's dev.env does)")
			}
			if limit < 1 || limit > maxOperatorLimit {
				return fmt.Errorf("--limit must be from 1 to %d", maxOperatorLimit)
			}
			r, done, err := reader(cmd)
			if err != nil {
				return err
			}
			defer done()
			page, next, err := r.List(cmd.Context(), archive.Query{Partner: partner, Status: swapv1.OrderStatus(status), Limit: limit})
			if err != nil {
				return err
			}
			if err := printTable(cmd.OutOrStdout(), page); err != nil {
				return err
			}
			if next != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "more orders than --limit %d\n", limit)
			}
			return nil
		},
	}
	list.Flags().StringVar(&partner, "partner", os.Getenv("SWAPROUTER_PARTNER"), "name of the Partner (default $SWAPROUTER_PARTNER)")
	list.Flags().StringVar(&status, "status", "", "only orders with this status (PENDING, PROCESSING, SUCCESS, REFUNDED, FAILED, UNKNOWN)")
	list.Flags().IntVar(&limit, "limit", 50, fmt.Sprintf("most orders listed (at most %d)", maxOperatorLimit))

	orders.AddCommand(get, list)
	return orders
}

func printFound(w io.Writer, f orderquery.Found) error {
	o := f.Order.DeepCopy()
	o.ManagedFields = nil
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Source orderquery.Source `json:"source"`
		Order  *swapv1.SwapOrder `json:"order"`
	}{f.Source, o})
}

func printTable(w io.Writer, page []orderquery.Found) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tPROVIDER\tCREATED\tCLIENT-REFERENCE\tSOURCE")
	for _, f := range page {
		o := f.Order
		status := o.Status.Status
		if status == "" {
			status = swapv1.OrderPending
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.Spec.OrderID, status, o.Spec.ProviderID,
			o.CreatedAt().Format(swapv1.PreciseTimeLayout), o.Spec.ClientReference, f.Source)
	}
	return tw.Flush()
}
