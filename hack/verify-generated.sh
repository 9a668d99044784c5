#!/usr/bin/env bash
# Fails when the generated files (deepcopy, CRDs, RBAC, apiserver/openapi.json, the /v1 Go client,
# the TypeScript SDK's types) differ from what controller-gen, hack/openapigen, oapi-codegen and
# openapi-typescript make from the current markers and apiserver/openapi-source.yaml, or when Go
# files need gofmt. Compares against the working tree, so fresh uncommitted changes pass; stale
# files are regenerated in place and reported.
set -euo pipefail
cd "$(dirname "$0")/.."

snapshot() { find api config/crd config/rbac pkg/client apiserver/openapi.json sdk/typescript/src/generated -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum; }

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
echo "verify: generated files are fresh and Go files are formatted"
