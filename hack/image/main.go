// Command image builds swaprouter's container images without a Docker engine: each image is
// one layer on an empty base holding a static binary (and the CA bundle, for https providers
// and webhook targets), run as a non-root user, written as a docker-loadable tarball.
//
//	go run . -binary ../../bin/linux/swaprouter -name swaprouter/swaprouter:latest -out ../../dist/swaprouter.tar
//
// With -shared-libraries it packs a dynamically linked program of this machine instead, with
// the libraries ldd names at the paths it names them (test/node packs Debian's redis-server so).
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// nonRoot is the distroless "nonroot" uid/gid, so a restricted PodSecurity profile admits it.
const nonRoot = 65532

func main() {
	binary := flag.String("binary", "", "static linux/amd64 binary to put at /<basename>")
	ref := flag.String("name", "", "image reference, e.g. swaprouter/swaprouter:latest")
	out := flag.String("out", "", "tarball to write")
	caBundle := flag.String("ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA certificates to include (empty skips)")
	at := flag.String("at", "", "path of the binary in the image (default /<basename>)")
	sharedLibraries := flag.Bool("shared-libraries", false, "include the shared libraries the binary loads, as ldd names them")
	flag.Parse()
	if *binary == "" || *ref == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if *at == "" {
		*at = "/" + path.Base(*binary)
	}
	if err := build(*binary, *at, *ref, *out, *caBundle, *sharedLibraries); err != nil {
		log.Fatal(err)
	}
}

func build(binary, at, ref, out, caBundle string, sharedLibraries bool) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return err
	}
	files := []file{{path: at, src: binary, mode: 0o755}}
	if caBundle != "" {
		files = append(files, file{path: "/etc/ssl/certs/ca-certificates.crt", src: caBundle, mode: 0o644})
	}
	if sharedLibraries {
		libraries, err := librariesOf(binary)
		if err != nil {
			return err
		}
		files = append(files, libraries...)
	}
	layerTar, err := tarOf(files)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Config = v1.Config{
		Entrypoint: []string{at},
		User:       fmt.Sprintf("%d:%d", nonRoot, nonRoot),
		Env:        []string{"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		Labels:     map[string]string{"org.opencontainers.image.source": "https://github.com/swaprouter/swaprouter"},
	}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	if err := os.MkdirAll(path.Dir(out), 0o755); err != nil {
		return err
	}
	if err := tarball.WriteToFile(out, tag, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Printf("%s -> %s (%s)\n", ref, out, digest)
	return nil
}

// librariesOf are the shared libraries binary loads, the dynamic loader among them, each at the
// path ldd resolves it to (its contents, not a symbolic link).
func librariesOf(binary string) ([]file, error) {
	out, err := exec.Command("ldd", binary).Output()
	if err != nil {
		return nil, fmt.Errorf("ldd %s: %w", binary, err)
	}
	var libraries []file
	for _, line := range strings.Split(string(out), "\n") {
		// "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)", or the loader's
		// "/lib64/ld-linux-x86-64.so.2 (0x...)"; the kernel's vdso has no file.
		fields := strings.Fields(line)
		lib := ""
		switch {
		case len(fields) == 4 && fields[1] == "=>":
			lib = fields[2]
		case len(fields) == 2 && path.IsAbs(fields[0]):
			lib = fields[0]
		}
		if lib != "" {
			libraries = append(libraries, file{path: lib, src: lib, mode: 0o755})
		}
	}
	if len(libraries) == 0 {
		return nil, fmt.Errorf("ldd names no shared library of %s:\n%s", binary, out)
	}
	return libraries, nil
}

type file struct {
	path, src string
	mode      int64
}

// tarOf writes files into a tar with fixed times and root ownership, so the same binary
// always gives the same layer digest.
func tarOf(files []file) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		for d := path.Dir(f.path); d != "/" && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, d := range sortedDirs(dirs) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d[1:] + "/", Mode: 0o755, ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
	}
	// A world-writable, sticky /tmp as distroless images have: a Pod that mounts no emptyDir
	// there still finds the directory a program's libraries may expect.
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: time.Unix(0, 0)}); err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f.src)
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.path[1:], Mode: f.mode, Size: int64(len(data)), ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sortedDirs orders parents before children (a parent's path sorts before its children's).
func sortedDirs(dirs map[string]bool) []string {
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
