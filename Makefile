# imgupd — every developer and CI entry point. `make test` is what CI runs.
GO        ?= go
FUZZTIME  ?= 10s
BENCHTIME ?= 5x

.PHONY: test unit race fuzz e2e e2e-deps compile dockerfile-test bench try build plugin vet fmt-check demo image manifests

# Every tier but race compiles as the image builds imgupd (deploy/image: CGO_ENABLED=0, -trimpath, and
# no DWARF: the image's binary is linked with -s -w, which drops it), so the packages compiled once
# serve vet, the unit tests, deploy/image's `go build`, fuzzing, the e2e tier, its kube-apiserver, helm
# and kustomize (scripts/install-tools.sh takes these flags) and the Dockerfile's build (which mounts
# the same Go build cache): on a cold cache, imgupd and its dependencies are compiled once, not once per
# configuration. race needs cgo and compiles on its own. Without DWARF (-dwarf=false, -ldflags=-w) the
# compiler and the linker do about a tenth and a fifth less work; panics and failures still show file
# and line. For a debugger, build or test with go itself, without these flags.
CGO_ENABLED ?= 0
export CGO_ENABLED
export GOFLAGS := $(strip $(GOFLAGS) -trimpath -gcflags=all=-dwarf=false -ldflags=-w)

## test: every test tier (vet, unit + loopback integration, race on the concurrent code, short fuzzing,
## the real kube-apiserver + etcd tier with the chart and Kustomize tests, the Dockerfile built with buildah),
## stopping at the first that fails; prints each tier's wall time at the end (scripts/tiers.sh). vet and
## fmt-check first; then two lanes at once: unit, race and fuzz one after the other (they compute), and
## beside them e2e then dockerfile-test (they mostly wait on servers and processes). `make unit TESTJSON=unit.json` also keeps go test's events for scripts/testtime.
## In `make test` the unit tier leaves out the packages the race tier runs (RACE_PKGS): the same tests,
## run once, under the race detector; and each fuzz target runs TEST_FUZZTIME (the seed corpora run in
## the unit and race tiers anyway; `make fuzz` alone fuzzes FUZZTIME each), guided by this module's
## packages only (FUZZ_INSTRUMENT=module: the dependencies are those the unit tier compiled, not a third
## instrumented build of them). `make unit` alone runs every package.
TIERS ?= vet fmt-check 'unit,race,fuzz|e2e,dockerfile-test'
TEST_FUZZTIME ?= 3s
test:
	@MAKE="$(MAKE)" UNIT_EXCEPT="$(RACE_PKGS)" FUZZTIME="$(TEST_FUZZTIME)" FUZZ_INSTRUMENT=module ./scripts/tiers.sh $(TIERS)

## compile: every package of imgupd as the tiers compile them (CI's first step: the packages every
## tier and test tool shares, compiled once before they run side by side)
compile:
	$(GO) build ./...

## e2e-deps: etcd, kube-apiserver, helm and kustomize for the e2e tier, built once and cached
## (scripts/e2e-deps.sh); prints their directory
e2e-deps:
	@GO=$(GO) ./scripts/e2e-deps.sh

build:
	$(GO) build -o bin/imgupd ./cmd/imgupd

## plugin: the kubectl plugin, bin/kubectl-imgupd (copy it to a directory on PATH: kubectl imgupd …)
plugin:
	$(GO) build -o bin/kubectl-imgupd ./cmd/imgupd

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## unit: unit tests and the loopback-server tests (real OCI registry on 127.0.0.1); prints go test's
## usual lines, then the slowest packages and tests (scripts/testtime; TESTJSON=FILE keeps the events).
## -parallel 4: the tests marked t.Parallel wait mostly on loopback servers and git processes, not CPU.
## UNIT_EXCEPT: package patterns left out (make test: the race tier's); with it, the race packages' RACE_CONTENT
## tests run here, without -race, beside the other packages (their events printed when those are done).
TESTJSON ?=
UNIT_EXCEPT ?=
unit:
	@json=$${TESTJSON:-$$(mktemp)}; \
	  pkgs=$$(if [ -n "$(UNIT_EXCEPT)" ]; then $(GO) list ./... | grep -vxF -e "$$($(GO) list $(UNIT_EXCEPT))"; else echo ./...; fi); \
	  { if [ -n "$(UNIT_EXCEPT)" ]; then \
	      $(GO) test -json -count=1 -parallel 4 -timeout 30m -run '^($(RACE_CONTENT))$$' $(RACE_CONTENT_PKGS) > "$$json.content" 2>&1 & cpid=$$!; fi; \
	    $(GO) test -json -count=1 -parallel 4 -timeout 30m $$pkgs; s=$$?; \
	    if [ -n "$(UNIT_EXCEPT)" ]; then wait $$cpid || s=1; cat "$$json.content"; rm -f "$$json.content"; fi; \
	    echo $$s > "$$json.status"; } | \
	    scripts/testtime --echo -n 15 --save "$$json"; \
	  status=$$(cat "$$json.status"); rm -f "$$json.status"; [ -n "$(TESTJSON)" ] || rm -f "$$json"; exit $$status

## race: the packages with concurrency, under the race detector (cgo: the race runtime needs it).
## RACE_CONTENT: the tests of those packages that check content over every scenario (internal/testtier's
## ContentOnly): skipped under -race (the lab's TestBuiltinScenarios runs every scenario's engine there),
## run by the unit tier without it, in RACE_CONTENT_PKGS (internal/testtier's test keeps these lists true).
RACE_PKGS := ./sources/registry/... ./simulate/... ./lab/... ./bot/... ./commands/...
RACE_CONTENT := TestEveryPayloadWithinLimitsAndSecretFree|TestHostileScenariosShowNothingLive|TestEveryRendererShowsClusterTextAsText
RACE_CONTENT_PKGS := ./bot ./lab
race:
	CGO_ENABLED=1 $(GO) test -count=1 -race -parallel 4 -timeout 30m $(RACE_PKGS)

## fuzz: every Fuzz target for FUZZTIME each, one worker each, as many targets at once as CPUs
## (make fuzz FUZZTIME=2m for a longer run; FUZZJOBS=1 for one target at a time; FUZZ_INSTRUMENT=module
## for coverage counters in this module's packages only, see scripts/fuzz-all.sh)
FUZZ_INSTRUMENT ?= all
fuzz:
	FUZZTIME=$(FUZZTIME) FUZZ_INSTRUMENT=$(FUZZ_INSTRUMENT) GO=$(GO) ./scripts/fuzz-all.sh

## e2e: the real-API-server tier (test/e2e, its own module), the chart, Kustomize and RBAC tests included;
## builds and caches etcd, kube-apiserver, helm and kustomize on first use (about 5½ minutes on 2 cores
## once imgupd's packages are compiled, see scripts/e2e-deps.sh and scripts/install-tools.sh)
e2e:
	@bin=$$(GO=$(GO) ./scripts/e2e-deps.sh) && cd test/e2e && $(GO) vet ./... && \
	  IMGUPD_E2E_BIN=$$bin $(GO) test -count=1 -timeout 30m ./...

## dockerfile-test: build the top-level Dockerfile with buildah (root, offline) and check the image as
## deploy/image's tests check theirs (scripts/dockerfile-test.sh)
dockerfile-test:
	GO=$(GO) ./scripts/dockerfile-test.sh

## manifests: write deploy/rbac.yaml, deploy/imgupd.yaml, deploy/kustomize/base, deploy/kustomize/rbac-only/rbac.yaml
## and deploy/grafana/imgupd-dashboard.json from the Helm chart
## (after changing deploy/helm/imgupd; the e2e tier fails while they differ)
manifests:
	HELM=$$(GO=$(GO) ./scripts/install-tools.sh)/helm $(GO) run ./deploy/render

## demo: every built-in lab scenario
demo:
	$(GO) run ./cmd/imgupd demo

## bench: the benchmarks named in the issues, with ratios (see bench/README.md)
bench:
	BENCHTIME=$(BENCHTIME) GO=$(GO) ./bench/simulate.sh
	GO=$(GO) ./bench/simulate-process.sh
	GO=$(GO) ./bench/bot.sh
	GO=$(GO) ./bench/fleet.sh
	GO=$(GO) ./bench/soak.sh

## image: the container image (linux/amd64 + linux/arm64, reproducible, no Docker): pushed to IMAGE
## (make image IMAGE=registry.example.com/you/imgupd:v0.1.0), else written as an OCI layout to dist/oci
image:
	GO=$(GO) $(GO) run ./deploy/image $(if $(IMAGE),--push $(IMAGE),--oci-layout dist/oci)

## try: start a real local registry with sample tags and run imgupd simulate against it
try:
	./scripts/try.sh
