# Helios — common tasks. `make run` shows the demo; `make test` is the test command.
GO      ?= go
DEMO    := examples/demo/helios.config.json
HELIOS  := bin/helios

.PHONY: all build run test unit vet fmt-check mutate bench live clean

all: build

build:
	$(GO) build -o $(HELIOS) ./cmd/helios

# The main job: the demo workspace's catalog (three sources, with the warnings
# that explain what was left out), what a skill load returns, and hook order.
run: build
	@echo "== helios skills list (examples/demo) =="
	@$(HELIOS) --config $(DEMO) skills list
	@echo
	@echo "== helios skills load changelog =="
	@$(HELIOS) --config $(DEMO) skills load changelog
	@echo
	@echo "== helios hooks describe =="
	@$(HELIOS) --config $(DEMO) hooks describe

# The test command (README and .ci/run): format, vet, the race-enabled unit
# suite, then the mutation suite.
test: fmt-check vet unit mutate

unit:
	$(GO) test -race -count=1 ./...

# The live suite is vetted too, so it keeps compiling without a key.
vet:
	$(GO) vet ./...
	$(GO) vet -tags live ./test/live/...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './bin/*')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# make mutate ONLY=M3,M16 runs a few.
mutate:
	$(GO) run ./test/mutation $(if $(ONLY),-only $(ONLY))

# The real-model suite: needs HELIOS_LIVE_BASE_URL, HELIOS_LIVE_API_KEY and
# HELIOS_LIVE_MODEL (each test skips, saying so, without them). Transcripts
# are kept under test/live/out.
live:
	$(GO) test -tags live -count=1 -v -artifacts -outputdir $(CURDIR)/test/live/out ./test/live/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./kernel/... ./test/...

clean:
	rm -rf bin
