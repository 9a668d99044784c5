#!/usr/bin/env bash
# Builds the parts of the single-node cluster test/node runs, from the Go module proxy, into
# bin/node/<k8s version>-linux-amd64 (reused when present; each part is built once):
#   kube-controller-manager, kube-scheduler, kubelet, kube-proxy  (k8s.io/kubernetes)
#   containerd, containerd-shim-runc-v2, ctr                       (containerd 2.x; ctr imports images)
#   cni/bridge, cni/host-local, cni/loopback, cni/portmap          (the CNI plugins)
#   kube-router                                                   (enforces NetworkPolicy)
#   coredns                                                       (only the plugins a cluster's DNS needs)
#   images/pause.tar                                              (hack/pause, packed by hack/image)
# The control plane's kube-apiserver, etcd and kubectl come from hack/build-envtest.sh; runc,
# iptables and ipset are Debian's (make tools).
#
# Cost, measured with an empty Go build cache (modules downloaded in the run): 18 CPU-minutes in
# all (kube-controller-manager 11.5, after which kube-scheduler, kubelet and kube-proxy take
# seconds; kube-router 2.6; CoreDNS 1.8; containerd, its shim and ctr 1.7; CNI plugins and the
# pause image 0.5), so about 10-15 minutes on two idle cores; less after hack/build-envtest.sh,
# whose k8s.io libraries share the cache.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.37.1}"
CONTAINERD_VERSION="${CONTAINERD_VERSION:-v2.4.2}"
CNI_PLUGINS_VERSION="${CNI_PLUGINS_VERSION:-v1.10.0}"
KUBE_ROUTER_VERSION="${KUBE_ROUTER_VERSION:-v2.1.0}"
COREDNS_VERSION="${COREDNS_VERSION:-v1.15.0}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${NODE_DIR:-$ROOT/bin/node/${K8S_VERSION}-linux-amd64}"
LOG_TAG=node RERUN="make node"
# shellcheck source=lib/gobuild.sh
source "$ROOT/hack/lib/gobuild.sh"

PARTS=(kube-controller-manager kube-scheduler kubelet kube-proxy containerd containerd-shim-runc-v2 ctr
  cni/bridge cni/host-local cni/loopback cni/portmap kube-router coredns images/pause.tar)
missing=()
for part in "${PARTS[@]}"; do [[ -e "$OUT/$part" ]] || missing+=("$part"); done
if (( ${#missing[@]} == 0 )); then
  log "reusing $OUT"
  echo "$OUT"
  exit 0
fi

command -v go >/dev/null || { log "ERROR: go is not on PATH"; exit 1; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/node-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$OUT"
START=$(date +%s)
export CGO_ENABLED=0
log "building ${missing[*]} from source (first run only; 10-15 min on 2 idle cores with a cold Go cache)"

# module NAME MODULE@VERSION: a throw-away module in $WORK/NAME that requires MODULE@VERSION, so
# its commands build with the versions its own go.mod chose.
module() {
  mkdir -p "$WORK/$1" && cd "$WORK/$1"
  go mod init "node-build-$1" >/dev/null 2>&1
  go mod edit -require="$2"
}

log "steps 1-4/14: Kubernetes v${K8S_VERSION}"
mkdir -p "$WORK/k8s" && cd "$WORK/k8s"
k8s_module "$K8S_VERSION"
go_build 1/14 kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager "$K8S_LDFLAGS"
go_build 2/14 kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler "$K8S_LDFLAGS"
go_build 3/14 kubelet k8s.io/kubernetes/cmd/kubelet "$K8S_LDFLAGS"
go_build 4/14 kube-proxy k8s.io/kubernetes/cmd/kube-proxy "$K8S_LDFLAGS"

log "steps 5-7/14: containerd ${CONTAINERD_VERSION}"
module containerd "github.com/containerd/containerd/v2@${CONTAINERD_VERSION}"
# Without cgo the btrfs and devmapper snapshotters drop out; the node uses overlayfs.
CTD_LDFLAGS="-s -w -X github.com/containerd/containerd/v2/version.Version=${CONTAINERD_VERSION}"
go_build 5/14 containerd github.com/containerd/containerd/v2/cmd/containerd "$CTD_LDFLAGS" "no_btrfs no_devmapper no_zfs"
go_build 6/14 containerd-shim-runc-v2 github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 "$CTD_LDFLAGS"
go_build 7/14 ctr github.com/containerd/containerd/v2/cmd/ctr "$CTD_LDFLAGS"

log "steps 8-11/14: CNI plugins ${CNI_PLUGINS_VERSION}"
module cni "github.com/containernetworking/plugins@${CNI_PLUGINS_VERSION}"
CNI=github.com/containernetworking/plugins/plugins
go_build 8/14 cni/bridge "$CNI/main/bridge" "-s -w"
go_build 9/14 cni/host-local "$CNI/ipam/host-local" "-s -w"
go_build 10/14 cni/loopback "$CNI/main/loopback" "-s -w"
go_build 11/14 cni/portmap "$CNI/meta/portmap" "-s -w"

log "step 12/14: kube-router ${KUBE_ROUTER_VERSION} (its NetworkPolicy controller only)"
module kube-router "github.com/cloudnativelabs/kube-router/v2@${KUBE_ROUTER_VERSION}"
go_build 12/14 kube-router github.com/cloudnativelabs/kube-router/v2/cmd/kube-router \
  "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=${KUBE_ROUTER_VERSION}"

log "step 13/14: CoreDNS ${COREDNS_VERSION}"
module coredns "github.com/coredns/coredns@${COREDNS_VERSION}"
# CoreDNS's own main links every plugin (cloud DNS clients and all); this one links the plugins a
# cluster DNS server needs, which is most of the build time saved.
cat > main.go <<'GO'
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/ready"
)

func main() { coremain.Run() }
GO
go_build 13/14 coredns . "-s -w"

log "step 14/14: the pause image"
if [[ ! -e "$OUT/images/pause.tar" ]]; then
  mkdir -p "$OUT/images"
  (cd "$ROOT" && go build -trimpath -ldflags "-s -w" -o "$WORK/pause" ./hack/pause) || fail "pause build failed"
  (cd "$ROOT/hack/image" && go run . -binary "$WORK/pause" -name "swaprouter.test/pause:source" -ca-bundle "" -out "$OUT/images/pause.tar.tmp") \
    || fail "packing the pause image failed"
  mv "$OUT/images/pause.tar.tmp" "$OUT/images/pause.tar"
fi

log "done in $(( $(date +%s) - START ))s: $OUT"
echo "$OUT"
