package main

import (
	"fmt"
	"os"
	"strconv"
	"text/tabwriter"

	"github.com/google/renameio/v2"
	"github.com/spf13/cobra"

	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// newQuoteKeysCommand is `swaprouter quote-keys`: the Tink keyset file of --quote-keys-file.
func newQuoteKeysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "quote-keys",
		Short: "Make and rotate the keyset that seals quoteIds, listing cursors and event stream tokens",
		Long: `The frontend's --quote-keys-file is a Tink JSON keyset: its primary key seals, every key
opens. create prints a new one. To rotate without refusing a token still in use: add a key and
deploy the file to every replica (the new key opens), promote it and deploy again (it seals),
then retire the old key once the tokens it sealed have expired (quoteIds live 10 minutes).
add, promote and retire rewrite FILE in place.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	create := &cobra.Command{
		Use:   "create",
		Short: "Print a new keyset of one key",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := tokenkeys.Create()
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", raw)
			return err
		},
	}
	add := &cobra.Command{
		Use:   "add FILE",
		Short: "Add a key that opens tokens but does not seal yet; prints its id",
		Args:  exactlyOne("the keyset file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var id uint32
			err := rewrite(args[0], func(raw []byte) (out []byte, err error) {
				out, id, err = tokenkeys.Add(raw)
				return out, err
			})
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), id)
			return nil
		},
	}
	promote := &cobra.Command{
		Use:   "promote FILE KEY",
		Short: "Make a key the primary: it seals from then on",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := keyID(args[1])
			if err != nil {
				return err
			}
			return rewrite(args[0], func(raw []byte) ([]byte, error) { return tokenkeys.Promote(raw, id) })
		},
	}
	retire := &cobra.Command{
		Use:   "retire FILE KEY",
		Short: "Remove a key that no longer seals: the tokens it sealed stop opening",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := keyID(args[1])
			if err != nil {
				return err
			}
			return rewrite(args[0], func(raw []byte) ([]byte, error) { return tokenkeys.Retire(raw, id) })
		},
	}
	list := &cobra.Command{
		Use:   "list FILE",
		Short: "List the keys: id, status, which one seals, type (never the key material)",
		Args:  exactlyOne("the keyset file"),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			keys, err := tokenkeys.List(raw)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KEY\tSTATUS\tSEALS\tTYPE")
			for _, k := range keys {
				seals := ""
				if k.Primary {
					seals = "yes"
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", k.ID, k.Status, seals, k.Type)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(create, add, promote, retire, list)
	return cmd
}

// keyID parses a key id as `quote-keys list` prints it.
func keyID(s string) (uint32, error) {
	id, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("key %q: want a key id as `swaprouter quote-keys list` prints it", s)
	}
	return uint32(id), nil
}

// rewrite replaces the keyset file at path with change of its content, keeping its mode; the
// replacement is renamed into place, so a reader never sees half a keyset.
func rewrite(path string, change func([]byte) ([]byte, error)) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := change(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return renameio.WriteFile(path, out, 0o600) // the file's own mode wins, as it exists
}
