package main

import (
	"fmt"
	"net/http"
	"time"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/swaprouter/swaprouter/internal/screening/sdnupdate"
	"github.com/swaprouter/swaprouter/internal/screening/sdnwatch"
)

// downloadTimeout bounds each download of the list.
const downloadTimeout = 5 * time.Minute

func newSanctionsCommand() *cobra.Command {
	sanctions := &cobra.Command{Use: "sanctions", Short: "Keep the sanctions list that screening reads current"}

	o := sdnupdate.Options{HTTP: &http.Client{Timeout: downloadTimeout}, Now: time.Now}
	var namespace string
	var print bool
	update := &cobra.Command{
		Use:   "update",
		Short: "Fetch SDN.CSV and SDN_COMMENTS.CSV, make the extract of their digital currency addresses and apply it as the ConfigMap " + sdnwatch.ConfigMapName,
		Long: "Fetches OFAC's SDN.CSV and SDN_COMMENTS.CSV (URLs or local copies), joins each long remark with its continuation, " +
			"and writes every digital currency address with the publication date as the extract under the key " + sdnwatch.ExtractKey +
			" of the ConfigMap " + sdnwatch.ConfigMapName + ". A list that is not whole, lists no address, or is larger than a " +
			"ConfigMap holds is refused with an error and nothing is written: the ConfigMap keeps its list.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cm, err := sdnupdate.Make(cmd.Context(), o)
			if err != nil {
				return fmt.Errorf("%w; nothing written, the ConfigMap keeps its list", err)
			}
			if print {
				out, err := yaml.Marshal(cm)
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(out)
				return err
			}
			c, err := clusterClient()
			if err != nil {
				return err
			}
			a, err := sdnupdate.Apply(cmd.Context(), c, namespace, cm)
			if err != nil {
				return fmt.Errorf("ConfigMap %s/%s: %w", namespace, sdnwatch.ConfigMapName, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ConfigMap %s/%s: the list %s, %s\n", namespace, sdnwatch.ConfigMapName, a.Version(), a.Detail)
			return nil
		},
	}
	update.Flags().StringVar(&o.SDN, "sdn", sdnupdate.DefaultSDN, "SDN.CSV: a URL or a local file")
	update.Flags().StringVar(&o.Comments, "comments", sdnupdate.DefaultComments, "SDN_COMMENTS.CSV: a URL or a local file")
	update.Flags().StringVar(&o.Published, "published", "", "the list's publication date (RFC 3339, YYYY-MM-DD or an HTTP date; default: SDN.CSV's Last-Modified)")
	update.Flags().StringVarP(&namespace, "namespace", "n", defaultNamespace(), "namespace of the service (default: the kubeconfig context's)")
	update.Flags().BoolVar(&print, "print", false, "print the ConfigMap instead of applying it")
	sanctions.AddCommand(update)
	return sanctions
}
