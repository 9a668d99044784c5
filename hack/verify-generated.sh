#!/usr/bin/env bash
# Fails when the generated files (deepcopy, CRDs, RBAC, apiserver/openapi.json, the routes' error lists, the server's wire types, the /v1 Go client,
# the TypeScript SDK's types) differ from what controller-gen, hack/openapigen, oapi-codegen and
# openapi-typescript make from the current markers and apiserver/openapi-source.yaml, when Go
# files need gofmt, or when `go mod tidy` would change go.mod or go.sum. Compares against the working tree, so fresh uncommitted changes pass; stale
# files are regenerated in place and reported.
set -euo pipefail
cd "$(dirname "$0")/.."

snapshot() { find api config/crd config/rbac pkg/client apiserver/openapi.json apiserver/zz_generated.errors.go apiserver/internal/wire sdk/typescript/src/generated -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum; }

before="$(snapshot)"
make --no-print-directory generate manifests >/dev/null
after="$(snapshot)"
if [[ "$before" != "$after" ]]; then
  diff <(echo "$before") <(echo "$after") >&2 || true
  echo "verify: generated files were stale; they are regenerated now: review and commit them" >&2
  exit 1
fi

unformatted="$(gofmt -l $(git ls-files '*.go' ; git ls-files --others --exclude-standard '*.go'))"
if [[ -n "$unformatted" ]]; then
  echo "verify: gofmt needed: $unformatted" >&2
  exit 1
fi
if ! tidy="$(go mod tidy -diff 2>&1)"; then
  echo "$tidy" >&2
  echo "verify: go.mod or go.sum is not tidy: run go mod tidy and commit the result" >&2
  exit 1
fi
echo "verify: generated files are fresh, Go files are formatted and go.mod is tidy"
