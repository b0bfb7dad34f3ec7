# memdex: the two everyday commands are `make demo` and `make test`.
# Logic lives in scripts/; this file only names the entry points.

SHELL := /usr/bin/env bash
PORT ?= 8080
export PATH := $(HOME)/.cargo/bin:$(PATH)

.PHONY: all setup pkg pkg-english demo serve test bench bench-quick relevance clean-pkg worker worker-key

all: pkg

## Install the toolchain the build and tests need (idempotent; seconds when done).
setup:
	scripts/setup

## Build the npm package into pkg/ (Rust -> wasm -> JS wrapper).
pkg: setup
	scripts/build-pkg

## For benches: a package whose every entry runs the English-only full wasm (pkg/ ships it as memdex-english_bg.wasm) into pkg-english/
pkg-english: setup
	MEMDEX_FEATURES=vectors,links,rerank,maintenance MEMDEX_LEXICAL=0 MEMDEX_ENGLISH=0 MEMDEX_PKG_DIR=pkg-english scripts/build-pkg

## Load sample memories, print ranked results, then serve www/ on :$(PORT).
demo: pkg
	node scripts/demo.mjs
	PORT=$(PORT) node scripts/serve.mjs

## Serve www/ (and pkg/) without rebuilding.
serve:
	PORT=$(PORT) node scripts/serve.mjs

## The edge memory service locally in workerd on :$(PORT) (default 8787), state in .worker-state/ (worker/README.md).
## PORT defaults to 8080 for `demo`; `worker` takes 8787 unless PORT is given.
worker:
	@test -f pkg/memdex_bg.wasm || scripts/build-pkg
	PORT=$(if $(filter command line environment,$(origin PORT)),$(PORT),8787) node worker/scripts/dev.mjs

## A new API key for the Worker and its MEMDEX_API_KEYS entry: make worker-key NAME=ci NS='team-a:*' ROLE=write
worker-key:
	@NAME='$(NAME)' NS='$(NS)' ROLE='$(ROLE)' node worker/scripts/key.mjs

## The whole suite, stage by stage; ends with one "N passed, N failed" line.
test: setup
	scripts/test-all

## Benchmarks are owned by bench/; delegate when its Makefile exists.
bench bench-quick relevance:
	@if [ -f bench/Makefile ]; then $(MAKE) -C bench $@; \
	else echo "make $@: bench/Makefile does not exist yet (bench/ is wired by the benchmarks work)"; fi

clean-pkg:
	rm -rf pkg pkg-english
