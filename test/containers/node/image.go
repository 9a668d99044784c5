package node

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/swaprouter/swaprouter/test/containers/kubelet"
)

// Unpack extracts the image in a docker-loadable tarball (`make image`) into rootfs, its
// layers flattened with owners and modes as they are in the image, and returns its config.
func Unpack(tarballPath, rootfs string) (kubelet.Image, error) {
	img, err := tarball.ImageFromPath(tarballPath, nil)
	if err != nil {
		return kubelet.Image{}, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return kubelet.Image{}, err
	}
	flat := mutate.Extract(img)
	defer func() { _ = flat.Close() }()
	if err := untar(tar.NewReader(flat), rootfs); err != nil {
		return kubelet.Image{}, fmt.Errorf("%s: %w", tarballPath, err)
	}
	c := cfg.Config
	return kubelet.Image{Entrypoint: c.Entrypoint, Cmd: c.Cmd, Env: c.Env, User: c.User, WorkingDir: c.WorkingDir}, nil
}

func untar(tr *tar.Reader, root string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean("/" + h.Name)
		if strings.Contains(name, "..") {
			return fmt.Errorf("entry %q leaves the root", h.Name)
		}
		target := filepath.Join(root, name)
		mode := h.FileInfo().Mode() & (os.ModePerm | os.ModeSticky | os.ModeSetuid | os.ModeSetgid)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
			continue
		default:
			return fmt.Errorf("entry %q: tar type %c not supported", h.Name, h.Typeflag)
		}
		if err := os.Lchown(target, h.Uid, h.Gid); err != nil {
			return err
		}
		// chmod after chown: chown clears setuid/setgid bits.
		if err := os.Chmod(target, mode); err != nil {
			return err
		}
	}
}
