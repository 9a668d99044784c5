// Package devenv runs the embedded development system of `swaprouter-dev`: a local
// kube-apiserver and etcd (the envtest binaries) keeping their data under a folder, with the
// CRDs installed and a kubeconfig written beside them.
package devenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// ControlPlane is a running local kube-apiserver + etcd.
type ControlPlane struct {
	env *envtest.Environment
	// Config reaches the apiserver as an administrator.
	Config *rest.Config
	// KubeconfigPath is the kubeconfig written for kubectl.
	KubeconfigPath string
}

// EnsureBinaries builds the envtest binaries with hack/build-envtest.sh when they are
// missing, streaming its progress to out.
func EnsureBinaries(out io.Writer) error {
	dir := testenv.AssetsDir()
	if haveBinaries(dir) {
		return nil
	}
	script := filepath.Join(testenv.RepoRoot(), "hack", "build-envtest.sh")
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("control-plane binaries missing in %s and %s not found: set KUBEBUILDER_ASSETS", dir, script)
	}
	fmt.Fprintf(out, "First run: building kube-apiserver, etcd and kubectl from source into %s (several minutes)...\n", dir)
	cmd := exec.Command("bash", script)
	cmd.Env = append(os.Environ(), "ENVTEST_DIR="+dir)
	cmd.Stdout, cmd.Stderr = io.Discard, out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building the control-plane binaries: %w", err)
	}
	return nil
}

func haveBinaries(dir string) bool {
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return false
		}
	}
	return true
}

// StartControlPlane starts etcd (data kept in dataDir/etcd, so orders survive a restart)
// and kube-apiserver, installs the CRDs and the admission policies of config/admission and
// writes dataDir/kubeconfig, whose context is in namespace, so a plain `kubectl get
// swaporders` finds the dev orders.
func StartControlPlane(dataDir, namespace string, out io.Writer) (*ControlPlane, error) {
	env, err := testenv.New()
	if err != nil {
		return nil, err
	}
	etcdDir := filepath.Join(dataDir, "etcd")
	if err := os.MkdirAll(etcdDir, 0o700); err != nil {
		return nil, err
	}
	reapStale(etcdDir, out)
	env.ControlPlane.Etcd = &envtest.Etcd{DataDir: etcdDir, StartTimeout: 60 * time.Second}
	env.ControlPlane.APIServer = &envtest.APIServer{StartTimeout: 90 * time.Second}

	start := time.Now()
	fmt.Fprintf(out, "Starting etcd and kube-apiserver (data in %s)...\n", etcdDir)
	cfg, err := env.Start()
	if err != nil {
		// Start may fail after launching the processes (e.g. installing CRDs): stop them,
		// including one envtest lost track of.
		_ = env.Stop()
		KillControlPlane()
		return nil, fmt.Errorf("starting the control plane: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err == nil {
		err = testenv.InstallAdmission(context.Background(), c)
	}
	if err != nil {
		_ = env.Stop()
		KillControlPlane()
		return nil, fmt.Errorf("installing the admission policies: %w", err)
	}
	fmt.Fprintf(out, "Control plane up in %s; CRDs and admission policies installed.\n", time.Since(start).Round(100*time.Millisecond))

	kubeconfig := filepath.Join(dataDir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, env.KubeConfig, namespace); err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("writing %s: %w", kubeconfig, err)
	}
	return &ControlPlane{env: env, Config: cfg, KubeconfigPath: kubeconfig}, nil
}

// Stop stops kube-apiserver and etcd; the etcd data stays for the next start.
func (c *ControlPlane) Stop() error {
	err := c.env.Stop()
	KillControlPlane() // whatever did not stop in time
	return err
}

// writeKubeconfig writes raw (envtest's admin kubeconfig) with namespace set on every context.
func writeKubeconfig(path string, raw []byte, namespace string) error {
	cfg, err := clientcmd.Load(raw)
	if err != nil {
		return err
	}
	for _, c := range cfg.Contexts {
		c.Namespace = namespace
	}
	return clientcmd.WriteToFile(*cfg, path)
}
