# p4dp — the two commands a user needs:
#   make run   set up, build, compile the bundled example and run it on a generated pcap through DPDK
#   make test  set up, build and run the whole test suite (what CI runs)
SHELL := /bin/bash
CARGO ?= cargo
P4DP := target/release/p4dp
OUT := build/example

.PHONY: all setup build run test test-rust test-runtime test-tsan test-asan test-ubsan test-corpus test-corpus-asan test-fuzz test-system test-robustness test-p4runtime bench clean

all: build

setup:
	@bash scripts/setup.sh

build: setup
	$(CARGO) build --release --workspace

run: build
	@mkdir -p $(OUT)
	python3 scripts/gen_pcap.py --count 1000 --out $(OUT)/in0.pcap
	$(P4DP) run examples/l2l3.p4 --table-entries examples/l2l3.entries \
	    --port 0=$(OUT)/in0.pcap:$(OUT)/out0.pcap --port 1=:$(OUT)/out1.pcap \
	    --port 2=:$(OUT)/out2.pcap --port 3=:$(OUT)/out3.pcap --port 4=:$(OUT)/out4.pcap

test: build test-runtime test-tsan test-asan test-ubsan test-rust test-corpus test-system test-robustness test-fuzz test-p4runtime

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

test-rust: build
	$(CARGO) test --release --workspace

test-corpus: build
	bash scripts/run_corpus.sh

# a quarter of the corpus through `p4dp stf --burst` with the programs and the runtime built with
# AddressSanitizer (docs/testing.md; ASAN_ALL=1 for all of it). Needs a p4dp whose program build
# honours P4DP_CFLAGS.
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
