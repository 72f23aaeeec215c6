# proofloop: the two set-up commands are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(HOME)/go/bin:$(PATH)
# -buildvcs=auto: `proofloop version` names the commit even where GOFLAGS says
# -buildvcs=false. A static binary starts about a millisecond sooner: no dynamic loader
# (gojsonschema pulls in net, which would link libc).
export CGO_ENABLED := 0
GO ?= go
BIN := bin/proofloop
GOFILES := $(shell find . -name '*.go' -not -path './.demo/*')

.PHONY: build install test demo bench soak deps clean

$(BIN): go.mod go.sum $(GOFILES)
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/proofloop

build: deps $(BIN)

# go install: proofloop into $(go env GOBIN), else $(go env GOPATH)/bin.
install: deps
	$(GO) install -buildvcs=auto ./cmd/proofloop
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
	echo "Installed $$dir/proofloop. If \`command -v proofloop\` finds nothing, add $$dir to your PATH."

deps:
	$(GO) mod download

# Unit tests, testscript end-to-end tests, the fuzz seed corpus, the
# multi-process lost-update test and the kill -9 crash test.
test: build
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m ./...

# The example project, fresh from the binary in the scratch root
# .demo/contents, driven to solved by the scripted agents; it never touches
# a tracked file.
demo: build
	./scripts/demo.sh

# Benchmarks through the real binary; figures go in README.md.
bench: build
	$(GO) test -run '^$$' -bench . -benchtime 10x -count 1 -timeout 60m ./bench/ ./schemas/
	$(GO) test -run '^$$' -bench MCP -benchtime 200x -count 1 -timeout 30m ./cmd/proofloop/
	$(GO) test -run '^$$' -bench 'PatchShare' -benchtime 20x -count 5 -timeout 10m ./store/
	$(GO) test -run '^$$' -bench 'PatchKeptRevisions' -benchtime 60x -count 3 -timeout 10m ./skills/

# Longer lost-update and crash runs than make test does.
soak: build
	PROOFLOOP_SOAK=1 $(GO) test -count=1 -timeout 85m -run 'LostUpdate|Crash|Mixed' -v ./store/ ./e2e/

clean:
	rm -rf bin .demo
