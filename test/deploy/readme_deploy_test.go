// The section executed as written, in a copy of the repository, against a real kube-apiserver:
// the image is built, the namespace and Secrets are created and the receipt key written for
// real; the applies run as server-side dry runs, and the image load, the wait for the
// Deployments and the sanctions Job, which only a node can do, are recorded. It then checks
// what a cluster would need of the result: every Secret and ConfigMap the pods read exists
// (the quote keys one a keyset the frontend loads), every container runs the image the
// section built, by its tag, without pulling it, and the section names the Kubernetes version
// the manifests need. test/node runs the same section on a real node.
package deploy

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/swaprouter/swaprouter/internal/auth"
	"github.com/swaprouter/swaprouter/internal/receipt"
	"github.com/swaprouter/swaprouter/internal/scheme"
	"github.com/swaprouter/swaprouter/internal/screening/sdnupdate"
	"github.com/swaprouter/swaprouter/internal/testing/testenv"
	"github.com/swaprouter/swaprouter/internal/tokenkeys"
)

// kubectlShim is kubectl as the section meets it here: the real one, but an apply is a
// server-side dry run (no node would run what it creates), and a wait or a job run now, which
// only a node can satisfy, is written to $WAIT_LOG instead.
const kubectlShim = `#!/usr/bin/env bash
set -euo pipefail
verb=""
skip=0
for a in "$@"; do
  if (( skip )); then skip=0; continue; fi
  case "$a" in
    -n|--namespace|--kubeconfig|--context) skip=1 ;;
    -*) ;;
    *) verb=$a; break ;;
  esac
done
case "$verb" in
  apply) exec "$REAL_KUBECTL" "$@" --dry-run=server ;;
  wait) echo "$*" >> "$WAIT_LOG"; exit 0 ;;
  create) if [[ " $* " == *" job "* ]]; then echo "$*" >> "$WAIT_LOG"; exit 0; fi; exec "$REAL_KUBECTL" "$@" ;;
  *) exec "$REAL_KUBECTL" "$@" ;;
esac
`

func TestReadmeDeploySection(t *testing.T) {
	// A fresh cluster: the CRDs only, the rest is the section's to apply.
	env, err := testenv.New()
	must(t, err)
	cfg, err := env.Start()
	must(t, err)
	t.Cleanup(func() { _ = env.Stop() })
	kube, err := client.New(cfg, client.Options{Scheme: scheme.New()})
	must(t, err)
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	must(t, os.WriteFile(kubeconfig, env.KubeConfig, 0o600))
	clone := filepath.Join(dir, "swaprouter")
	must(t, CopyRepository(clone))
	shims := filepath.Join(dir, "shims")
	must(t, os.MkdirAll(shims, 0o755))
	must(t, os.WriteFile(filepath.Join(shims, "kubectl"), []byte(kubectlShim), 0o755))
	// There is no node to load the image into: the load is recorded.
	must(t, os.WriteFile(filepath.Join(shims, "ctr"), []byte("#!/bin/sh\necho ctr \"$@\" >> \"$WAIT_LOG\"\n"), 0o755))
	waitLog := filepath.Join(dir, "waits")

	section, err := Section()
	must(t, err)
	block, err := Block(section)
	must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = clone
	cmd.Env = append(os.Environ(),
		"PATH="+shims+string(os.PathListSeparator)+os.Getenv("PATH"),
		"REAL_KUBECTL="+filepath.Join(testenv.AssetsDir(), "kubectl"),
		"KUBECONFIG="+kubeconfig, "WAIT_LOG="+waitLog,
		"ARCHIVE_DSN=postgres://swaprouter:s3cret@db.example:5432/swaprouter?sslmode=verify-full")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the deploy section failed: %v\n%s", err, out)
	}
	t.Logf("the deploy section:\n%s", out)

	rendered := renderedObjects(t, clone, "deploy/production")
	// One dry-run answer per object of the overlay, and one for the RoutingProvider.
	if n := bytes.Count(out, []byte("(server dry run)")); n != len(rendered)+1 {
		t.Errorf("%d objects accepted by the server-side dry runs, want the overlay's %d and the RoutingProvider", n, len(rendered))
	}
	waits, err := os.ReadFile(waitLog)
	if err != nil || !strings.Contains(string(waits), "-n "+Namespace+" wait deployment --all --for=condition=Available") {
		t.Errorf("the section does not wait for its Deployments to be Available: %q, %v", waits, err)
	}
	if !strings.Contains(string(waits), "ctr -n k8s.io images import dist/swaprouter.tar") {
		t.Errorf("the section does not load the image it built into the node: %q", waits)
	}
	if !strings.Contains(string(waits), "create job --from=cronjob/swaprouter-sanctions") {
		t.Errorf("the section does not load the sanctions list (without it every order is refused): %q", waits)
	}

	version := strings.TrimSpace(run(t, clone, "make", "-s", "version"))
	image := "swaprouter/swaprouter:" + version
	if tags := imageTags(t, filepath.Join(clone, "dist", "swaprouter.tar")); !slices.Contains(tags, image) {
		t.Errorf("make image built %v, the section pins %s", tags, image)
	}

	// Unless told otherwise (an air-gapped cluster's copies), Redis is the image config/redis
	// names and the sanctions Job reads OFAC's own files.
	redisImage := deploymentImage(t, clone, "config/redis")
	deployments := 0
	for _, o := range rendered {
		if o.GetKind() == "CronJob" && o.GetName() == "swaprouter-sanctions" {
			args, _, _ := unstructured.NestedSlice(o.Object, "spec", "jobTemplate", "spec", "template", "spec", "containers")
			text := fmt.Sprint(args)
			for _, want := range []string{"--sdn=" + sdnupdate.DefaultSDN, "--comments=" + sdnupdate.DefaultComments} {
				if !strings.Contains(text, want) {
					t.Errorf("the sanctions CronJob does not read OFAC's files by default (%s): %s", want, text)
				}
			}
		}
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		must(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d))
		deployments++
		for _, ref := range podReferences(d.Spec.Template.Spec) {
			checkReference(t, kube, rendered, d.Name, ref)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if d.Name == "swaprouter-redis" && c.Image != redisImage {
				t.Errorf("Redis runs %s by default, want config/redis's %s", c.Image, redisImage)
			}
			if !strings.HasPrefix(c.Image, "swaprouter/") {
				continue
			}
			if c.Image != image || c.ImagePullPolicy != corev1.PullIfNotPresent {
				t.Errorf("Deployment %s runs %s (pull %q), want %s as built, never pulled when loaded (IfNotPresent)",
					d.Name, c.Image, c.ImagePullPolicy, image)
			}
		}
	}
	if deployments < 3 {
		t.Errorf("the overlay renders %d Deployments, want the controllers, the frontend and Redis", deployments)
	}

	var credentials corev1.Secret
	must(t, kube.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: auth.FrontendSecret}, &credentials))
	if len(credentials.Data[receipt.SecretKey]) == 0 {
		t.Errorf("the section wrote no receipt signing key to %s", auth.FrontendSecret)
	}
	// The frontend refuses to start on a quote keys file it cannot load.
	var quoteKeys corev1.Secret
	must(t, kube.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: "swaprouter-quote-keys"}, &quoteKeys))
	if _, err := tokenkeys.Parse(quoteKeys.Data["keys"]); err != nil {
		t.Errorf("the section's swaprouter-quote-keys Secret holds no keyset the frontend loads: %v", err)
	}

	// The oldest Kubernetes the manifests run on is the one that serves their newest API.
	for _, o := range rendered {
		if o.GetKind() == "MutatingAdmissionPolicy" && o.GetAPIVersion() == "admissionregistration.k8s.io/v1" &&
			!strings.Contains(section, "Kubernetes **1.36 or later**") {
			t.Errorf("the overlay needs MutatingAdmissionPolicy v1 (Kubernetes 1.36), which the section does not say")
		}
	}
}

// reference is a Secret or ConfigMap a pod reads, and the key it reads (empty: all of it).
type reference struct {
	kind, name, key string
}

// podReferences are the Secrets and ConfigMaps a pod cannot start without: env and envFrom
// sources and volumes, except those marked optional.
func podReferences(spec corev1.PodSpec) []reference {
	var refs []reference
	optional := func(o *bool) bool { return o != nil && *o }
	for _, c := range append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...) {
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if s := e.ValueFrom.SecretKeyRef; s != nil && !optional(s.Optional) {
				refs = append(refs, reference{"Secret", s.Name, s.Key})
			}
			if m := e.ValueFrom.ConfigMapKeyRef; m != nil && !optional(m.Optional) {
				refs = append(refs, reference{"ConfigMap", m.Name, m.Key})
			}
		}
		for _, f := range c.EnvFrom {
			if s := f.SecretRef; s != nil && !optional(s.Optional) {
				refs = append(refs, reference{"Secret", s.Name, ""})
			}
			if m := f.ConfigMapRef; m != nil && !optional(m.Optional) {
				refs = append(refs, reference{"ConfigMap", m.Name, ""})
			}
		}
	}
	for _, v := range spec.Volumes {
		if s := v.Secret; s != nil && !optional(s.Optional) {
			refs = append(refs, reference{"Secret", s.SecretName, ""})
		}
		if m := v.ConfigMap; m != nil && !optional(m.Optional) {
			refs = append(refs, reference{"ConfigMap", m.Name, ""})
		}
		if p := v.Projected; p != nil {
			for _, src := range p.Sources {
				if s := src.Secret; s != nil && !optional(s.Optional) {
					refs = append(refs, reference{"Secret", s.Name, ""})
				}
				if m := src.ConfigMap; m != nil && !optional(m.Optional) {
					refs = append(refs, reference{"ConfigMap", m.Name, ""})
				}
			}
		}
	}
	return refs
}

// checkReference fails unless ref exists, with its key: created in the cluster by the
// section, or rendered by the overlay.
func checkReference(t *testing.T, c client.Client, rendered []*unstructured.Unstructured, deployment string, ref reference) {
	t.Helper()
	var data map[string]any
	for _, o := range rendered {
		if o.GetKind() == ref.kind && o.GetName() == ref.name {
			data, _, _ = unstructured.NestedMap(o.Object, "data")
			if data == nil {
				data = map[string]any{}
			}
		}
	}
	if data == nil {
		var obj client.Object = &corev1.Secret{}
		if ref.kind == "ConfigMap" {
			obj = &corev1.ConfigMap{}
		}
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: ref.name}, obj); err != nil {
			t.Errorf("Deployment %s reads %s %s, which the section does not create: %v", deployment, ref.kind, ref.name, err)
			return
		}
		data = map[string]any{}
		switch o := obj.(type) {
		case *corev1.Secret:
			for k := range o.Data {
				data[k] = true
			}
		case *corev1.ConfigMap:
			for k := range o.Data {
				data[k] = true
			}
		}
	}
	if _, ok := data[ref.key]; ref.key != "" && !ok {
		t.Errorf("Deployment %s reads key %s of %s %s, which it lacks", deployment, ref.key, ref.kind, ref.name)
	}
}

// renderedObjects renders overlay (relative to dir) as kubectl does.
func renderedObjects(t *testing.T, dir, overlay string) []*unstructured.Unstructured {
	t.Helper()
	rendered := run(t, dir, filepath.Join(testenv.AssetsDir(), "kubectl"), "kustomize", overlay)
	var objs []*unstructured.Unstructured
	for doc := range strings.SplitSeq(rendered, "\n---\n") {
		o := &unstructured.Unstructured{}
		must(t, yaml.Unmarshal([]byte(doc), &o.Object))
		objs = append(objs, o)
	}
	return objs
}

// deploymentImage is the image of the first container of the Deployment overlay renders.
func deploymentImage(t *testing.T, dir, overlay string) string {
	t.Helper()
	for _, o := range renderedObjects(t, dir, overlay) {
		if o.GetKind() != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		must(t, runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d))
		return d.Spec.Template.Spec.Containers[0].Image
	}
	t.Fatalf("%s renders no Deployment", overlay)
	return ""
}

// imageTags are the references a docker-loadable image tarball carries.
func imageTags(t *testing.T, tarball string) []string {
	t.Helper()
	f, err := os.Open(tarball)
	must(t, err)
	defer f.Close()
	r := tar.NewReader(f)
	for {
		h, err := r.Next()
		if err == io.EOF {
			t.Fatalf("%s has no manifest.json", tarball)
		}
		must(t, err)
		if h.Name != "manifest.json" {
			continue
		}
		var manifest []struct{ RepoTags []string }
		must(t, json.NewDecoder(r).Decode(&manifest))
		var tags []string
		for _, m := range manifest {
			tags = append(tags, m.RepoTags...)
		}
		return tags
	}
}

func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
