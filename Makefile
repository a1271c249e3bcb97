# llmcost: an OpenTelemetry Collector distribution. The binary is generated
# from builder-config.yaml (ocb, pinned as a Go tool in go.mod) and built
# with CGO_ENABLED=0, the same setting ocb and the tests use, so the build
# cache is shared.
export CGO_ENABLED := 0
GO      ?= go
BIN     := bin/llmcost
CONFIG  ?= collector-config.yaml

.PHONY: help generate build postgres run test fuzz lint screenshots bench bench-runs bench-edges bench-agent-edges bench-merge-history validate tidy price-check

# Native Go fuzz targets, as package:target. make test runs each for
# FUZZTIME (a smoke run); make fuzz for FUZZLONG. Their seed corpus is
# committed under each package's testdata/fuzz; a failing input found by a
# run is written there too and then fails every later go test until fixed.
FUZZ     := ./internal/ingest:FuzzDecodeBatch ./internal/ingest:FuzzCheckJSONText ./internal/ingest:FuzzScanObject ./internal/ingest:FuzzSplitBatch ./internal/otlpconv:FuzzConvert ./receiver/costeventsreceiver:FuzzExtremeNumbers
FUZZTIME ?= 3s
FUZZLONG ?= 2m

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

# Each component's internal/metadata status package comes from its
# metadata.yaml (the collector's mdatagen schema) through the go:generate
# directive in its factory.go, run by cmd/mdstatus: mdatagen itself is not
# served by the module proxy, so it cannot be pinned as a Go tool.
COMPONENTS := ./receiver/... ./processor/... ./exporter/... ./extension/...

generate: ## regenerate each component's status package from metadata.yaml, and cmd/llmcost from builder-config.yaml
	@test -x $(BIN) || echo "make: first build: compiling the OpenTelemetry Collector distribution bin/llmcost (a few minutes on a cold Go cache, seconds afterwards)"
	@$(GO) generate $(COMPONENTS)
	@mkdir -p cmd bin/.ocb
	@# ocb logs INFO lines on stderr and always makes an empty temporary
	@# directory (its default output path): both are kept out of sight, its
	@# output is shown only when it fails.
	@TMPDIR=$(CURDIR)/bin/.ocb $(GO) tool builder --config builder-config.yaml --skip-get-modules --skip-compilation >bin/.ocb/log 2>&1 \
		|| { cat bin/.ocb/log; rm -rf bin/.ocb; exit 1; }
	@rm -rf bin/.ocb cmd/llmcost/go.mod cmd/llmcost/go.sum
	@gofmt -w cmd/llmcost

build: generate ## build bin/llmcost
	$(GO) build -trimpath -o $(BIN) ./cmd/llmcost

validate: build ## check collector-config.yaml
	./$(BIN) validate --config $(CONFIG)

postgres: ## install the PostgreSQL server binaries if missing (root on Debian), else say what to do
	@scripts/ensure-postgres

run: postgres build ## start llmcost on http://127.0.0.1:8080 (its own PostgreSQL unless LLMCOST_DATABASE_URL is set)
	./$(BIN) --config $(CONFIG)

test: build ## run every test, the PostgreSQL-backed and end-to-end ones included
	@scripts/ensure-postgres --tests
	@scripts/ensure-redis
	@scripts/ensure-pgbouncer
	@scripts/ensure-promtool
	@scripts/ensure-chromium
	@$(MAKE) --no-print-directory lint
	$(GO) test -count=1 -timeout 15m ./...
	@$(MAKE) --no-print-directory fuzz FUZZLONG=$(FUZZTIME)

# A run that ends with only "context deadline exceeded" and no failing
# input written hit go test's own race between the fuzz deadline and a busy
# worker (most often on a loaded machine): that target runs once more, and
# a second failure of any kind fails.
fuzz: ## run every fuzz target for FUZZLONG (2m) each
	@for t in $(FUZZ); do \
		pkg=$${t%%:*}; name=$${t##*:}; echo "fuzz $$name ($$pkg, $(FUZZLONG))"; \
		run() { $(GO) test -run '^$$' -fuzz="^$$name\$$" -fuzztime=$(FUZZLONG) $$pkg >bin/fuzz.log 2>&1; }; \
		run || { grep -q 'context deadline exceeded' bin/fuzz.log && ! grep -q 'Failing input written' bin/fuzz.log \
			&& echo "fuzz $$name: stopped at its deadline with no failing input; once more" && run; } \
			|| { cat bin/fuzz.log; rm -f bin/fuzz.log; exit 1; }; \
	done; rm -f bin/fuzz.log

bench: build ## end-to-end ingest throughput beside raw COPY, into PostgreSQL
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 1x -timeout 20m ./test/e2e/

bench-runs: ## run reports at scale: seeds LLMCOST_BENCH_RUNS runs (default 100000), p50/p95 per report, ingest vs COPY
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkRunReports -benchtime 1x -timeout 60m ./internal/postgres/

bench-edges: ## a 24h window's spend reads with the edge hours raw and the cheaper way round, alternately, at live-traffic density
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkEdgeHours -benchtime 1x -timeout 30m ./internal/postgres/

bench-agent-edges: ## reads narrowed to one agent at three clocks of the day: edge days (before per-agent hours) and edge hours, alternately
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkAgentEdges -benchtime 1x -timeout 30m ./internal/postgres/

bench-merge-history: ## the rollup and run mergers under live traffic beside 24 months of history and without, alternately (pages and times)
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkMergeBesideHistory -benchtime 1x -timeout 30m ./internal/postgres/

price-check: ## compare the built-in prices with PRICES=<a LiteLLM or genai-prices price file> (docs/pricing.md)
	@test -n "$(PRICES)" || { echo "usage: make price-check PRICES=<price file>"; exit 2; }
	$(GO) run ./cmd/pricecheck $(PRICES)

# staticcheck is pinned as a Go tool in go.mod; its results are cached in
# the user's cache directory, so a run after a small change takes seconds.
lint: ## gofmt, go vet and staticcheck
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...
	$(GO) tool staticcheck ./...

screenshots: build ## refresh docs/screenshots/*.png from the dashboard's browser test
	@scripts/ensure-postgres --tests
	@scripts/ensure-chromium
	LLMCOST_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run '^TestDashboardInABrowser$$' ./test/e2e/

tidy: ## go mod tidy
	$(GO) mod tidy

.PHONY: bench-analytics
bench-analytics: build ## seed (or reuse) 10 M events, time every analytics report over HTTP, ingest vs COPY
	$(GO) test -count=1 -run '^$$' -bench BenchmarkAnalytics -benchtime 1x -timeout 180m ./test/bench/

.PHONY: bench-pages
bench-pages: build ## seed (or reuse) the bench-analytics dataset and time every dashboard page (target: 300 ms each at 10 M events)
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkDashboardPages -benchtime 1x -timeout 180m ./test/bench/

.PHONY: bench-sustained
bench-sustained: build ## stream LLMCOST_BENCH_SUSTAINED_EVENTS calls (default 10 M) through HTTP with the mergers running; lag, reports during/after, budget-state p99, rates vs COPY
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkSustained -benchtime 1x -timeout 180m ./test/bench/

.PHONY: bench-scale
bench-scale: build ## grow one project from LLMCOST_BENCH_SCALE_FROM to _TO calls (10 M → 30 M): HTTP ingest, every report's p50/p95, disk per million calls at both sizes
	@scripts/ensure-postgres --tests
	$(GO) test -count=1 -run '^$$' -bench BenchmarkScale -benchtime 1x -timeout 600m ./test/bench/
