# SPDX-License-Identifier: MIT
# Build, test and demo entry points for rdmachaos.
#
#   make          build/rdmachaos, build/rdmachaos-agent, build/rdmachaos-stream,
#                 build/rdmachaos-healthcheck (Slurm's HealthCheckProgram, docs/SLURM.md)
#   make deps     install what is missing from Debian's packages (demo and test do it first)
#   make test     unit tests (ASan+UBSan), fuzz smoke (tests/fuzz) and lab integration tests,
#                 overlapped where that is safe, with each phase's time (tests/run-all.sh)
#   make fuzz     libFuzzer harnesses, FUZZ_SECONDS (60) each
#   make demo     boot the lab, run the default drill, print where the report is
#   make bench    workload bandwidth against ib_write_bw (and qperf) on the same lab link, syscalls
#                 per message (bench/syscalls.sh), the verbs shim's cost when nothing is armed,
#                 and the injection latency against a bare ip link set (bench/inject.sh)
#   make bench-fleet  one coordinator and 10, 100, 1000 real agents on this machine (mutual TLS,
#                 a network namespace of its own): connect, clocks, no-op requests, a link_down
#                 fanned out to all and reverted, leases, the agents' idle cost (bench/fleet.sh)
#   make deb      the Debian package with the agent's systemd unit (deploy/deb.sh)
#   make k8s-check  the Kubernetes manifests (deploy/kubernetes/), checked offline (deploy/k8s-check.sh)
#   make fresh-check  make demo and make unit-test, as a newcomer runs them, in a fresh Debian 12
#                 root, then make deb and the package installed and run there (debootstrap;
#                 about 10 min; not part of test; tests/fresh/fresh_check.sh)

CC       ?= gcc
BUILD    ?= build
PKGS     := libibverbs librdmacm libnl-3.0 libnl-route-3.0 liburing yaml-0.1 jansson libssl libcrypto
# Its header only: the programs load it when they first serve HTTP (common/mhd_lib.h).
PKGS_HDR := libmicrohttpd
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo 0.1.0)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wold-style-definition -Wwrite-strings -Wformat=2 -Wno-unused-parameter
ifeq ($(CI),true)
WARN     += -Werror
endif
# Frame pointers, so that perf can say where a thousand agents spend their time (issue 17);
# symbols bound at load and read-only after (full RELRO): the agent runs as root, and a lazy
# binding is paid on each first call, which for a fleet's agents is the first inject.
CFLAGS   ?= -O2 -g -fno-omit-frame-pointer
LDFLAGS  ?= -Wl,-z,relro -Wl,-z,now
CFLAGS   += -std=gnu11 $(WARN) -D_GNU_SOURCE -I. $(shell pkg-config --cflags $(PKGS) $(PKGS_HDR) 2>/dev/null) \
            -DRC_VERSION='"$(VERSION)"' -DRC_SRCDIR='"$(CURDIR)"'
# --as-needed whatever LDFLAGS the caller (dpkg-buildflags) gives: a program links only the
# libraries it calls (the agent no libm, whose load alone is 328 KiB of its RSS: issue 17).
LDLIBS   := -Wl,--as-needed $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread -ldl

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

COMMON_SRC := $(wildcard common/*.c)
COORD_SRC  := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c)) $(wildcard reports/*.c) $(wildcard injectors/*.c)
AGENT_SRC  := $(filter-out agents/agent_main.c,$(wildcard agents/*.c)) $(wildcard injectors/*.c)
STREAM_SRC := $(filter-out workloads/stream_main.c,$(wildcard workloads/*.c))
HC_SRC     := $(filter-out healthcheck/hc_main.c,$(wildcard healthcheck/*.c))

OBJ      = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
SANOBJ   = $(patsubst %.c,$(BUILD)/san/%.o,$(1))

BINS     := $(BUILD)/rdmachaos $(BUILD)/rdmachaos-agent $(BUILD)/rdmachaos-stream \
            $(BUILD)/rdmachaos-healthcheck \
            $(BUILD)/librdmachaos-verbs.so $(BUILD)/tests/shim_selftest $(BUILD)/bench-fleet-peer \
            $(BUILD)/bench-integrity
TESTS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
# The MPI program of the lab's job drills (scenarios/job-mpi.yaml), when Open MPI is installed
# (make deps installs it; without it the MPI drills say so).
MPICC    := $(shell command -v mpicc 2>/dev/null)
ifneq ($(MPICC),)
BINS     += $(BUILD)/jobs/mpi_allreduce
endif

.PHONY: all deps test unit-test lab-test stream-lab-test demo bench bench-fleet deb k8s-check clean format check-format fuzz fuzz-smoke

all: $(BINS)

$(BUILD)/rdmachaos: $(call OBJ,coordinator/main.c $(COORD_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/jobs/mpi_allreduce: tests/jobs/mpi_allreduce.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -g -Wall -Wextra -o $@ $<

$(BUILD)/rdmachaos-agent: $(call OBJ,agents/agent_main.c $(AGENT_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/rdmachaos-stream: $(call OBJ,workloads/stream_main.c $(STREAM_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# Slurm's HealthCheckProgram for RDMA rails (healthcheck/hc.h, docs/SLURM.md).
$(BUILD)/rdmachaos-healthcheck: $(call OBJ,healthcheck/hc_main.c $(HC_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# make bench-fleet's peer run: the fan-out's link changes without rdmachaos (bench/fleet.sh).
$(BUILD)/bench-fleet-peer: $(call OBJ,bench/fleet_peer.c)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# make bench's fill and check rate of the stream's messages against memcpy (bench/integrity.c).
$(BUILD)/bench-integrity: $(call OBJ,bench/integrity.c workloads/stream_integrity.c)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# The verbs shim a workload is preloaded with (shim/, docs in shim/shim.h):
# position-independent, only the hooked verbs visible, libibverbs not linked
# (the real verbs come from dlsym(RTLD_NEXT)), no jansson (-DRC_SHIM_LIB).
SHIM_SRC := $(wildcard shim/*.c) common/shim_proto.c
PICOBJ    = $(patsubst %.c,$(BUILD)/pic/%.o,$(1))

$(BUILD)/librdmachaos-verbs.so: $(call PICOBJ,$(SHIM_SRC))
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $^ -ldl -lpthread

$(BUILD)/pic/%.o: %.c $(wildcard */*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -fvisibility=hidden -DRC_SHIM_LIB -c -o $@ $<

# The shim's self-test, run under the shim on real rxe (tests/shim/run_lab_selftest.sh).
$(BUILD)/tests/shim_selftest: $(call OBJ,tests/shim/shim_selftest.c common/shim_proto.c injectors/inj_rdma_nl.c \
				     injectors/inj_util.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: %.c $(wildcard */*.h) injectors/injectors.def
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

# Objects that show the version (RC_VERSION: --version, hello, inventory, metrics, report.json)
# are rebuilt when `git describe` changes, so that no binary names a commit it was not built
# from. The stamp is rewritten only when the version differs from the one it holds.
VERSION_STAMP := $(BUILD)/version.stamp
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = '$(VERSION)' ] || \
	echo '$(VERSION)' > $(VERSION_STAMP); })
VERSIONED_SRC := $(shell grep -l RC_VERSION $(wildcard */*.c tests/unit/*.c) 2>/dev/null)
$(call OBJ,$(VERSIONED_SRC)) $(call SANOBJ,$(VERSIONED_SRC)): $(VERSION_STAMP)

$(BUILD)/san/%.o: %.c $(wildcard */*.h) injectors/injectors.def
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -O1 -c -o $@ $<

# Unit tests are named after the module they test and link only it (and
# common/), sanitized: test_common_*, test_coord_*, test_agent_*, test_stream_*, test_hc_*.
# A test that fakes a symbol lists it in tests/unit/<name>.wrap, one a line; one that shares a
# fake or a helper (tests/unit/fake_*.c, agent_harness.c, scratch_dir.c) lists its name in
# tests/unit/<name>.fixtures.
TEST_LIB_common := $(COMMON_SRC)
TEST_LIB_coord  := $(COMMON_SRC) $(COORD_SRC)
TEST_LIB_agent  := $(COMMON_SRC) $(AGENT_SRC)
TEST_LIB_stream := $(COMMON_SRC) $(STREAM_SRC)
TEST_LIB_hc     := $(COMMON_SRC) $(HC_SRC)
test_module      = $(word 2,$(subst _, ,$(1)))

.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/tests/%: $(BUILD)/san/tests/unit/%.o $$(call SANOBJ,$$(TEST_LIB_$$(call test_module,$$*))) \
		  $$(addprefix $(BUILD)/san/tests/unit/,$$(addsuffix .o,$$(shell cat tests/unit/$$*.fixtures 2>/dev/null)))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ \
		$(foreach s,$(shell cat tests/unit/$*.wrap 2>/dev/null),-Wl,--wrap=$(s)) \
		$(LDLIBS) -lcmocka

# libFuzzer harnesses (tests/fuzz/fuzz_<name>.c), built with clang, each linking
# FUZZ_LIB_<name> and faking what tests/fuzz/fuzz_<name>.wrap lists. `make fuzz`
# fuzzes each for FUZZ_SECONDS on a scratch copy of tests/fuzz/corpus/<name>/,
# `make fuzz-smoke` (part of `make test`) for FUZZ_SMOKE_SECONDS; both first
# replay every file in tests/fuzz/regress/<name>/ (see tests/fuzz/README.md).
FUZZ_CC            ?= clang
FUZZ_SECONDS       ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_SAN           := -fsanitize=address,undefined -fno-omit-frame-pointer \
                      -fno-sanitize-recover=undefined
FUZZERS            := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZOBJ             = $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(1))
FUZZ_LIB_scenario  := $(COMMON_SRC) $(COORD_SRC)
FUZZ_LIB_proto     := $(COMMON_SRC)
FUZZ_LIB_agent_req := $(COMMON_SRC) $(AGENT_SRC)
FUZZ_LIB_journal   := $(COMMON_SRC) $(AGENT_SRC)
FUZZ_LIB_alerts    := $(COMMON_SRC) $(COORD_SRC)
FUZZ_LIB_fleetfile := $(COMMON_SRC) coordinator/fleetfile.c
FUZZ_LIB_stream_msg := workloads/stream_integrity.c

# clang, unlike gcc, warns about the {NULL} that ends a table.
$(BUILD)/fuzz/obj/%.o: %.c $(wildcard */*.h) injectors/injectors.def
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -O1 -Wno-missing-field-initializers \
		-c -o $@ $<

$(call FUZZOBJ,$(VERSIONED_SRC)): $(VERSION_STAMP)

$(BUILD)/fuzz/fuzz_%: $(BUILD)/fuzz/obj/tests/fuzz/fuzz_%.o $$(call FUZZOBJ,$$(FUZZ_LIB_$$*))
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ \
		$(foreach s,$(shell cat tests/fuzz/fuzz_$*.wrap 2>/dev/null),-Wl,--wrap=$(s)) $(LDLIBS)

fuzz: $(FUZZERS)
	@bash tests/fuzz/run.sh $(FUZZ_SECONDS) $(BUILD) $(FUZZERS)

fuzz-smoke: $(FUZZERS)
	@bash tests/fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(BUILD) $(FUZZERS)

deps:
	@bash lab/deps.sh

# What `make demo` and `make test` build on, so that each works as the first command on a
# machine with none of our packages: install what is missing, then build in a fresh make
# (CFLAGS and LDLIBS come from pkg-config, which runs when a make parses this file).
.PHONY: deps-then-all fresh-check
deps-then-all: deps
	@$(MAKE) --no-print-directory all

unit-test: $(TESTS)
	@bash tests/run-unit.sh $(TESTS)

# Renderers, schemas, golden files and the offline commands (tests/report).
report-test: all
	@bash tests/report/run.sh

lab-test: all
	@bash tests/lab/run.sh

# Every suite (tests/run-all.sh): what is missing installed, the build, then the lab and its
# functional tests beside the offline suites (unit, report, fuzz smoke, host-only agent tests),
# then the drills alone; each phase's time at the end. It installs and builds itself, in makes
# of their own, so that the compiler flags come from the packages just installed.
test:
	@bash tests/run-all.sh

# Workload failover on real rxe, alone (see tests/lab/run.sh for why it is apart).
stream-lab-test: all
	@bash tests/stream/test_stream_lab.sh

demo: deps-then-all
	@bash lab/demo.sh

# `make demo` and `make unit-test` as a newcomer runs them: in a fresh Debian 12 root made from
# Debian's packages (needs root; see tests/fresh/fresh_check.sh). Not part of `make test`.
fresh-check:
	@bash tests/fresh/fresh_check.sh

bench: all
	@bash bench/run.sh

# BENCH_FLEET_SIZES="10 100" picks the fleet sizes (default 10 100 1000).
bench-fleet: all
	@bash bench/fleet.sh $(BENCH_FLEET_SIZES)

# The Debian package (deploy/debian/), built with dpkg-buildpackage into build/deb/ and checked.
deb:
	@bash deploy/deb.sh

# The Kubernetes manifests (deploy/kubernetes/), checked offline with Debian's python3-kubernetes
# and yamllint, then broken copies of them that must fail (deploy/k8s-check.sh; report-test runs
# it too, as tests/report/test_k8s.sh).
k8s-check: all
	@bash deploy/k8s-check.sh --self-test

clean:
	rm -rf $(BUILD)/obj $(BUILD)/san $(BUILD)/pic $(BUILD)/tests $(BUILD)/fuzz $(BINS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

check-format:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
