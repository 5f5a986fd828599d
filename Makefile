# absim: `make` builds build/absim; `make test` runs every test; `make run`
# runs the demo; `make bench` compares the kernel on PHOLD with SimPy, the
# bare heap loop and (when libns3-dev is installed) ns-3.
#
# Variables: CC (gcc or clang), OPT (default -O2), SANITIZE=1 (ASan+UBSan,
# builds into build-san/), COVERAGE=1 (gcov, builds into build-cov/),
# BUILD (output folder), V=1 (show compiler command lines).

ifeq ($(origin CC),default)
  CC := gcc
endif
OPT      ?= -O2
BUILD    ?= build
PYTHON   ?= /usr/bin/python3

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wvla
CFLAGS   := -std=c11 $(WARN) $(OPT) -g -ffp-contract=off -D_POSIX_C_SOURCE=200809L
LDFLAGS  :=
LDLIBS   := -ljansson -lyaml -lxml2

ifeq ($(SANITIZE),1)
  BUILD    := build-san
  CFLAGS   += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
  LDFLAGS  += -fsanitize=address,undefined
endif
ifeq ($(COVERAGE),1)
  BUILD    := build-cov
  CFLAGS   := $(filter-out -O2,$(CFLAGS)) -O0 --coverage
  LDFLAGS  += --coverage
endif

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

SIM_SRC  := $(sort $(wildcard sim/*.c))
MODEL_SRC:= $(sort $(wildcard model/*.c model/*/*.c))
CHECK_SRC:= $(sort $(wildcard check/*.c))
SCN_SRC  := $(sort $(wildcard scenarios/*.c))
RPT_SRC  := $(sort $(wildcard reports/*.c))
FLINK_SRC:= $(sort $(wildcard flink/*.c))
CLI_SRC  := $(sort $(wildcard cli/*.c))
TEST_SRC := $(sort $(wildcard tests/test_*.c))

# Rebuild everything when the compiler or its flags change (make CC=clang
# after make): the stamp file changes only when they do.
STAMP    := $(BUILD)/.flags
$(shell mkdir -p $(BUILD) && echo '$(CC) $(CFLAGS) $(LDFLAGS)' | cmp -s - $(STAMP) || \
        echo '$(CC) $(CFLAGS) $(LDFLAGS)' > $(STAMP))

# The build's name for absim --version: git describe of the tree (a clone
# without git history says unknown). Rewritten only when it changes, so
# only cli/main.o is rebuilt then.
VERSION_H := $(BUILD)/version.h
$(shell mkdir -p $(BUILD) && v=$$(git describe --always --dirty 2>/dev/null || echo unknown) && \
        printf '#define ABSIM_BUILD "%s"\n' "$$v" | cmp -s - $(VERSION_H) || \
        printf '#define ABSIM_BUILD "%s"\n' "$$v" > $(VERSION_H))

SIM_OBJ  := $(SIM_SRC:%.c=$(BUILD)/%.o)
MODEL_OBJ:= $(MODEL_SRC:%.c=$(BUILD)/%.o) $(CHECK_SRC:%.c=$(BUILD)/%.o) $(SCN_SRC:%.c=$(BUILD)/%.o) $(RPT_SRC:%.c=$(BUILD)/%.o) $(FLINK_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: all test unit run bench coverage fuzz deps clean

all: $(BUILD)/absim

$(BUILD)/absim: $(SIM_OBJ) $(MODEL_OBJ) $(CLI_OBJ)
	@echo "  LD  $@"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/%.o: %.c $(wildcard sim/*.h model/*.h model/*/*.h check/*.h scenarios/*.h reports/*.h flink/*.h cli/*.h) $(STAMP) | deps
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/cli/main.o: $(VERSION_H)
$(BUILD)/cli/main.o: CFLAGS += -include $(VERSION_H)
$(BUILD)/cli/jmerge.o: CFLAGS += -I/usr/include/libxml2

$(BUILD)/tests/%: tests/%.c $(SIM_OBJ) $(MODEL_OBJ) $(wildcard sim/*.h model/*.h model/*/*.h check/*.h scenarios/*.h reports/*.h flink/*.h tests/*.h) $(STAMP) | deps
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(SIM_OBJ) $(MODEL_OBJ) -lcmocka -lm $(LDLIBS)

# Checks (and as root installs) the Debian packages builds and tests need.
deps:
	@sh tests/deps.sh

# Unit tests (cmocka), the model's floors (tests/layout_check.sh), functions under 70 lines
# (tests/length_check.py), the command-line checks, the run viewer in
# headless Chromium (tests/html_check.sh; skipped without it), every scenario file (each
# checks its own expect lines), then the determinism check
# across compilers and -O levels and the SimPy cross-check. Under
# SANITIZE=1 the last two are skipped: they compare builds and peers, which
# the sanitizers do not change.
test: deps unit $(BUILD)/absim
	@sh tests/layout_check.sh $(BUILD)
	@$(PYTHON) tests/length_check.py
	@sh tests/cli_check.sh $(BUILD)/absim
	@sh tests/html_check.sh $(BUILD)/absim $(PYTHON)
	@EXPLORE_KINDS=$(EXPLORE_KINDS) sh tests/scenario_check.sh $(BUILD)/absim
ifneq ($(SANITIZE),1)
	@sh tests/det_check.sh
	@sh tests/simpy_check.sh $(BUILD)/absim $(PYTHON)
endif

# absim explore's menu in scenario_check (empty: every kind). The
# sanitizers make runs slower: their build explores the crashes and the
# lost RPCs.
ifeq ($(SANITIZE),1)
  EXPLORE_KINDS ?= crash-task,crash-machine,crash-coordinator,lose-rpc
endif

unit: $(TEST_BIN)
	@sh tests/run_unit.sh $(TEST_BIN)

run: $(BUILD)/absim
	./$(BUILD)/absim run scenarios/faults/crash-machine.scn

# ns-3 is a peer for benchmarks only: bench.sh builds tests/bench/phold_ns3.cc
# when pkg-config finds ns3-core and skips it otherwise; deps (what the
# tests need) never installs it.
bench: deps $(BUILD)/absim
	@CC="$(CC)" CXX="$(CXX)" sh tests/bench/bench.sh ./$(BUILD)/absim $(PYTHON) $(BUILD)

coverage: deps
	@$(MAKE) --no-print-directory COVERAGE=1 unit
	lcov --quiet --capture --directory build-cov --output-file build-cov/lcov.info --rc lcov_branch_coverage=1
	lcov --quiet --extract build-cov/lcov.info '*/sim/*' '*/model/*' '*/check/*' --output-file build-cov/sim.info --rc lcov_branch_coverage=1
	genhtml --quiet --branch-coverage --output-directory build-cov/html build-cov/sim.info
	lcov --summary build-cov/sim.info --rc lcov_branch_coverage=1

# The scenario reader under libFuzzer (clang), with ASan and UBSan, seeded
# with scenarios/; FUZZ_SECONDS bounds the run (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	@mkdir -p build-fuzz/corpus
	clang -std=c11 -g -O1 -ffp-contract=off -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer,address,undefined \
	    -fno-sanitize-recover=all -o build-fuzz/fuzz_scn tests/fuzz/fuzz_scn.c $(SIM_SRC) $(MODEL_SRC) $(CHECK_SRC) $(SCN_SRC) -lm
	cp scenarios/*/*.scn build-fuzz/corpus/
	./build-fuzz/fuzz_scn -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -print_final_stats=1 build-fuzz/corpus

clean:
	rm -rf build build-san build-cov build-det build-fuzz
