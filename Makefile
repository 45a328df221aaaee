# dvemc — common tasks. `make test` is the test command CI runs.
CARGO ?= cargo
BEEM_DIR ?= ../shared/beem
# verify-beem: largest instance (by BEEM's state count) to explore.
MAX_STATES ?= 20000000

.PHONY: all build run test verify-beem verify-properties fmt lint clean

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

# Check every BEEM property with a recorded answer on instances of at most
# PROP_MAX_STATES states; writes results/properties-verify.csv.
PROP_MAX_STATES ?= 2000000
verify-properties: build
	./target/release/dvemc verify-properties --beem $(BEEM_DIR) --max-states $(PROP_MAX_STATES) --out results/properties-verify.csv

fmt:
	$(CARGO) fmt --all

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings

clean:
	$(CARGO) clean
