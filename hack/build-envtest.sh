#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver and etcd) and a matching kubectl (which also
# renders kustomize overlays) from the Go module proxy.
#
# setup-envtest's download site is unreachable here, so we compile the binaries ourselves:
# a throw-away module requires k8s.io/kubernetes, rewrites its ./staging replaces into the
# published k8s.io/* modules, and builds both commands. Output is reused when present.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.1}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${ENVTEST_DIR:-$ROOT/bin/k8s/${K8S_VERSION}-linux-amd64}"
LOG_TAG=envtest RERUN="make envtest"
# shellcheck source=lib/gobuild.sh
source "$ROOT/hack/lib/gobuild.sh"

if [[ -x "$OUT/kube-apiserver" && -x "$OUT/etcd" && -x "$OUT/kubectl" ]]; then
  log "reusing $OUT"
  echo "$OUT"
  exit 0
fi

command -v go >/dev/null || { log "ERROR: go is not on PATH"; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/envtest-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
cd "$WORK"

log "building kube-apiserver, kubectl v${K8S_VERSION} and etcd from source (first run only, ~8 min on 2 cores)"
log "steps 1-2/5: the k8s.io/kubernetes module"
k8s_module "$K8S_VERSION"

# etcd: the version kubernetes pins.
ETCD_VERSION="$(sed -n 's#^[[:space:]]*go.etcd.io/etcd/server/v3 \(v[^[:space:]]*\).*#\1#p' "$K8S_DIR/go.mod" | head -1)"
[[ -n "$ETCD_VERSION" ]] || fail "could not find the etcd version pinned by kubernetes"

cat > tools.go <<GO
//go:build tools

package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
GOFLAGS=-mod=mod go mod tidy -e >/dev/null 2>&1 || true
GOFLAGS=-mod=mod go get "k8s.io/kubernetes/cmd/kube-apiserver@v${K8S_VERSION}" "go.etcd.io/etcd/server/v3@${ETCD_VERSION}" \
  || fail "resolving modules failed"

export CGO_ENABLED=0
go_build 3/5 kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$K8S_LDFLAGS"
go_build 4/5 etcd go.etcd.io/etcd/server/v3 "-s -w"
go_build 5/5 kubectl k8s.io/kubernetes/cmd/kubectl "$K8S_LDFLAGS"

log "done: $OUT"
echo "$OUT"
