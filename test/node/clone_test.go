package node

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/internal/testing/node"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/test/deploy"
)

// clone is a copy of the repository where the README's deploy block runs, as a user runs it
// from theirs, with kubectl pointed at the node and ctr at its containerd.
type clone struct {
	dir string
	env []string
}

func newClone(dir string, n *node.Node) (*clone, error) {
	c := &clone{dir: filepath.Join(dir, "swaprouter")}
	if err := deploy.CopyRepository(c.dir); err != nil {
		return nil, err
	}
	c.env = append(os.Environ(),
		"PATH="+strings.Join([]string{partsDir(), testenv.AssetsDir(), os.Getenv("PATH")}, string(os.PathListSeparator)),
		"KUBECONFIG="+n.Kubeconfig, "CONTAINERD_ADDRESS="+n.ContainerdSocket())
	return c, nil
}

// run runs a shell script in the clone with env added, and returns its output.
func (c *clone) run(ctx context.Context, script string, env ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = c.dir
	cmd.Env = append(append([]string{}, c.env...), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%v\n%s", err, out)
	}
	return string(out), nil
}

// swaprouter runs the operator's CLI as the README does (go run ./cmd/swaprouter).
func (c *clone) swaprouter(ctx context.Context, args ...string) (string, error) {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return c.run(ctx, "go run ./cmd/swaprouter "+strings.Join(quoted, " "))
}

// overlay is the overlay the deploy block wrote.
func (c *clone) overlay() string {
	return filepath.Join(c.dir, "deploy", "production", "kustomization.yaml")
}

// editOverlay replaces old with new in the overlay, as a user edits it.
func (c *clone) editOverlay(old, new string) error {
	b, err := os.ReadFile(c.overlay())
	if err != nil {
		return err
	}
	if !strings.Contains(string(b), old) {
		return fmt.Errorf("the overlay has no %q:\n%s", old, b)
	}
	return os.WriteFile(c.overlay(), []byte(strings.Replace(string(b), old, new, 1)), 0o644)
}

// keyPattern is what `swaprouter keys create` prints.
var keyPattern = regexp.MustCompile(`X-Key-Id: (\S+)\nSecret:\s+(\S+)`)

// createKey gives partner a key with `swaprouter keys create`.
func (c *clone) createKey(ctx context.Context, partner string) (keyID, secret string, err error) {
	out, err := c.swaprouter(ctx, "keys", "create", "-n", deploy.Namespace, "--partner", partner)
	if err != nil {
		return "", "", err
	}
	m := keyPattern.FindStringSubmatch(out)
	if m == nil {
		return "", "", fmt.Errorf("keys create printed no key:\n%s", out)
	}
	return m[1], m[2], nil
}
