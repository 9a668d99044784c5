#!/usr/bin/env bash
# Generates code from apiserver/openapi.json with the tools partners use and checks it:
# oapi-codegen with its default options (types and client; pinned by go.mod's tool directive)
# must give a Go package that compiles and vets, openapi-typescript must give types tsc
# accepts (both pinned by hack/openapi-ts/package-lock.json; hack/openapi-ts/check.ts reads
# the types as a TypeScript partner would).
set -euo pipefail
cd "$(dirname "$0")/.."

# Under bin/ (ignored by git) and named with a leading underscore (ignored by ./...), so a
# concurrent `go test ./...` never sees it; inside the module, so the client's runtime
# dependency resolves through go.mod.
dir="bin/_openapi-check.$$"
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir"
go tool oapi-codegen -generate types,client -package check -o "$dir/client.go" apiserver/openapi.json
go vet "./$dir"
echo "openapi: oapi-codegen (default options) generates a Go client that compiles"

command -v npm >/dev/null || { echo "openapi: npm is needed (Node.js 18 or later)" >&2; exit 1; }
cd hack/openapi-ts
npm ci --no-audit --no-fund --loglevel=error >/dev/null
npm run --silent check
echo "openapi: openapi-typescript generates types tsc accepts"
