# dvemc — common tasks. `make test` is the test command CI runs.
CARGO ?= cargo
BEEM_DIR ?= ../shared/beem
# verify-beem: largest instance (by BEEM's state count) to explore.
MAX_STATES ?= 20000000

.PHONY: all build run test verify-beem verify-jit verify-properties bench-spin bench-bbmc bench-random bench-caching bench-sweepline bench-dbdfs fmt lint clean

all: build

build:
	$(CARGO) build --release --workspace

# Explore the embedded example model.
run:
	$(CARGO) run --release -p harness --bin dvemc -- explore

test:
	$(CARGO) test --release --workspace

# Explore every complete BEEM instance with at most MAX_STATES states (BFS)
# and compare with instances.csv; writes results/beem-verify.csv.
verify-beem: build
	./target/release/dvemc verify-beem --beem $(BEEM_DIR) --max-states $(MAX_STATES) --out results/beem-verify.csv

# The JIT against the interpreter on every BEEM file (instances and property
# products): successor lists and fingerprints of every reachable state,
# whole state spaces of up to JIT_MAX_STATES states (larger ones on their
# first JIT_MAX_STATES); writes results/jit-verify.csv.
JIT_MAX_STATES ?= 200000
verify-jit: build
	./target/release/dvemc verify-jit --beem $(BEEM_DIR) --max-states $(JIT_MAX_STATES) --out results/jit-verify.csv

# Check every BEEM property with a recorded answer on instances of at most
# PROP_MAX_STATES states; writes results/properties-verify.csv.
PROP_MAX_STATES ?= 2000000
verify-properties: build
	./target/release/dvemc verify-properties --beem $(BEEM_DIR) --max-states $(PROP_MAX_STATES) --out results/properties-verify.csv

# SPIN's verifier against dvemc (DFS and BFS) on the BEEM instances whose
# Promela translation has the same state space; needs `apt-get install spin`.
bench-spin: build
	python3 scripts/bench_spin.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc --out results/spin-compare.csv

# Breadth-Bounded Model Checking vs BMC on BEEM reachability goals
# (witness probability and slice size by breadth bound, graceful
# degradation): the matrix beem/matrices/meulen-bbmc.toml, then its tables
# and plots; writes results/bbmc/ (runs.csv, README.md, CSV, SVG). About a
# minute; an interrupted run resumes (delete results/bbmc/runs.csv to start
# afresh).
bench-bbmc:
	$(CARGO) build --release -p harness
	./target/release/dvemc bench run beem/matrices/meulen-bbmc.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/bbmc/runs.csv
	./target/release/dvemc bench report results/bbmc/runs.csv --paper meulen-bbmc --beem $(BEEM_DIR) --out results/bbmc

# Memory-bounded randomized search (URS, SDRS, RURS, RSDRS, random walk)
# vs memory-bounded BFS: mean cover times and coverage over time: the matrix
# beem/matrices/abed-random.toml, then its tables and plots; writes
# results/random/ (runs.csv, README.md, CSV, SVG). About 4 minutes; an
# interrupted run resumes (delete results/random/runs.csv to start afresh).
bench-random:
	$(CARGO) build --release -p harness
	./target/release/dvemc bench run beem/matrices/abed-random.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/random/runs.csv
	./target/release/dvemc bench report results/random/runs.csv --paper abed-random --out results/random

# The state-caching paper (Evangelista & Kristensen): Table 2 (state caching
# with DFS, BFS, BBFS(w), Alt(b,d), with/without chain reduction; the matrix
# beem/matrices/evangelista-table2.toml, a cache-size search per cell, 2-3
# hours) and Table 3 (sweep-line with and without caching;
# evangelista-table3.toml, the projection and greedy measures, about an
# hour); then their tables beside the paper's: results/caching/table2.{csv,md,svg},
# table3.{csv,md} and table3-greedy.{csv,md}. An interrupted run resumes
# (delete results/runs/caching/table*-runs.csv to start afresh).
bench-caching:
	$(CARGO) build --release -p harness
	./target/release/dvemc bench run beem/matrices/evangelista-table2.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/runs/caching/table2-runs.csv
	./target/release/dvemc bench report results/runs/caching/table2-runs.csv --paper evangelista-table2 --out results/caching

bench-sweepline:
	$(CARGO) build --release -p harness
	./target/release/dvemc bench run beem/matrices/evangelista-table3.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/runs/caching/table3-runs.csv
	./target/release/dvemc bench report results/runs/caching/table3-runs.csv --paper evangelista-table3 --out results/caching

# Iterative depth-bounded DFS (Udupa, Desai, Rajamani): revisits with and
# without thresholds (their Table 2), getState time with traces against the
# frontier tree (Tables 3, 4) and a fixed time budget, unoptimised against
# optimised (Table 1), on the deepest BEEM instances: the matrix
# beem/matrices/udupa-dbdfs.toml, one cell at a time (the tables compare
# times), then its tables; writes results/dbdfs/ (runs.csv, tables.md,
# table*.csv). About 10 minutes; an interrupted run resumes (delete
# results/dbdfs/runs.csv to start afresh).
bench-dbdfs:
	$(CARGO) build --release -p harness
	./target/release/dvemc bench run beem/matrices/udupa-dbdfs.toml --resume --beem $(BEEM_DIR) --out results/dbdfs/runs.csv
	./target/release/dvemc bench report results/dbdfs/runs.csv --paper udupa-dbdfs --out results/dbdfs

# Benchmark matrices (`dvemc bench`; beem/matrices/*.toml, results/SCHEMA.md).
# `make bench`: the quick matrix (about a minute) into results/runs/BENCH_RUN/
# (CSV and report; git-ignored). BENCH_RUN defaults to the UTC date and time;
# naming an earlier one resumes it. BENCH_JOBS cells run at once.
# `make bench-full`: every reproduction matrix (all but quick and regressions;
# hours: see each file's header), one CSV and report folder per matrix.
# `make check-regressions`: the regression matrix (seconds) against
# results/baseline/regressions.csv; fails when a deterministic counter differs
# or a jit/interp speed ratio (or, where SPIN is installed, the dvemc/SPIN
# ratio) falls more than 30 % below the baseline's.
ifndef BENCH_RUN
BENCH_RUN := $(shell date -u +%Y-%m-%dT%H%M%SZ)
endif
BENCH_JOBS ?= 2
BENCH_DIR = results/runs/$(BENCH_RUN)
REPRO_MATRICES ?= $(filter-out beem/matrices/quick.toml beem/matrices/regressions.toml,$(sort $(wildcard beem/matrices/*.toml)))
.PHONY: bench bench-full check-regressions

bench:
	$(CARGO) build --release -p harness
	./target/release/dvemc bench run beem/matrices/quick.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out $(BENCH_DIR)/quick.csv
	./target/release/dvemc bench report $(BENCH_DIR)/quick.csv --out $(BENCH_DIR)

bench-full:
	$(CARGO) build --release -p harness
	@status=0; for m in $(REPRO_MATRICES); do \
	  n=$$(basename $$m .toml); \
	  ./target/release/dvemc bench run $$m --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out $(BENCH_DIR)/$$n.csv || status=1; \
	  ./target/release/dvemc bench report $(BENCH_DIR)/$$n.csv --out $(BENCH_DIR)/$$n || status=1; \
	done; exit $$status

# The dvemc/SPIN speed ratio (where SPIN is installed) on these instances;
# rewrite its baseline with
#   python3 scripts/bench_spin.py --out /tmp/s.csv --write-baseline results/baseline/spin-ratio.csv $(SPIN_REGRESSION_INSTANCES)
SPIN_REGRESSION_INSTANCES ?= at.3 fischer.4 hanoi.2
check-regressions:
	$(CARGO) build --release -p harness
	@mkdir -p target/bench && rm -f target/bench/regressions.csv
	./target/release/dvemc bench run beem/matrices/regressions.toml --quiet --beem $(BEEM_DIR) --out target/bench/regressions.csv
	./target/release/dvemc bench compare target/bench/regressions.csv results/baseline/regressions.csv
	@if command -v spin >/dev/null && command -v gcc >/dev/null; then \
	  python3 scripts/bench_spin.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc --out target/bench/spin-regressions.csv \
	    --baseline results/baseline/spin-ratio.csv $(SPIN_REGRESSION_INSTANCES); \
	else echo "spin or gcc not installed: dvemc/SPIN speed ratio not checked"; fi

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

clean:
	$(CARGO) clean
