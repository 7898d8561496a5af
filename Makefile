# cassette — see README.md. `make test` is what CI runs.
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS   := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
BIN       := bin/cassette
# cmd/cassette's tests that run the test binary as `cassette` (see test:)
BINARY_TESTS := ^(TestScripts|TestCoverageScripts|TestImportGoVCRThenVerify|TestGoVCRCorpusReplays)$$

.PHONY: build test cross cross-quick demo docs release-check release-snapshot release-image python-wheel js-tarball bench bench-check lint fuzz clean report-screenshot

build: ## build bin/cassette and bin/cassette-shim (what observe's CLI shims run)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/cassette
	$(GO) build -o bin/cassette-shim ./cmd/cassette-shim

test: ## vet, then every test with the race detector (the CLI scripts without it: see below), actionlint over the workflows, the docs site (mkdocs build --strict); ends with what was skipped and why
	$(GO) vet ./...
	$(MAKE) --no-print-directory docs release-check cross-quick
	GO=$(GO) examples/github-actions/actionlint.sh
	@mkdir -p .cassette && $(GO) build -o .cassette/testsummary ./internal/testsummary
	@# cmd/cassette's scripts (and the two tests that import and replay the
	@# go-vcr corpora through the binary) run the test binary as `cassette`
	@# thousands of times: under -race they took 530 s of a 9-minute run,
	@# 41 s without. They run without it; every package they drive is
	@# race-tested in its own tests, and cmd's other tests run under -race.
	@{ $(GO) test -race -count=1 -timeout 20m -json $$($(GO) list ./... | grep -v '/cmd/cassette$$') 2>&1; echo $$? >.cassette/test.exit; \
	   $(GO) test -count=1 -timeout 20m -json -run '$(BINARY_TESTS)' ./cmd/cassette 2>&1; echo $$? >>.cassette/test.exit; \
	   $(GO) test -race -count=1 -timeout 20m -json -skip '$(BINARY_TESTS)' ./cmd/cassette 2>&1; echo $$? >>.cassette/test.exit; } | .cassette/testsummary; \
	  summary=$$?; test "$$(sort -u .cassette/test.exit)" = 0 && test $$summary = 0
	@# The official LLM SDKs against replayed real streams: a module of its own
	@# (./... does not enter it). Without -race: the SDKs are not ours, and the
	@# proxy under test is a separate process.
	cd examples/llm-stream/sdk && $(GO) vet ./...
	@{ cd examples/llm-stream/sdk && $(GO) test -count=1 -timeout 5m -json ./... 2>&1; echo $$? >$(CURDIR)/.cassette/sdk.exit; } | .cassette/testsummary; \
	  summary=$$?; test "$$(cat .cassette/sdk.exit)" = 0 && test $$summary = 0
	@# go-dockerclient's fake Docker engine against the podman recordings,
	@# in modelled mode: a module of its own, like the SDKs (docs/modelled.md).
	cd examples/docker/dockerclient && $(GO) vet ./...
	@{ cd examples/docker/dockerclient && $(GO) test -count=1 -timeout 5m -json ./... 2>&1; echo $$? >$(CURDIR)/.cassette/dockerclient.exit; } | .cassette/testsummary; \
	  summary=$$?; test "$$(cat .cassette/dockerclient.exit)" = 0 && test $$summary = 0

demo: build ## verify the embedded example's cassettes against its fakes (no network, no credentials); its next steps run from here, with bin/ on PATH
	$(BIN) verify --config examples/demo/cassette.yaml --report-dir examples/demo/.cassette/reports

report-screenshot: ## refresh docs/report-html.png, the README's picture of the demo's report.html after "See a drift" (needs chromium)
	rm -rf .cassette/artifacts && mkdir -p .cassette/artifacts
	$(GO) test -count=1 -run 'TestReportHTMLInChromium/demo' -artifacts -outputdir $(CURDIR)/.cassette/artifacts ./examples/internal/browser
	mkdir -p docs
	cp "$$(find .cassette/artifacts -name demo.png | head -n 1)" docs/report-html.png

docs: ## build the docs site into site/ (git-ignored) with mkdocs build --strict: a broken link, a missing page or a page the nav lacks fails (Debian: mkdocs, mkdocs-material)
	@mkdir -p .cassette
	mkdocs build --strict >.cassette/mkdocs.log 2>&1 || { cat .cassette/mkdocs.log; exit 1; }
	@# mkdocs 1.4 only notes (INFO) a page the nav lacks: that fails here
	@! grep -A30 'not included in the "nav"' .cassette/mkdocs.log

# GoReleaser v2, pinned in the nested tools module (tools/go.mod): the
# first run builds it (about 11 minutes on a busy 2-core machine, 121 MB);
# later runs take it from the Go build cache (about 2 s).
GORELEASER = cd tools && $(GO) tool goreleaser
PACKAGES  ?= .cassette/packages

# the release's targets other than the machine's own (.goreleaser.yaml)
CROSS       := windows/amd64 windows/arm64 darwin/amd64 darwin/arm64
CROSS_QUICK := windows/amd64 darwin/arm64

cross: ## go build ./... for every non-Linux target of the release (windows, darwin × amd64, arm64)
	@for t in $(CROSS); do echo "go build ./... ($$t)"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build ./... || exit 1; done

cross-quick: ## go build ./... for windows/amd64 and darwin/arm64 (in make test: each OS's own files compile)
	@for t in $(CROSS_QUICK); do echo "go build ./... ($$t)"; GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) build ./... || exit 1; done

release-check: ## goreleaser check of .goreleaser.yaml (in make test)
	$(GORELEASER) check --config ../.goreleaser.yaml

release-snapshot: ## every release archive (linux, darwin, windows × amd64, arm64), checksums.txt and a CycloneDX SBOM per binary into dist/, then the container image; nothing is published
	"$$(cd tools && $(GO) tool -n goreleaser)" release --snapshot --clean
	$(MAKE) --no-print-directory release-image

release-image: ## the container image (Containerfile: FROM scratch and the static binary) from the linux/amd64 snapshot in dist/, with podman, offline
	podman build --pull=never -t localhost/cassette:snapshot -f Containerfile dist/cassette_linux_amd64_v1

python-wheel: ## the pytest plugin as a wheel in $(PACKAGES)/python, offline (no build isolation: Debian's setuptools and wheel)
	/usr/bin/python3 -m pip wheel --no-build-isolation --no-deps --no-index -q -w $(PACKAGES)/python ./python

js-tarball: ## the node:test module as an npm tarball in $(PACKAGES)/js, offline
	mkdir -p $(PACKAGES)/js && cd js && npm pack --silent --offline --pack-destination "$(abspath $(PACKAGES))/js"

bench: ## benchmarks (not part of make test)
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-check: ## the performance table's quick rows against the last committed bench/figures-*.md: which ratio moved (not part of make test)
	bench/check.sh $(BENCH_TOLERANCE)

lint: ## gofmt, go vet, staticcheck (installed on first use)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "run: gofmt -w ."; exit 1)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@latest ./...

fuzz: ## run each fuzz target for FUZZTIME (default 60s)
	$(GO) test ./cassettes -run '^$$' -fuzz FuzzParse -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./cassettes -run '^$$' -fuzz FuzzFastDecodeAgreesWithYAML -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./cassettes -run '^$$' -fuzz FuzzFastDecodeWriterValues -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./internal/redact -run '^$$' -fuzz FuzzScan -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./internal/redact -run '^$$' -fuzz FuzzRedactByName -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./internal/redact -run '^$$' -fuzz FuzzCredentialName -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./internal/redact -run '^$$' -fuzz FuzzRedactor -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./internal/coverage -run '^$$' -fuzz FuzzShapeHoldsNoValue -fuzztime $${FUZZTIME:-60s}
	$(GO) test ./internal/coverage -run '^$$' -fuzz FuzzShapeAnyCall -fuzztime $${FUZZTIME:-60s}

clean:
	rm -rf bin .cassette site dist
