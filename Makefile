# Helios — common tasks. `make run` shows the demo; `make test` is the test command.
GO      ?= go
DEMO    := examples/demo/helios.config.json
HELIOS  := bin/helios

.PHONY: all modules build run test unit vet fmt-check mutate bench live clean plugins proto test-postgres fuzz fuzz-short

all: build

# -buildvcs=auto stamps the checkout's commit for `helios --version` even where
# GOFLAGS turns VCS stamping off.
build:
	$(GO) build -buildvcs=auto -o $(HELIOS) ./cmd/helios

# The example plugins, each in its own folder with the EXTENSION.md and
# skills/ the SDK reads beside the executable (bin/plugins/<name>/).
PLUGINS := bin/plugins

plugins:
	rm -rf $(PLUGINS)/release-notes
	mkdir -p $(PLUGINS)/release-notes
	$(GO) build -o $(PLUGINS)/release-notes/release-notes ./plugins/examples/release-notes
	cp -R plugins/examples/release-notes/EXTENSION.md plugins/examples/release-notes/skills $(PLUGINS)/release-notes/

# Regenerates plugins/internal/proto from plugins/proto/helios.proto (the
# generated code is committed): protoc from Debian's protobuf-compiler when
# it is missing, the Go code generators at pinned versions, installed into
# bin/tools.
PROTOC_GEN_GO      := google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
PROTOC_GEN_GO_GRPC := google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
TOOLS              := $(CURDIR)/bin/tools
SUDO               := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)

proto:
	@command -v protoc >/dev/null || { echo "protoc missing: installing Debian's protobuf-compiler"; \
		$(SUDO) apt-get update -q && $(SUDO) apt-get install -y -q protobuf-compiler; }
	GOBIN=$(TOOLS) $(GO) install $(PROTOC_GEN_GO)
	GOBIN=$(TOOLS) $(GO) install $(PROTOC_GEN_GO_GRPC)
	PATH="$(TOOLS):$$PATH" protoc -I plugins/proto \
		--go_out=plugins/internal/proto --go_opt=paths=source_relative \
		--go-grpc_out=plugins/internal/proto --go-grpc_opt=paths=source_relative \
		plugins/proto/helios.proto

# The Go modules go.mod requires, downloaded before the first build: said up
# front (about 1 GB with the build cache), with a line a module, instead of
# minutes of silence. Nothing when the module cache has them all.
modules:
	@reqs=$$(awk '/^require \(/{r=1;next} r&&/^\)/{r=0;next} r&&NF{print $$1} /^require [^(]/{print $$2}' go.mod); \
	missing=$$($(GO) list -m -f '{{if not .Dir}}{{.Path}}@{{.Version}}{{end}}' $$reqs) || exit 1; \
	n=$$(printf '%s\n' "$$missing" | grep -c .); \
	if [ "$$n" -gt 0 ]; then \
		echo "== first build: downloading $$n Go modules; with the build cache this takes about 1 GB"; \
		echo "   ($$($(GO) env GOMODCACHE) and $$($(GO) env GOCACHE)) and a few minutes =="; \
		i=0; for m in $$missing; do i=$$((i+1)); echo "  [$$i/$$n] $$m"; $(GO) mod download $$m || exit 1; done; \
		echo "== modules ready; compiling helios (the first compile takes a minute or two) =="; \
	fi

# The main job: the demo workspace's catalog (three sources, with the warnings
# that explain what was left out), what a skill load returns, hook order, and
# the release-notes plugin the demo config starts.
run: modules build plugins
	@echo "== helios skills list (examples/demo) =="
	@$(HELIOS) --config $(DEMO) skills list
	@echo
	@echo "== helios skills load changelog =="
	@$(HELIOS) --config $(DEMO) skills load changelog
	@echo
	@echo "== helios hooks describe =="
	@$(HELIOS) --config $(DEMO) hooks describe
	@echo
	@echo "== helios plugins check =="
	@$(HELIOS) --config $(DEMO) plugins check
	@echo
	@echo "== helios sandbox check (how the model's commands are confined) =="
	@-$(HELIOS) --config $(DEMO) sandbox check

# The test command (README and .ci/run): format, vet, the race-enabled unit
# suite and a short run of every fuzz target. The mutation suite is `make
# mutate`; .ci/run runs both.
test: fmt-check vet unit fuzz-short

unit:
	$(GO) test -race -count=1 ./...

# The live suite is vetted too, so it keeps compiling without a key.
vet:
	$(GO) vet ./...
	$(GO) vet -tags live ./test/live/...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Every Fuzz* target of the module, found by its `func Fuzz…` line in a
# _test.go file (so targets added anywhere are included, without building
# every test binary just to list them), each fuzzed for FUZZTIME; `make test` runs
# fuzz-short, FUZZSHORT each. Seeds live in each package's testdata/fuzz; a
# crasher the fuzzer finds is written there too: fix it and commit it as a
# regression seed.
# FUZZSHORT is a count of executions, not a duration: with a duration, Go
# 1.26's fuzz coordinator can report "context deadline exceeded" as a failure
# at the deadline on a loaded machine, with no crasher (golang/go#75804, fixed
# in Go 1.27). 10000 executions take 1-15 s per target here.
FUZZTIME  ?= 30s
FUZZSHORT ?= 10000x

fuzz:
	$(call run-fuzz,$(FUZZTIME))

fuzz-short:
	$(call run-fuzz,$(FUZZSHORT))

define run-fuzz
	@set -e; \
	targets=$$(grep -rE --include='*_test.go' --exclude-dir=testdata --exclude-dir=bin -o '^func Fuzz[A-Za-z0-9_]*' . \
		| sed -E 's#^(.*)/[^/]*_test\.go:func #\1 #' | sort -u); \
	if [ -z "$$targets" ]; then echo "fuzz: no Fuzz targets found"; exit 1; fi; \
	echo "$$targets" | while read -r pkg name; do \
		echo "== fuzz $$name ($$pkg) for $(1)"; \
		$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(1) "$$pkg" || exit 1; \
	done
endef

# make mutate ONLY=M3,M16 runs a few.
# Each mutant runs only the tests its entry expects to catch it (-focus):
# the whole catalogue then fits CI's time. MUTATE_FLAGS= (empty) runs each
# entry's packages whole, which also tells CAUGHT-ELSEWHERE.
# One mutant more than there are CPUs: much of a mutant's time is its tests
# waiting on the processes and servers they start, so one more keeps the
# cores busy (the runner's -j defaults to the number of CPUs).
MUTATE_JOBS  ?= $(shell expr $$(getconf _NPROCESSORS_ONLN) + 1)
MUTATE_FLAGS ?= -focus -timeout 8m -j $(MUTATE_JOBS)
mutate:
	$(GO) run ./test/mutation $(MUTATE_FLAGS) $(if $(ONLY),-only $(ONLY))

# The real-model suite, against either provider (each test skips, saying
# what to set, without its variables). Transcripts are kept under
# test/live/out.
#   OpenAI-compatible (the default): HELIOS_LIVE_BASE_URL, HELIOS_LIVE_API_KEY,
#     HELIOS_LIVE_MODEL, e.g. https://api.deepseek.com/v1, a key, deepseek-chat.
#   Anthropic's Messages API: HELIOS_LIVE_PROVIDER=anthropic,
#     HELIOS_LIVE_API_KEY, HELIOS_LIVE_MODEL (e.g. claude-sonnet-4-5);
#     HELIOS_LIVE_BASE_URL only for a gateway. TestLiveUsageAndPromptCache then
#     also checks that steps after the first read the prompt cache.
live:
	$(GO) test -tags live -count=1 -v -artifacts -outputdir $(CURDIR)/test/live/out ./test/live/...

# The PostgreSQL session-store tests against a throwaway cluster: initdb in
# a temp dir, pg_ctl on a free port, the tests, then the cluster is removed.
# (make test and make mutate run them too when HELIOS_TEST_POSTGRES_URL is set, as CI does.)
test-postgres:
	@dir=$$(mktemp -d); \
	trap 'test/postgres/cluster.sh stop "$$dir"; rm -rf "$$dir"' EXIT; \
	pgenv=$$(test/postgres/cluster.sh start "$$dir") && eval "$$pgenv" && \
	$(GO) test -race -count=1 ./store/postgres/... && \
	$(GO) test -race -count=1 -run 'Postgres|RealInputStore|ResumeAfterSIGKILL' ./test/unit ./cmd/helios

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./kernel/... ./provider/... ./store/... ./otelsetup/... ./sandbox/... ./workfs/... ./watch/... ./frontmatter/... ./runpin/... ./plugins/... ./cmd/... ./test/...

clean:
	rm -rf bin
