# proofloop: the two set-up commands are `make demo` and `make test`.
SHELL := /bin/bash
export PATH := /usr/local/go/bin:$(HOME)/go/bin:$(PATH)
# -buildvcs=auto: `proofloop version` names the commit even where GOFLAGS says
# -buildvcs=false. A static binary starts about a millisecond sooner: no dynamic loader
# (pgx pulls in net, which would link libc).
export CGO_ENABLED := 0
GO ?= go
BIN := bin/proofloop
# bin/proofloop is the lean build (-tags lean): every command but report, serve and
# mcp, which it hands to bin/proofloop-full beside it, so that a skill call does not
# initialise their packages (cmd/proofloop/lean.go).
FULL := bin/proofloop-full
TEST_PKGS ?= ./...
TEST_TIMEOUT ?= 40m

.PHONY: FORCE build install test demo demo-pg bench soak deps clean chromium postgresql claude-code agent-clis texlive coq

# go build always runs: its own cache makes a build with nothing changed take about a
# second, and it sees what make's file list cannot (the embedded examples, schemas and
# templates).
$(BIN): FORCE
	$(GO) build -buildvcs=auto -tags lean -o $(BIN) ./cmd/proofloop
	$(GO) build -buildvcs=auto -o $(FULL) ./cmd/proofloop

build: deps $(BIN)

FORCE:

# proofloop (lean) and proofloop-full into $(go env GOBIN), else $(go env GOPATH)/bin.
install: deps
	@dir=$$($(GO) env GOBIN); [ -n "$$dir" ] || dir=$$($(GO) env GOPATH)/bin; \
	$(GO) build -buildvcs=auto -tags lean -o $$dir/proofloop ./cmd/proofloop && \
	$(GO) build -buildvcs=auto -o $$dir/proofloop-full ./cmd/proofloop && \
	echo "Installed $$dir/proofloop and $$dir/proofloop-full. If \`command -v proofloop\` finds nothing, add $$dir to your PATH."

deps:
	$(GO) mod download

# The browser tests of `proofloop report` and `serve` drive headless
# Chromium. When no Chromium binary is found, install it with apt-get (as
# root, or through sudo -n); if that fails, say so loudly and go on: those
# tests then skip, loudly.
CHROMIUM_NAMES := chromium chromium-browser chromium-headless-shell headless_shell google-chrome
chromium:
	@for n in $(CHROMIUM_NAMES); do command -v $$n >/dev/null && exit 0; done; \
	sudo=; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo -n"; fi; \
	echo "No Chromium found: installing it with apt-get for the report's browser tests."; \
	if ! { $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }; then \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	  echo '!!! COULD NOT INSTALL CHROMIUM (apt-get install -y chromium failed).'; \
	  echo '!!! The browser tests of proofloop report and serve will be SKIPPED.'; \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	fi

# `proofloop export --format tex` is tested by compiling the example's proof
# with pdflatex and rendering page 1 with pdftoppm: install them with apt-get
# when missing; if that fails, say so loudly (the test then skips the compile).
texlive:
	@command -v pdflatex >/dev/null && command -v pdftoppm >/dev/null && exit 0; \
	sudo=; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo -n"; fi; \
	echo "No pdflatex or pdftoppm found: installing texlive and poppler-utils with apt-get for the export tests."; \
	if ! { $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y texlive-latex-base texlive-latex-recommended poppler-utils; }; then \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	  echo '!!! COULD NOT INSTALL TEXLIVE (apt-get install -y texlive-latex-base failed).'; \
	  echo '!!! The compile of the exported LaTeX proof will be SKIPPED.'; \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	fi

# The formal track's kernel checks (check-formal, the example's formal
# proof, the e2e tests of what the kernel accepts and refuses) run Coq's
# coqc: install Debian's coq with apt-get when it is missing; if that fails,
# say so loudly and go on: those tests then skip, loudly.
coq:
	@command -v coqc >/dev/null && exit 0; \
	sudo=; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo -n"; fi; \
	echo "No coqc found: installing coq with apt-get for the formal track's kernel checks."; \
	if ! { $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y coq; }; then \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	  echo '!!! COULD NOT INSTALL COQ (apt-get install -y coq failed).'; \
	  echo '!!! The kernel checks of the formal track will be SKIPPED.'; \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	fi

# The PostgreSQL store's tests start a throwaway cluster of their own
# (internal/pgtest: initdb and pg_ctl in a temp directory, as nobody when
# run as root, on a free port, removed at the end). When no initdb is
# found, install the server with apt-get; if that fails, say so loudly and
# go on: those tests then skip, loudly.
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && exit 0; \
	command -v pg_config >/dev/null && [ -x "$$(pg_config --bindir)/initdb" ] && exit 0; \
	sudo=; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo -n"; fi; \
	echo "No PostgreSQL server found: installing it with apt-get for the PostgreSQL store's tests."; \
	if ! { $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; }; then \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	  echo '!!! COULD NOT INSTALL POSTGRESQL (apt-get install -y postgresql failed).'; \
	  echo '!!! The tests of the PostgreSQL store will be SKIPPED.'; \
	  echo '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'; \
	fi

# The tests of the real agent harnesses drive the pinned CLIs (Claude Code,
# Codex and Gemini: internal/claudecode.Pins) from caches outside the
# repository ($XDG_CACHE_HOME/proofloop/NAME/VERSION). When one is missing,
# install it with npm; if that fails, say so loudly and go on: its tests
# then skip, loudly. claude-code is the old name of the target.
agent-clis:
	@$(GO) run ./internal/claudecode/install

claude-code: agent-clis

# Unit tests, testscript end-to-end tests, the fuzz seed corpus, the
# multi-process lost-update test, the kill -9 crash test and the report's
# browser tests; the stories and the e2e tests that matter for correctness
# run on both stores (the PostgreSQL ones on a throwaway cluster).
# vet sees both builds: the full one and bin/proofloop's lean one.
# gotestsum prints go test's own lines and a summary, then the ten slowest tests.
test: build chromium postgresql agent-clis texlive coq
	$(GO) vet ./...
	$(GO) vet -tags lean ./cmd/proofloop
	@mkdir -p bin
	@$(GO) tool gotestsum --format standard-quiet --jsonfile bin/test.json -- -count=1 -timeout $(TEST_TIMEOUT) $(TEST_PKGS) 2>&1 | tee bin/test.log; \
	rc=$${PIPESTATUS[0]}; \
	echo "The ten slowest tests (bin/test.json has them all):"; \
	$(GO) tool gotestsum tool slowest --jsonfile bin/test.json --threshold 0 --num 10; \
	grep -E '^DONE ' bin/test.log | tail -1; \
	exit $$rc

# The example project, fresh from the binary in the scratch root
# .demo/contents, driven to solved by the scripted agents; it never touches
# a tracked file.
demo: build
	./scripts/demo.sh

# The same demo on the PostgreSQL store: a throwaway cluster is started
# (PostgreSQL installed with apt-get when missing), the demo runs with
# $$PROOFLOOP_STORE naming its database, and the cluster is removed.
demo-pg: build postgresql
	$(GO) run ./internal/pgtest/pgrun -- ./scripts/demo.sh

# Benchmarks through the real binary. Every package's benchmarks append their
# figures to one rows file (bench/table); the last step prints them as one
# table, each figure a ratio to its reference in the same run, with make
# test's time from its last run here, and writes the README's summary of it.
# docs/bench.md says what each means.
BENCH_ROWS := bin/bench-rows.jsonl
bench: export PROOFLOOP_BENCH_ROWS = $(abspath $(BENCH_ROWS))
bench: build
	@mkdir -p bin && rm -f $(BENCH_ROWS)
	$(GO) test -run '^$$' -bench . -benchtime 10x -count 1 -timeout 60m ./bench/ ./schemas/
	$(GO) test -run '^$$' -bench MCP -benchtime 200x -count 1 -timeout 30m ./cmd/proofloop/
	$(GO) test -run '^$$' -bench 'PatchShare' -benchtime 100x -count 1 -timeout 10m ./store/
	$(GO) test -run '^$$' -bench 'PatchKeptRevisions' -benchtime 100x -count 1 -timeout 10m ./skills/
	$(GO) test -run '^$$' -bench 'TurnContext' -benchtime 1x -count 1 -timeout 20m ./bench/turns/
	@$(GO) run ./bench/tabulate -test-log bin/test.log -readme README.md $(BENCH_ROWS)

# Longer lost-update and crash runs than make test does.
soak: build
	PROOFLOOP_SOAK=1 $(GO) test -count=1 -timeout 85m -run 'LostUpdate|Crash|Mixed' -v ./store/ ./e2e/

clean:
	rm -rf bin .demo
