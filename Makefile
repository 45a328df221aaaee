# dvemc — common tasks. `make test` is the test command CI runs.
CARGO ?= cargo
# FEATURES=dvemc/mpi builds (and tests) the distributed search on MPI
# (needs OpenMPI or MPICH and libclang: see docs/src/distributed.md); every
# build and test below then takes it, so the binary is built once.
FEATURES ?=
FEATURE_ARGS = $(if $(FEATURES),--features $(FEATURES))
BEEM_DIR ?= ../shared/beem
# verify-beem: largest instance (by BEEM's state count) to explore.
MAX_STATES ?= 20000000
# verify-beem: STORE=tree explores with the tree-compressed store (into
# results/beem-verify-tree.csv).

.PHONY: all build run test fuzz docs man verify-beem verify-jit verify-properties verify-ltl verify-distributed verify-por bench-por bench-spin bench-ltl-spin bench-bbmc bench-random bench-caching bench-caching-family bench-sweepline bench-dbdfs bench-parallel census save-long-runs fmt lint clean

all: build

build:
	$(CARGO) build --release --workspace $(FEATURE_ARGS)

# Explore the embedded example model.
run:
	$(CARGO) run --release -p dvemc --bin dvemc $(FEATURE_ARGS) -- explore

test:
	$(CARGO) test --release --workspace $(FEATURE_ARGS)
	@$(if $(FEATURES),,echo "make test: the distributed search ran on threads only; FEATURES=dvemc/mpi make test also runs it under mpirun")

# Every differential oracle of harness/tests/generated.rs on freshly
# generated models (dve-gen) for SECONDS seconds, from seed SEED (default:
# from the clock); prints per oracle the models tried and the failures
# (each with its seed and the model shrunk), and the models' coverage.
SECONDS ?= 60
fuzz:
	DVEMC_FUZZ_SECONDS=$(SECONDS) $(if $(SEED),DVEMC_FUZZ_SEED=$(SEED)) $(CARGO) test --release -p dvemc --test generated $(FEATURE_ARGS) fuzz -- --ignored --nocapture

# The user guide (docs/src) as a book in docs/book, with mdBook.
docs:
	@if command -v mdbook >/dev/null 2>&1; then mdbook build docs; \
	else echo "mdbook is not installed: cargo install mdbook (then make docs)" >&2; exit 1; fi

# The man pages (man/: dvemc.1 and one page per command, dvemc-explore.1,
# dvemc-bench-run.1, ...) and the shell completions (completions/: bash,
# zsh, fish), generated from the command line's definitions. Both are
# committed; harness/tests/man.rs fails when they are not current.
man:
	$(CARGO) build --release -p dvemc --bin dvemc $(FEATURE_ARGS)
	rm -rf man && ./target/release/dvemc man man
	mkdir -p completions
	./target/release/dvemc completions bash > completions/dvemc.bash
	./target/release/dvemc completions zsh > completions/_dvemc
	./target/release/dvemc completions fish > completions/dvemc.fish

# Explore every complete BEEM instance with at most MAX_STATES states (BFS)
# and compare with instances.csv; writes results/beem-verify.csv.
verify-beem: build
	./target/release/dvemc verify-beem --beem $(BEEM_DIR) --max-states $(MAX_STATES) $(if $(STORE),--store $(STORE)) --out $(if $(STORE),results/beem-verify-$(STORE).csv,results/beem-verify.csv)

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

# Every BEEM LTL property with a recorded answer on instances of at most
# LTL_MAX_STATES states: the formula as properties.csv writes it (`--ltl`)
# gives BEEM's answer and the verdict of BEEM's property process, with one
# thread (nested DFS) and with two (CNDFS).
LTL_MAX_STATES ?= 1000000
verify-ltl:
	DVEMC_LTL_MAX_STATES=$(LTL_MAX_STATES) $(CARGO) test --release -p dvemc --test ltl ltl_formulas_give_beems_answers $(FEATURE_ARGS) -- --nocapture

# The distributed search under mpirun (2 and 3 ranks, exact and tree
# stores) on every complete instance of at most DISTRIBUTED_MAX_STATES
# states, against the sequential search; needs MPI (FEATURES=dvemc/mpi).
DISTRIBUTED_MAX_STATES ?= 1000000
verify-distributed:
	DVEMC_DISTRIBUTED_MAX_STATES=$(DISTRIBUTED_MAX_STATES) $(CARGO) test --release -p dvemc --features mpi --test distributed every_family_under_mpirun -- --nocapture

# Partial-order reduction against the full search on every complete BEEM
# instance up to POR_MAX_STATES states: BFS and DFS, one and two threads,
# the same deadlock states and run-time errors, BEEM's answer to every
# reachability property, counterexamples that replay.
POR_MAX_STATES ?= 1000000
verify-por:
	DVEMC_POR_MAX_STATES=$(POR_MAX_STATES) $(CARGO) test --release -p dvemc --test por beem_ $(FEATURE_ARGS) -- --nocapture

# Partial-order reduction over the census: every instance it completed up
# to POR_TABLE_MAX_STATES states with and without --por (one thread, BFS,
# deadlocks only), and SPIN's verifier with and without its reduction on
# the Promela translations up to SPIN_MAX_STATES; writes results/por/runs.csv
# and results/por/table.md. Hours for the default range (--resume goes on).
# The matrix beem/matrices/por.toml runs the same as `dvemc bench` cells.
# LTSMIN_DIR=DIR (LTSmin built by ../shared/anchors/ltsmin/BUILD.md) adds
# LTSmin's full and reduced counts and times beside dvemc's, and where
# dvemc keeps more states, whether run-time errors account for it.
POR_TABLE_MAX_STATES ?= 10000000
SPIN_MAX_STATES ?= 1000000
LTSMIN_DIR ?=
bench-por: build
	$(if $(LTSMIN_DIR),$(CARGO) build --release --example por_without_errors $(FEATURE_ARGS))
	python3 scripts/bench_por.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc --max-states $(POR_TABLE_MAX_STATES) --spin-max-states $(SPIN_MAX_STATES) $(if $(LTSMIN_DIR),--ltsmin $(LTSMIN_DIR) --attribute ./target/release/examples/por_without_errors) --out results/por/runs.csv --table results/por/table.md

# SPIN's verifier against dvemc (DFS and BFS) on the BEEM instances whose
# Promela translation has the same state space; needs `apt-get install spin`.
bench-spin: build
	python3 scripts/bench_spin.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc --out results/spin-compare.csv

# SPIN's `pan -a` (never claim of `spin -f`) beside `explore --ltl` (nested
# DFS, one thread) on every BEEM LTL property with an answer whose atoms map
# to the Promela translation (remote references P@label, P:v), instances up
# to LTL_MAX_STATES states: verdicts, states, states per second; writes
# results/ltl/spin-pan.csv and spin-pan.md (scripts/ltl_spin.py; 20 to 30
# minutes on 2 cores, each pan search within 300 s). Fails when verdicts
# differ for no known cause or fewer than five agree. Needs `apt-get
# install spin gcc`.
bench-ltl-spin: build
	python3 scripts/ltl_spin.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc --max-states $(LTL_MAX_STATES) --min-agree 5

# Breadth-Bounded Model Checking vs BMC on BEEM reachability goals
# (witness probability and slice size by breadth bound, graceful
# degradation): the matrix beem/matrices/meulen-bbmc.toml, then its tables
# and plots; writes results/bbmc/ (runs.csv, README.md, CSV, SVG). About a
# minute; an interrupted run resumes (delete results/bbmc/runs.csv to start
# afresh).
bench-bbmc:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	./target/release/dvemc bench run beem/matrices/meulen-bbmc.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/bbmc/runs.csv
	./target/release/dvemc bench report results/bbmc/runs.csv --paper meulen-bbmc --beem $(BEEM_DIR) --out results/bbmc

# Memory-bounded randomized search (URS, SDRS, RURS, RSDRS, random walk)
# vs memory-bounded BFS: mean cover times and coverage over time: the matrix
# beem/matrices/abed-random.toml, then its tables and plots; writes
# results/random/ (runs.csv, README.md, CSV, SVG). About 4 minutes; an
# interrupted run resumes (delete results/random/runs.csv to start afresh).
bench-random:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	./target/release/dvemc bench run beem/matrices/abed-random.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/random/runs.csv
	./target/release/dvemc bench report results/random/runs.csv --paper abed-random --out results/random

# The state-caching paper (Evangelista & Kristensen): Table 2 (state caching
# with DFS, BFS, BBFS(w), Alt(b,d), with/without chain reduction; the matrix
# beem/matrices/evangelista-table2.toml, a cache-size search per cell,
# 20,377 runs, 8 CPU-hours: about 4 hours on 2 cores) and Table 3 (sweep-line with and without caching;
# evangelista-table3.toml, the projection and greedy measures, about an
# hour); then their tables beside the paper's: results/caching/table2.{csv,md,-S.svg,-V.svg},
# table3.{csv,md} and table3-greedy.{csv,md}. An interrupted run resumes
# (delete results/runs/caching/table*-runs.csv to start afresh).
bench-caching:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	./target/release/dvemc bench run beem/matrices/evangelista-table2.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out results/runs/caching/table2-runs.csv
	./target/release/dvemc bench report results/runs/caching/table2-runs.csv --paper evangelista-table2 --out results/caching

# Table 2 with our family of 60 replacement strategies on the 40 cells
# whose S differs from the paper's by more than 5 points
# (beem/matrices/evangelista-table2-family.toml; many hours of one core),
# then its table: results/caching/family/. Long runs work on a run file in
# results/runs/ (not in the repository) and keep a compressed copy beside
# their results, in parts of 6,000 lines so that no file passes 2 MiB
# (results/caching/family/table2-family-runs.NN.csv.gz,
# results/census/census-runs.NN.csv.gz): a run starts from that copy when
# its run file is missing (a fresh checkout), and `make save-long-runs`
# (run by these targets when they end, by hand after an interruption)
# renews it. Runs the runner killed before they used half their time, or
# that crashed, run again (--retry-failed).
FAMILY_RUNS := results/runs/caching/table2-family-runs.csv
FAMILY_SAVED := results/caching/family/table2-family-runs
CENSUS_RUNS := results/runs/census-runs.csv
CENSUS_SAVED := results/census/census-runs

# Restores run file $(1) from its compressed parts $(2).NN.csv.gz if it is
# missing (gzip streams concatenate).
restore = mkdir -p $(dir $(1)); if [ ! -f $(1) ] && ls $(2).*.csv.gz >/dev/null 2>&1; then cat $(2).*.csv.gz | gunzip -c > $(1); fi
# Renews the compressed parts $(2).NN.csv.gz of run file $(1) if it exists.
save = if [ -f $(1) ]; then rm -f $(2).*.csv.gz && split -l 6000 -d -a 2 --additional-suffix=.csv $(1) $(2). && gzip -9 $(2).*.csv; fi

bench-caching-family:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	$(call restore,$(FAMILY_RUNS),$(FAMILY_SAVED))
	./target/release/dvemc bench run beem/matrices/evangelista-table2-family.toml --jobs $(BENCH_JOBS) --resume --retry-failed --beem $(BEEM_DIR) --out $(FAMILY_RUNS)
	$(MAKE) save-long-runs
	./target/release/dvemc bench report $(FAMILY_RUNS) --paper evangelista-table2 --out results/caching/family

# The BEEM census (issue 14): every instance of dve/ breadth-first with the
# tree store and its roots in a compact set (ctree), to its end, to 20 GiB
# or to an hour (beem/matrices/census.toml; many hours of one core, the
# small instances two at a time); its run file as the family run's above,
# the table and report in results/census/.
census:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	$(call restore,$(CENSUS_RUNS),$(CENSUS_SAVED))
	./target/release/dvemc bench run beem/matrices/census.toml --jobs $(BENCH_JOBS) --resume --retry-failed --beem $(BEEM_DIR) --out $(CENSUS_RUNS)
	$(MAKE) save-long-runs
	./target/release/dvemc bench report $(CENSUS_RUNS) --paper beem-census --out results/census

# Renews the compressed copies of the long runs' run files that exist.
save-long-runs:
	$(call save,$(FAMILY_RUNS),$(FAMILY_SAVED))
	$(call save,$(CENSUS_RUNS),$(CENSUS_SAVED))

bench-sweepline:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
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
# The parallel searches' speed-up (BFS, DFS, BFS in the tree store; 1, 2, 4, 8 threads) on the seven bench-spin
# instances, --jobs = this machine's cores (beem/matrices/parallel-speedup.toml);
# writes results/parallel/ (runs.csv, report). A few minutes on 2 cores.
bench-parallel:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	./target/release/dvemc bench run beem/matrices/parallel-speedup.toml --jobs $$(nproc) --resume --beem $(BEEM_DIR) --out results/runs/parallel/runs.csv
	./target/release/dvemc bench report results/runs/parallel/runs.csv --out results/parallel

bench-dbdfs:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	./target/release/dvemc bench run beem/matrices/udupa-dbdfs.toml --resume --beem $(BEEM_DIR) --out results/dbdfs/runs.csv
	./target/release/dvemc bench report results/dbdfs/runs.csv --paper udupa-dbdfs --out results/dbdfs

# Benchmark matrices (`dvemc bench`; beem/matrices/*.toml, results/SCHEMA.md).
# `make bench`: a reproduction run, about 6 minutes on 2 cores: the quick
# strategy matrix and a slice of every paper's experiment (BENCH_SLICES:
# matrix:instances, a few instances each that show the paper's headline
# effect), into results/runs/BENCH_RUN/ (git-ignored): one CSV per matrix,
# report.md and report.html (every paper's tables beside its figures), then
# the report checked in headless Chromium where it is installed.
# BENCH_RUN defaults to the UTC date and time; naming an earlier one resumes
# it. BENCH_JOBS cells run at once.
# `make bench-full`: every reproduction matrix whole (hours: see each file's
# header), one CSV and report folder per matrix.
# `make check-report`: a smaller slice of every paper into
# results/runs/check-report/, its report.html opened in headless Chromium
# (apt-get install chromium): a screenshot, and a check that every chart has
# points for each legend entry and every table rows, that memory (bytes per
# state, store bytes) is shown, and that no chart text is cut
# (scripts/check_report.py).
# `make check-regressions`: the regression matrix (seconds) against
# results/baseline/regressions.csv; fails when a deterministic counter differs
# or a jit/interp speed ratio (or, where SPIN is installed, the dvemc/SPIN
# ratio) falls more than 30 % below the baseline's; where SPIN is installed,
# also scripts/ltl_spin.py on peterson.1's three LTL properties (pan -a and
# explore --ltl must give BEEM's answers; a few seconds).
ifndef BENCH_RUN
BENCH_RUN := $(shell date -u +%Y-%m-%dT%H%M%SZ)
endif
BENCH_JOBS ?= 2
BENCH_DIR = results/runs/$(BENCH_RUN)
REPRO_MATRICES ?= $(filter-out beem/matrices/quick.toml beem/matrices/regressions.toml,$(sort $(wildcard beem/matrices/*.toml)))
# Caching (Table 2): small instances where BFS needs a larger cache than the
# other orders; sweep-line (Table 3): both derivations on two instances;
# dbdfs: the ten instances of Tables 2-4 and one deep instance of Table 1;
# BBMC: the paper's instances but the three slowest; random search: two of
# the four instances.
BENCH_SLICES ?= \
  evangelista-table2:gear.2,bopdp.2,iprotocol.2 \
  evangelista-table3:iprotocol.1,bopdp.2 \
  udupa-dbdfs:plc.2,plc.1,gear.2,hanoi.1,leader_election.2,sorter.1,brp2.1,brp2.3,driving_phils.1,brp2.2,plc.3 \
  meulen-bbmc:iprotocol.2,protocols.2,needham.2,reader_writer.1,cambridge.2,bakery.2,krebs.2,lamport.2,szymanski.2,rushhour.1,krebs.3,frogs.1,production_cell.4,gear.1,production_cell.2,sokoban.1,hanoi.1,brp2.2,lifts.2 \
  abed-random:bridge.1,reader_writer.2
CHECK_SLICES ?= \
  evangelista-table2:gear.2 \
  evangelista-table3:iprotocol.1 \
  udupa-dbdfs:gear.2,leader_election.2,driving_phils.1 \
  meulen-bbmc:needham.2,cambridge.2,bakery.2,frogs.1 \
  abed-random:bridge.1
.PHONY: bench bench-full check-report check-regressions

# $(call run_slices,SLICES,DIR): the quick matrix and each slice into DIR,
# then one report of them all.
define run_slices
	./target/release/dvemc bench run beem/matrices/quick.toml --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out $(2)/quick.csv
	@set -e; for s in $(1); do \
	  m=$${s%%:*}; i=$${s#*:}; \
	  echo "./target/release/dvemc bench run beem/matrices/$$m.toml --instances $$i ..."; \
	  ./target/release/dvemc bench run beem/matrices/$$m.toml --instances $$i --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out $(2)/$$m.csv; \
	done
	./target/release/dvemc bench report $(2)/*.csv --html --beem $(BEEM_DIR) --out $(2)
endef

bench:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	$(call run_slices,$(BENCH_SLICES),$(BENCH_DIR))
	@if command -v chromium >/dev/null 2>&1; then python3 scripts/check_report.py $(BENCH_DIR)/report.html; \
	else echo "note: Chromium is not installed, so $(BENCH_DIR)/report.html was not checked in a browser (apt-get install chromium; make check-report)"; fi

check-report:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	rm -rf results/runs/check-report
	$(call run_slices,$(CHECK_SLICES),results/runs/check-report)
	python3 scripts/check_report.py results/runs/check-report/report.html

bench-full:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	@status=0; for m in $(REPRO_MATRICES); do \
	  n=$$(basename $$m .toml); \
	  ./target/release/dvemc bench run $$m --jobs $(BENCH_JOBS) --resume --beem $(BEEM_DIR) --out $(BENCH_DIR)/$$n.csv || status=1; \
	  ./target/release/dvemc bench report $(BENCH_DIR)/$$n.csv --html --beem $(BEEM_DIR) --out $(BENCH_DIR)/$$n || status=1; \
	done; exit $$status

# The dvemc/SPIN speed ratio (where SPIN is installed) on these instances;
# rewrite its baseline with
#   python3 scripts/bench_spin.py --out /tmp/s.csv --write-baseline results/baseline/spin-ratio.csv $(SPIN_REGRESSION_INSTANCES)
SPIN_REGRESSION_INSTANCES ?= at.3 fischer.4 hanoi.2
check-regressions:
	$(CARGO) build --release -p dvemc $(FEATURE_ARGS)
	@mkdir -p target/bench && rm -f target/bench/regressions.csv
	./target/release/dvemc bench run beem/matrices/regressions.toml --quiet --beem $(BEEM_DIR) --out target/bench/regressions.csv
	@# A speed ratio of one short run can be thrown by another process on the
	@# machine: on a difference the matrix runs once more and that run
	@# decides (a counter is deterministic: a wrong one fails again).
	./target/release/dvemc bench compare target/bench/regressions.csv results/baseline/regressions.csv || { \
	  echo "check-regressions: running the matrix again (speed ratios are noisy; counters fail again if wrong)"; \
	  rm -f target/bench/regressions.csv && \
	  ./target/release/dvemc bench run beem/matrices/regressions.toml --quiet --beem $(BEEM_DIR) --out target/bench/regressions.csv && \
	  ./target/release/dvemc bench compare target/bench/regressions.csv results/baseline/regressions.csv; }
	@if command -v spin >/dev/null && command -v gcc >/dev/null; then \
	  spin_check() { python3 scripts/bench_spin.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc \
	    --out target/bench/spin-regressions.csv --baseline results/baseline/spin-ratio.csv $(SPIN_REGRESSION_INSTANCES); }; \
	  spin_check || { echo "check-regressions: the dvemc/SPIN ratio once more (one run each is noisy)"; spin_check; } && \
	  python3 scripts/ltl_spin.py --beem $(BEEM_DIR) --dvemc ./target/release/dvemc --min-agree 3 \
	    --out target/bench/ltl-spin.csv --md target/bench/ltl-spin.md peterson.1; \
	else echo "spin or gcc not installed: dvemc/SPIN speed ratio and LTL verdicts not checked"; fi

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets $(FEATURE_ARGS) -- -D warnings

clean:
	$(CARGO) clean
