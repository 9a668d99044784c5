# swaprouter — every target installs or builds what it needs (Go modules through the module
# proxy, the envtest control plane compiled from source by hack/build-envtest.sh).

SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec

K8S_VERSION    ?= 1.37.1
ENVTEST_DIR    ?= $(CURDIR)/bin/k8s/$(K8S_VERSION)-linux-amd64
NODE_DIR       ?= $(CURDIR)/bin/node/$(K8S_VERSION)-linux-amd64
CONTROLLER_GEN := go tool controller-gen
GO_TEST_FLAGS  ?= -count=1 -timeout 30m
VERSION        ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
IMAGE_TAG      ?= $(VERSION)
LDFLAGS        := -X github.com/swaprouter/swaprouter/internal/version.Version=$(VERSION)

export KUBEBUILDER_ASSETS := $(ENVTEST_DIR)
export PATH := $(ENVTEST_DIR):$(PATH)

.PHONY: all
all: build

##@ General
.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_-]+:.*?##/ { printf "  %-14s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Development
.PHONY: generate
generate: ## Generate deepcopy code from the API markers, apiserver/openapi.json and the routes' error lists from apiserver/openapi-source.yaml, and from that the server's wire types (apiserver/internal/wire), the /v1 Go client (pkg/client) and the TypeScript SDK's types (sdk/typescript/src/generated).
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	go run ./hack/openapigen apiserver/openapi-source.yaml apiserver/openapi.json apiserver/zz_generated.errors.go
	go tool oapi-codegen -config pkg/client/oapi-codegen.yaml apiserver/openapi.json
	go tool oapi-codegen -config apiserver/internal/wire/oapi-codegen.yaml apiserver/openapi.json
	cd sdk/typescript && { test node_modules/.package-lock.json -nt package-lock.json || npm ci --no-audit --no-fund --loglevel=error; } \
		&& npm run --silent generate >/dev/null

.PHONY: manifests
manifests: ## Generate CRDs (config/crd/bases) and RBAC (config/rbac: controllers, frontend) from markers.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=swaprouter-manager paths=./controllers/... output:rbac:artifacts:config=config/rbac
	$(CONTROLLER_GEN) rbac:roleName=swaprouter-frontend paths=./apiserver/... paths=./internal/system/... \
		output:rbac:artifacts:config=config/rbac/frontend

.PHONY: verify
verify: ## Fail when generated files are stale, Go files are unformatted or go.mod/go.sum are not tidy.
	hack/verify-generated.sh

.PHONY: vet
vet: ## go vet every package.
	go vet ./...

.PHONY: openapi-check
openapi-check: ## Generate code from apiserver/openapi.json with oapi-codegen (default options) and openapi-typescript, and compile it.
	hack/check-openapi-generators.sh

.PHONY: envtest
envtest: $(ENVTEST_DIR)/kube-apiserver $(ENVTEST_DIR)/etcd $(ENVTEST_DIR)/kubectl ## Build kube-apiserver, etcd and kubectl from source (reused when present).

$(ENVTEST_DIR)/kube-apiserver $(ENVTEST_DIR)/etcd $(ENVTEST_DIR)/kubectl:
	ENVTEST_DIR=$(ENVTEST_DIR) K8S_VERSION=$(K8S_VERSION) hack/build-envtest.sh >/dev/null

.PHONY: node
node: envtest ## Build the single-node cluster's parts from source (kubelet, kube-proxy, kube-controller-manager, kube-scheduler, containerd, the CNI plugins, kube-router, CoreDNS, the pause image) into bin/node (each reused when present).
	NODE_DIR=$(NODE_DIR) K8S_VERSION=$(K8S_VERSION) hack/build-node.sh >/dev/null

.PHONY: node-test
node-test: tools node ## Deploy swaprouter on a real single-node cluster as the README says, and only that (test/node; make test runs it too).
	go test $(GO_TEST_FLAGS) -v ./test/node/...

.PHONY: tools
tools: ## Install the Debian packages the tests, make run and the README walkthrough use (curl, jq, postgresql, redis-server, chromium, runc, iproute2, iptables and ipset for the containers and the node, Node.js and npm for the TypeScript generator and the 1Click and Relay SDK checks).
	@command -v curl >/dev/null && command -v jq >/dev/null && test -x /usr/bin/chromium && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && test -x /usr/bin/redis-server && test -x /usr/sbin/runc && command -v ip >/dev/null && test -x /usr/sbin/iptables && test -x /usr/sbin/ipset || { \
		echo "installing curl, jq, postgresql, redis-server, chromium, runc, iproute2, iptables and ipset with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl jq postgresql redis-server chromium runc iproute2 iptables ipset >/dev/null; }
	@command -v node >/dev/null && command -v npm >/dev/null || { \
		echo "installing nodejs and npm with apt-get"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; }

.PHONY: test
test: tools envtest node verify vet openapi-check ## Run every test (unit, envtest suites, whole-system journeys, the README's deploy section run on a real single node (test/node, built by make node) and against a bare API server (test/deploy), the OpenAPI generators, 1Click's and Relay's npm SDKs against the simulator (test/oneclicksdk, test/relaysdk), our TypeScript SDK against the whole system (test/tssdk)).
	go test $(GO_TEST_FLAGS) ./...

.PHONY: bench
bench: envtest ## Benchmarks of the whole system as ratios (about 15 min); writes docs/benchmarks.md, bench/results.json and docs/bench-latency.png.
	go run ./cmd/swaprouter-bench $(ARGS)

.PHONY: fuzz
fuzz: ## Fuzz every target for FUZZTIME each (default 30s); the seed corpora also run in make test.
	hack/fuzz.sh

.PHONY: reliability
reliability: tools envtest ## Long fault-injection runs (in-process suite and the multi-process topology rig); writes docs/reliability.md.
	hack/reliability.sh

##@ Build and run
.PHONY: build
build: ## Build bin/swaprouter (the service), bin/kubectl-swaprouter (the plugin), and the dev tools bin/swaprouter-dev and bin/provider-sim.
	for bin in swaprouter kubectl-swaprouter swaprouter-dev provider-sim; do \
		go build -ldflags "$(LDFLAGS)" -o bin/$$bin ./cmd/$$bin; \
	done

.PHONY: version
version: ## Print the version make build stamps into the binaries and make image tags the images with (git describe).
	@echo $(VERSION)

.PHONY: image
image: ## Build container image tarballs dist/swaprouter.tar and dist/provider-sim.tar, tagged IMAGE_TAG (default: make version) (no Docker engine needed).
	for bin in swaprouter provider-sim; do \
		CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath -ldflags "-s -w $(LDFLAGS)" -o bin/linux/$$bin ./cmd/$$bin; \
		(cd hack/image && go run . -binary $(CURDIR)/bin/linux/$$bin -name swaprouter/$$bin:$(IMAGE_TAG) -out $(CURDIR)/dist/$$bin.tar); \
	done

.PHONY: run
run: tools envtest build ## Run the embedded dev system (control plane, PostgreSQL, simulator, controllers, frontend, swap app).
	bin/swaprouter-dev $(ARGS)
