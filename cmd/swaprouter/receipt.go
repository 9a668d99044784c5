package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/spf13/cobra"

	"github.com/swaprouter/swaprouter/internal/receipt"
)

func newReceiptCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "receipt", Short: "Verify order receipts and manage the keys that sign them"}

	var jwks string
	verify := &cobra.Command{
		Use:   "verify FILE --jwks URL|FILE",
		Short: "Verify a receipt offline (FILE: the JWS, or the JSON answer of GET /v1/order/{id}/receipt; - reads stdin) and print its payload",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			jws, err := readReceipt(cmd.InOrStdin(), args[0])
			if err != nil {
				return err
			}
			keys, err := readKeySet(cmd.Context(), jwks)
			if err != nil {
				return err
			}
			payload, err := receipt.Verify(jws, keys)
			if err != nil {
				return fmt.Errorf("the receipt does not verify: %w", err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, payload, "", "  "); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), pretty.String())
			return nil
		},
	}
	verify.Flags().StringVar(&jwks, "jwks", "", "the service's JSON Web Key Set: its URL (https://…/.well-known/jwks.json) or a file")
	_ = verify.MarkFlagRequired("jwks")

	var namespace string
	keys := &cobra.Command{Use: "keys", Short: "Manage the receipt signing keys (in the frontend's Secret)"}
	rotate := &cobra.Command{
		Use:   "rotate",
		Short: "Make a new signing key: it signs from now on, older keys still verify (creates the first key too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := clusterClient()
			if err != nil {
				return err
			}
			kid, err := receipt.RotateSecret(cmd.Context(), c, namespace)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "receipts are signed with key %s\n", kid)
			return nil
		},
	}
	retire := &cobra.Command{
		Use:   "retire KID",
		Short: "Remove a key that no longer signs; receipts it signed stop verifying",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := clusterClient()
			if err != nil {
				return err
			}
			if err := receipt.RetireSecret(cmd.Context(), c, namespace, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "key %s retired\n", args[0])
			return nil
		},
	}
	keys.PersistentFlags().StringVarP(&namespace, "namespace", "n", defaultNamespace(), "namespace of the service (default: the kubeconfig context's)")
	keys.AddCommand(rotate, retire)
	cmd.AddCommand(verify, keys)
	return cmd
}

// readReceipt reads the compact JWS from path: as saved from the API's answer
// ({"receipt": "..."}) or bare.
func readReceipt(stdin io.Reader, path string) (string, error) {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(stdin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		return "", err
	}
	var answer struct {
		Receipt string `json:"receipt"`
	}
	if json.Unmarshal(raw, &answer) == nil && answer.Receipt != "" {
		return answer.Receipt, nil
	}
	return strings.TrimSpace(string(raw)), nil
}

// readKeySet loads a JSON Web Key Set from a URL or a file.
func readKeySet(ctx context.Context, source string) (jose.JSONWebKeySet, error) {
	var set jose.JSONWebKeySet
	var raw []byte
	var err error
	if strings.HasPrefix(source, "https://") || strings.HasPrefix(source, "http://") {
		raw, err = fetch(ctx, source)
	} else {
		raw, err = os.ReadFile(source)
	}
	if err != nil {
		return set, fmt.Errorf("reading the key set: %w", err)
	}
	if err := json.Unmarshal(raw, &set); err != nil {
		return set, fmt.Errorf("reading the key set %s: %w", source, err)
	}
	return set, nil
}

func fetch(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}
