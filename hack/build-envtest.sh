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

log() { printf '[envtest %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

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

fail() { log "ERROR: $*"; log "the build log is above; rerun 'make envtest' after fixing the cause"; exit 1; }

log "building kube-apiserver, kubectl v${K8S_VERSION} and etcd from source (first run only, ~8 min on 2 cores)"
go mod init envtest-build >/dev/null 2>&1
go mod edit -require="k8s.io/kubernetes@v${K8S_VERSION}"

log "step 1/5: resolving k8s.io/kubernetes v${K8S_VERSION}"
KDIR="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
[[ -n "$KDIR" && -f "$KDIR/go.mod" ]] || fail "could not download k8s.io/kubernetes v${K8S_VERSION}"

# Every staging replace (k8s.io/X => ./staging/src/k8s.io/X) becomes k8s.io/X v0.<minor>.<patch>.
STAGING_VERSION="v0.${K8S_VERSION#*.}"
K8S_MINOR="$(cut -d. -f2 <<<"$K8S_VERSION")"
replaces=0
while read -r mod; do
  go mod edit -replace="${mod}=${mod}@${STAGING_VERSION}"
  replaces=$((replaces + 1))
done < <(sed -n 's#^[[:space:]]*\(k8s.io/[^[:space:]]*\) => ./staging/src/k8s.io/.*#\1#p' "$KDIR/go.mod")
(( replaces > 0 )) || fail "found no staging replaces in k8s.io/kubernetes go.mod"
log "step 2/5: rewrote ${replaces} staging replaces to ${STAGING_VERSION}"

# etcd: the version kubernetes pins.
ETCD_VERSION="$(sed -n 's#^[[:space:]]*go.etcd.io/etcd/server/v3 \(v[^[:space:]]*\).*#\1#p' "$KDIR/go.mod" | head -1)"
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
K8S_LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=v${K8S_VERSION} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${K8S_MINOR}"

# build STEP NAME PACKAGE LDFLAGS: compiles one binary unless it is already there.
build() {
  local step=$1 name=$2 pkg=$3 ldflags=$4 start
  if [[ -x "$OUT/$name" ]]; then
    log "step $step: $name already built"
    return
  fi
  start=$(date +%s)
  log "step $step: compiling $name"
  GOFLAGS=-mod=mod go build -trimpath -ldflags "$ldflags" -o "$OUT/$name.tmp" "$pkg" || fail "$name build failed"
  mv "$OUT/$name.tmp" "$OUT/$name"
  log "  $name built in $(( $(date +%s) - start ))s"
}

build 3/5 kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver "$K8S_LDFLAGS"
build 4/5 etcd go.etcd.io/etcd/server/v3 "-s -w"
build 5/5 kubectl k8s.io/kubernetes/cmd/kubectl "$K8S_LDFLAGS"

log "done: $OUT"
echo "$OUT"
