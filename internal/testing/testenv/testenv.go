// Package testenv starts the envtest control plane (kube-apiserver + etcd built by
// hack/build-envtest.sh) with this project's CRDs installed, for tests and `swaprouter-dev`.
package testenv

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/swaprouter/swaprouter/internal/scheme"
)

// K8sVersion is the kube-apiserver version hack/build-envtest.sh builds.
const K8sVersion = "1.37.1"

// RepoRoot finds the repository root from this source file's location.
func RepoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

// AssetsDir is where the control-plane binaries live: $KUBEBUILDER_ASSETS when set,
// otherwise bin/k8s/<version>-linux-amd64 under the repository root.
func AssetsDir() string {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir
	}
	return filepath.Join(RepoRoot(), "bin", "k8s", K8sVersion+"-"+goruntime.GOOS+"-"+goruntime.GOARCH)
}

// CRDDir is config/crd/bases.
func CRDDir() string { return filepath.Join(RepoRoot(), "config", "crd", "bases") }

// New returns an envtest environment with the CRDs; call Start on it, and Stop when done.
// It fails early with a clear message when the binaries have not been built.
func New() (*envtest.Environment, error) {
	dir := AssetsDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return nil, fmt.Errorf("envtest binary %s missing in %s: run `make envtest` first", bin, dir)
		}
	}
	return &envtest.Environment{
		BinaryAssetsDirectory: dir,
		CRDDirectoryPaths:     []string{CRDDir()},
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme.New(),
		// envtest's default of 20 s is a speed budget: on a loaded 2-core machine
		// kube-apiserver has needed longer, and the suite failed without a real fault.
		// This bounds a start that is stuck, not one that is slow.
		ControlPlaneStartTimeout: 3 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}, nil
}

// Plane is a started control plane with a direct (uncached) client.
type Plane struct {
	Env    *envtest.Environment
	Config *rest.Config
	Client client.Client
}

// Start starts a control plane with the CRDs and the admission policies (InstallAdmission) and
// builds a client for it: what every envtest suite needs first. Stop it with Plane.Env.Stop.
func Start() (*Plane, error) {
	env, err := New()
	if err != nil {
		return nil, err
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	if err == nil {
		err = InstallAdmission(context.Background(), c)
	}
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	return &Plane{Env: env, Config: cfg, Client: c}, nil
}
