package node

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"

	"github.com/swaprouter/swaprouter/internal/testing/testenv"
)

// buildImage compiles the command in pkg (of this repository) and packs it with hack/image.
func buildImage(dir, pkg, ref, tarball string) error {
	root := testenv.RepoRoot()
	binary := filepath.Join(dir, filepath.Base(pkg))
	build := exec.Command("go", "build", "-o", binary, pkg)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	pack := exec.Command("go", "run", ".", "-binary", binary, "-name", ref, "-ca-bundle", "", "-out", tarball)
	pack.Dir = filepath.Join(root, "hack", "image")
	if out, err := pack.CombinedOutput(); err != nil {
		return fmt.Errorf("hack/image %s: %v\n%s", ref, err, out)
	}
	return nil
}

// redisImage is Debian's redis-server packed with its libraries (hack/image
// -shared-libraries), tagged with its version: the copy of Redis a user's mirror holds, since
// redis:7.4-alpine cannot be fetched here.
func redisImage(dir string) (ref, tarball string, err error) {
	out, err := exec.Command("redis-server", "--version").Output()
	if err != nil {
		return "", "", fmt.Errorf("redis-server --version: %w", err)
	}
	version := regexp.MustCompile(`v=([0-9.]+)`).FindStringSubmatch(string(out))
	if version == nil {
		return "", "", fmt.Errorf("redis-server --version says no version: %s", out)
	}
	binary, err := exec.LookPath("redis-server")
	if err != nil {
		return "", "", err
	}
	ref = "swaprouter.test/debian-redis-server:" + version[1]
	tarball = filepath.Join(dir, "redis.tar")
	pack := exec.Command("go", "run", ".", "-binary", binary, "-at", "/usr/bin/redis-server", "-shared-libraries",
		"-ca-bundle", "", "-name", ref, "-out", tarball)
	pack.Dir = filepath.Join(testenv.RepoRoot(), "hack", "image")
	if out, err := pack.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("hack/image %s: %v\n%s", ref, err, out)
	}
	return ref, tarball, nil
}
