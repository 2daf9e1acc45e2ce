# p4dp — the two commands a user needs:
#   make run   set up, build, compile the bundled example and run it on a generated pcap through DPDK
#   make test  set up, build and run the whole test suite (what CI runs)
SHELL := /bin/bash
CARGO ?= cargo
P4DP := target/dist/p4dp
OUT := build/example

.PHONY: all setup build run test test-rust test-runtime test-tsan test-asan test-ubsan test-corpus test-corpus-asan test-fuzz test-system test-robustness test-p4runtime bench clean

all: build

setup:
	@bash scripts/setup.sh

# the p4dp binary users and benchmarks run: the dist profile (Cargo.toml: release with
# whole-program LTO); the tests build their own, in the release profile
build: setup
	$(CARGO) build --profile dist -p p4dp

run: build
	@mkdir -p $(OUT)
	python3 scripts/gen_pcap.py --count 1000 --out $(OUT)/in0.pcap
	$(P4DP) run examples/l2l3.p4 --table-entries examples/l2l3.entries \
	    --port 0=$(OUT)/in0.pcap:$(OUT)/out0.pcap --port 1=:$(OUT)/out1.pcap \
	    --port 2=:$(OUT)/out2.pcap --port 3=:$(OUT)/out3.pcap --port 4=:$(OUT)/out4.pcap

# test-rust includes the corpus on the real runtime (crates/p4dp/tests/corpus.rs), so test-corpus is not
# listed again: it runs that one test binary alone
test: build test-runtime test-tsan test-asan test-ubsan test-rust test-corpus-asan test-system test-robustness test-fuzz test-p4runtime

test-runtime: setup
	$(MAKE) -C runtime test

# the runtime's multi-threaded tests under ThreadSanitizer (fails on any report; docs/dataplane-writes.md)
test-tsan: setup
	$(MAKE) -C runtime tsan

# the runtime's unit tests under AddressSanitizer and UndefinedBehaviorSanitizer (any report fails)
test-asan: setup
	$(MAKE) -C runtime asan

test-ubsan: setup
	$(MAKE) -C runtime ubsan

# every crate's tests: unit and snapshot tests (IR, generated C, rejected programs' diagnostics;
# P4DP_BLESS=1 rewrites them), the STF runner, the CLI, and the corpus on the real runtime
test-rust: build
	$(CARGO) test --release --workspace

# the corpus alone: every tests/programs STF through `p4dp stf` and `p4dp stf --burst`, the other
# programs through `p4dp build` (P4DP_CORPUS_FILTER=NAME for some)
test-corpus: build
	$(CARGO) test --release -p p4dp --test corpus

# the corpus through `p4dp stf --burst` with the programs and the runtime built with
# AddressSanitizer (docs/testing.md; ASAN_EVERY=N for every Nth program only).
test-corpus-asan: build
	bash scripts/run_corpus_asan.sh

test-fuzz: build
	bash scripts/fuzz.sh

test-system: build
	bash tests/system/iface.sh

# p4dp run/stf/build against hostile input and signals (tests/robustness/run.sh)
test-robustness: build
	bash tests/robustness/run.sh

# p4runtime-shell and finsy (venvs under build/, scripts/p4runtime_venvs.sh) drive `p4dp serve`
test-p4runtime: build
	bash tests/p4runtime/clients.sh

bench: build
	$(P4DP) bench --suite overhead --out build/bench-overhead.txt

clean:
	rm -rf build target
