# SPDX-License-Identifier: MIT
# Build, test and demo entry points for rdmachaos.
#
#   make          build/rdmachaos, build/rdmachaos-agent, build/rdmachaos-stream
#   make deps     install what is missing from Debian's packages
#   make test     unit tests (ASan+UBSan) and lab integration tests
#   make demo     boot the lab, run the default drill, print where the report is
#   make bench    workload bandwidth against ib_write_bw on the same lab link

CC       ?= gcc
BUILD    ?= build
PKGS     := libibverbs librdmacm libnl-3.0 libnl-route-3.0 liburing yaml-0.1 jansson libcrypto
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo 0.1.0)

WARN     := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wold-style-definition -Wwrite-strings -Wformat=2 -Wno-unused-parameter
ifeq ($(CI),true)
WARN     += -Werror
endif
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 $(WARN) -D_GNU_SOURCE -I. $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
            -DRC_VERSION='"$(VERSION)"' -DRC_SRCDIR='"$(CURDIR)"'
LDLIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm -lpthread

SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

COMMON_SRC := $(wildcard common/*.c)
COORD_SRC  := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c)) $(wildcard reports/*.c) $(wildcard injectors/*.c)
AGENT_SRC  := $(filter-out agents/agent_main.c,$(wildcard agents/*.c)) $(wildcard injectors/*.c)
STREAM_SRC := $(filter-out workloads/stream_main.c,$(wildcard workloads/*.c))

OBJ      = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
SANOBJ   = $(patsubst %.c,$(BUILD)/san/%.o,$(1))

BINS     := $(BUILD)/rdmachaos $(BUILD)/rdmachaos-agent $(BUILD)/rdmachaos-stream
TESTS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))

.PHONY: all deps test unit-test lab-test stream-lab-test demo bench clean format check-format fuzz

all: $(BINS)

$(BUILD)/rdmachaos: $(call OBJ,coordinator/main.c $(COORD_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/rdmachaos-agent: $(call OBJ,agents/agent_main.c $(AGENT_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/rdmachaos-stream: $(call OBJ,workloads/stream_main.c $(STREAM_SRC) $(COMMON_SRC))
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/obj/%.o: %.c $(wildcard */*.h) injectors/injectors.def
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/san/%.o: %.c $(wildcard */*.h) injectors/injectors.def
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -O1 -c -o $@ $<

# Unit tests are named after the module they test and link only it (and
# common/), sanitized: test_common_*, test_coord_*, test_agent_*, test_stream_*.
# A test that fakes a symbol lists it in tests/unit/<name>.wrap, one a line.
TEST_LIB_common := $(COMMON_SRC)
TEST_LIB_coord  := $(COMMON_SRC) $(COORD_SRC)
TEST_LIB_agent  := $(COMMON_SRC) $(AGENT_SRC)
TEST_LIB_stream := $(COMMON_SRC) $(STREAM_SRC)
test_module      = $(word 2,$(subst _, ,$(1)))

.SECONDARY:
.SECONDEXPANSION:
$(BUILD)/tests/%: $(BUILD)/san/tests/unit/%.o $$(call SANOBJ,$$(TEST_LIB_$$(call test_module,$$*)))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ \
		$(foreach s,$(shell cat tests/unit/$*.wrap 2>/dev/null),-Wl,--wrap=$(s)) \
		$(LDLIBS) -lcmocka

deps:
	@bash lab/deps.sh

unit-test: $(TESTS)
	@bash tests/run-unit.sh $(TESTS)

lab-test: all
	@bash tests/lab/run.sh

test: all unit-test lab-test

# Workload failover on real rxe, alone (see tests/lab/run.sh for why it is apart).
stream-lab-test: all
	@bash tests/stream/test_stream_lab.sh

demo: all
	@bash lab/demo.sh

bench: all
	@bash bench/run.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/san $(BUILD)/tests $(BINS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

check-format:
	@clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
