// Package nodescript runs a provider SDK's conformance script under Node.js from a Go test:
// the SDK pinned by the folder's package-lock.json is installed with npm ci, the script's
// last line of standard output is its JSON report.
package nodescript

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Install runs npm ci in dir (the SDK as its lock file pins it).
func Install(t testing.TB, dir string) {
	t.Helper()
	if _, err := exec.LookPath("npm"); err != nil {
		t.Fatal("npm is needed (Node.js 18 or later; make tools installs it)")
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
}

// Run runs `node script` in dir with env added to the test's environment and decodes the
// last line it prints into report. It fails t when the script prints no report; the
// script's own failure (exit status, stderr) is returned for the caller to judge with the
// report.
func Run(t testing.TB, dir, script string, env []string, report any) (runErr error, stderr string) {
	t.Helper()
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, runErr := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), report); err != nil {
		t.Fatalf("node %s: %v, %v\nstdout: %s\nstderr: %s", script, runErr, err, out, errOut.String())
	}
	return runErr, errOut.String()
}
