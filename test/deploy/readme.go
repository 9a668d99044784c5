// Package deploy is the README's deploy section ("Deploying, step by step"), which users run
// as written: its test executes it against a bare kube-apiserver with server-side dry runs,
// and test/node on a real node.
package deploy

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// Namespace is where the section deploys.
const Namespace = "swaprouter-system"

// Section is README.md's "Deploying it" section.
func Section() (string, error) {
	readme, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(string(readme), "\n## Deploying it")
	if !ok {
		return "", errors.New(`README.md has no "Deploying it" section`)
	}
	section, _, _ := strings.Cut(rest, "\n## ")
	return section, nil
}

// Block is the sh block between the section's deploy markers.
func Block(section string) (string, error) {
	_, rest, ok := strings.Cut(section, "<!-- deploy:start -->")
	block, _, ok2 := strings.Cut(rest, "<!-- deploy:end -->")
	block = strings.TrimSpace(block)
	if !ok || !ok2 || !strings.HasPrefix(block, "```sh\n") {
		return "", errors.New("the deploy section has no sh block between <!-- deploy:start --> and <!-- deploy:end -->")
	}
	return strings.TrimSuffix(strings.TrimPrefix(block, "```sh\n"), "```"), nil
}

// CopyRepository copies the repository's files (tracked, and new ones not ignored) to dir:
// the section runs in a clone, and writes its overlay there.
func CopyRepository(dir string) error {
	root := testenv.RepoRoot()
	list := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	list.Dir = root
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("git ls-files: %w", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		info, err := os.Lstat(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
