# Shared by hack/build-envtest.sh and hack/build-node.sh: logging, and compiling Go commands from
# the Go module proxy into a cache directory under bin/, each step timed.
#
# The caller sets LOG_TAG (the log prefix), OUT (where binaries go) and RERUN (the make target to
# name when something fails), and creates the work directory it builds in.

log() { printf '[%s %s] %s\n' "$LOG_TAG" "$(date +%H:%M:%S)" "$*" >&2; }

fail() { log "ERROR: $*"; log "the build log is above; rerun '$RERUN' after fixing the cause"; exit 1; }

# go_build STEP NAME PACKAGE LDFLAGS [TAGS]: compiles one binary into $OUT unless it is already
# there, in the module of the current directory.
go_build() {
  local step=$1 name=$2 pkg=$3 ldflags=$4 tags=${5:-} start
  if [[ -x "$OUT/$name" ]]; then
    log "step $step: $name already built"
    return
  fi
  start=$(date +%s)
  log "step $step: compiling $name"
  mkdir -p "$(dirname "$OUT/$name")"
  GOFLAGS=-mod=mod go build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$OUT/$name.tmp" "$pkg" || fail "$name build failed"
  mv "$OUT/$name.tmp" "$OUT/$name"
  log "  $name built in $(( $(date +%s) - start ))s"
}

# k8s_module K8S_VERSION: turns the current directory into a module that requires
# k8s.io/kubernetes, with its ./staging replaces rewritten into the published k8s.io/* modules
# (a k8s.io/kubernetes command cannot be go-installed directly because of those replaces).
# Sets K8S_DIR (the downloaded k8s.io/kubernetes) and K8S_LDFLAGS (the version stamp).
k8s_module() {
  local version=$1 staging replaces=0 mod
  go mod init node-build >/dev/null 2>&1
  go mod edit -require="k8s.io/kubernetes@v${version}"
  log "resolving k8s.io/kubernetes v${version}"
  K8S_DIR="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@v${version}" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -n "$K8S_DIR" && -f "$K8S_DIR/go.mod" ]] || fail "could not download k8s.io/kubernetes v${version}"
  # Every staging replace (k8s.io/X => ./staging/src/k8s.io/X) becomes k8s.io/X v0.<minor>.<patch>.
  staging="v0.${version#*.}"
  while read -r mod; do
    go mod edit -replace="${mod}=${mod}@${staging}"
    replaces=$((replaces + 1))
  done < <(sed -n 's#^[[:space:]]*\(k8s.io/[^[:space:]]*\) => ./staging/src/k8s.io/.*#\1#p' "$K8S_DIR/go.mod")
  (( replaces > 0 )) || fail "found no staging replaces in k8s.io/kubernetes go.mod"
  log "rewrote ${replaces} staging replaces to ${staging}"
  K8S_LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=v${version} -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$(cut -d. -f2 <<<"$version")"
}
