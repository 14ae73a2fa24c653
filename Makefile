# fgobench: build, test, demo, install.
#   make            build ./fgobench (CPU backend)
#   make test       unit + end-to-end tests; last line "N passed, N failed"
#   make demo       smoke sweep under mpirun -np 2, best table, roofline PNG
#   make bundle     GPU build + the sweeps' kernels compiled, to carry to a GPU machine
#   make deps       install the Debian packages (apt-get as root, else prints the command)
#   make install    PREFIX=/usr/local: binary and man pages
PREFIX ?= /usr/local
CUDA_HOME ?= /usr/local/cuda
CC ?= gcc
MPICC_COMPILE = $(shell mpicc --showme:compile 2>/dev/null)
MPICC_LINK = $(shell mpicc --showme:link 2>/dev/null)
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc -Ikernels -Ibuild $(MPICC_COMPILE)
LDLIBS += -lsqlite3 -lcjson -lm $(MPICC_LINK)
# SANITIZE: extra compile and link flags, set by `make test-asan` and `make fuzz`
# for their own builds under build/asan and build/fuzz.
CFLAGS += $(SANITIZE)
LDLIBS += $(SANITIZE)

DEB_PACKAGES := libopenmpi-dev openmpi-bin libsqlite3-dev sqlite3 libcjson-dev gnuplot-nox cppcheck libxml2-utils
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1

# src/gpu: the GPU backend, built only by `make GPU=cuda|hip`, except
# gpu_shape.c (pure: spec validation needs it in every build);
# src/gpu/gpu_*_hip.c are the AMD halves (empty in a CUDA build)
GPU_SRCS := $(filter-out src/gpu/gpu_shape.c,$(wildcard src/gpu/*.c))
# `make GPU=cuda` builds the GPU backend too, into build/cuda/fgobench (the
# CPU build stays ./fgobench: a binary linked to the CUDA driver would not
# start on a machine without one). Carry build/cuda to the GPU machine.
ifeq ($(GPU),cuda)
CUDA ?= /usr/local/cuda
OBJ := build/cuda/obj
BIN := build/cuda/fgobench
CFLAGS += -DFGO_GPU_CUDA -I$(CUDA)/include -DFGO_CUDA_INCLUDE=\"$(CUDA)/include\"
LDLIBS += -L$(CUDA)/lib64 -L$(CUDA)/lib64/stubs -lcuda -lcudart_static -lnvrtc -lcublas \
	-ldl -lpthread -lrt -Wl,-rpath,'$$ORIGIN/lib'
SRCS := $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c))
# `make GPU=hip` builds the same GPU backend against HIP, into build/hip/fgobench.
# HIP_PATH: ROCm's root (/opt/rocm), or empty for Debian's packages
# (libamdhip64-dev: headers in /usr/include/hip, libamdhip64 holds hiprtc).
# rocBLAS, RCCL and ROCm SMI are loaded at run time (dlopen), never linked.
else ifeq ($(GPU),hip)
HIP_PATH ?= $(if $(wildcard /opt/rocm/include/hip/hip_runtime.h),/opt/rocm)
OBJ := build/hip/obj
BIN := build/hip/fgobench
CFLAGS += -DFGO_GPU_HIP -D__HIP_PLATFORM_AMD__ $(if $(HIP_PATH),-I$(HIP_PATH)/include)
LDLIBS += $(if $(HIP_PATH),-L$(HIP_PATH)/lib -Xlinker -rpath -Xlinker $(HIP_PATH)/lib) -lamdhip64 \
	-ldl -lpthread -lrt -Wl,-rpath,'$$ORIGIN/lib'
SRCS := $(filter-out src/main.c,$(wildcard src/*.c src/*/*.c))
else
OBJ := build/obj
BIN := fgobench
SRCS := $(filter-out src/main.c $(GPU_SRCS),$(wildcard src/*.c src/*/*.c))
endif
OBJS := $(patsubst src/%.c,$(OBJ)/%.o,$(SRCS)) $(OBJ)/embedded.o $(OBJ)/revision.o
HDRS := $(wildcard src/*.h src/*/*.h src/*/*.inc kernels/*.h)
EMBED := db/schema.sql $(wildcard db/migrations/*.sql) $(wildcard plots/*.gp) $(wildcard kernels/*.h kernels/*.hip)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,build/tests/%,$(UNIT_SRCS))
MPI_TEST_SRCS := $(wildcard tests/mpi/test_*.c)
MPI_TEST_BINS := $(patsubst tests/mpi/%.c,build/tests/mpi_%,$(MPI_TEST_SRCS))
GIT_REVISION := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(shell git diff --quiet HEAD -- 2>/dev/null || echo +dirty)

.PHONY: all test demo deps install clean check-deps cppcheck man bundle nightly gpu-check FORCE

all: build/.deps-ok $(BIN)

# Pulled in by every target that compiles, so `make test` and `make demo`
# work as the first command on a fresh machine.
build/.deps-ok:
	@mkdir -p build
	@sh src/make/deps.sh check || $(MAKE) --no-print-directory deps
	@sh src/make/deps.sh check && touch $@

# `make deps GPU=hip` adds AMD's HIP headers and the clang that compiles
# kernels for AMD without ROCm
deps:
	@sh src/make/deps.sh install $(DEB_PACKAGES) $(if $(filter hip,$(GPU)),libamdhip64-dev clang-19 lld-19)

# A GPU build checks its toolchain first, so a missing CUDA or HIP names the
# package to install instead of stopping inside the compiler.
# (Checked on every GPU build: a few file tests, and a stamp would outlive
# a toolkit removed or a CUDA= pointed elsewhere.)
ifeq ($(GPU),cuda)
GPU_CHECK := gpu-check
gpu-check:
	@sh src/make/deps.sh check-gpu cuda $(CUDA)
else ifeq ($(GPU),hip)
GPU_CHECK := gpu-check
gpu-check:
	@sh src/make/deps.sh check-gpu hip $(HIP_PATH)
endif

$(OBJ)/%.o: src/%.c $(HDRS) | build/.deps-ok $(GPU_CHECK)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

# Schema, migrations and plot templates become C arrays, so the binary is the whole tool.
build/embedded.c: $(EMBED) src/make/embed.sh
	@mkdir -p build
	sh src/make/embed.sh $(EMBED) > $@

# The git revision recorded with every sweep; rewritten only when it changes.
build/revision.c: FORCE | build/.deps-ok
	@echo 'const char fgo_git_revision[] = "$(GIT_REVISION)";' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

$(OBJ)/revision.o: build/revision.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/embedded.o: build/embedded.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(OBJ)/libfgo.a: $(OBJS)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(OBJ)/main.o $(OBJ)/libfgo.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
ifeq ($(GPU),cuda)
	mkdir -p build/cuda/lib && cp -P /usr/lib/x86_64-linux-gnu/libcjson.so.1* build/cuda/lib/
endif
ifeq ($(GPU),hip)
	mkdir -p build/hip/lib && cp -P /usr/lib/x86_64-linux-gnu/libcjson.so.1* build/hip/lib/
endif

build/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) build/obj/libfgo.a
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< build/obj/libfgo.a $(LDLIBS)

build/tests/mpi_%: tests/mpi/%.c tests/unit/testlib.h build/obj/libfgo.a
	@mkdir -p build/tests
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< build/obj/libfgo.a $(LDLIBS)

# What only the tests use, installed by `make test` as the build's packages
# are (as root; otherwise the browser test says SKIP): a headless browser
# that opens `report --format html` (tests/e2e/98_report_browser.sh).
TEST_PACKAGES := chromium
build/.test-deps-ok:
	@mkdir -p build
	@command -v chromium >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || sh src/make/deps.sh install $(TEST_PACKAGES) >/dev/null || \
		echo "make test: installing $(TEST_PACKAGES) failed; the browser test will say SKIP"
	@touch $@

test: all build/.test-deps-ok $(UNIT_BINS) $(MPI_TEST_BINS)
	@sh tests/run.sh $(UNIT_BINS) $(MPI_TEST_BINS)

# The demo adds to the store every command reads ($$FGOBENCH_DB, else
# ./fgobench.db) and never deletes from it: a store holds people's runs.
# calibrate adds this machine's newest ceilings; the smoke sweep is tagged
# demo and --resume makes a second `make demo` add nothing (that sweep is
# complete). --oversubscribe: 2 ranks on a machine of fewer cores.
# DEMO_PLOTS: where the roofline goes (the README test points it elsewhere).
DEMO_PLOTS ?= fgobench-out
demo: all
	mpirun --oversubscribe -np 2 ./fgobench calibrate
	mpirun --oversubscribe -np 2 ./fgobench sweep sweeps/smoke.json --tag demo --resume
	./fgobench best --tag demo
	./fgobench plot roofline --tag demo -o $(DEMO_PLOTS)
	@echo "make demo: the demo sweep (tag demo) and this machine's ceilings are in" \
		"$${FGOBENCH_DB:-./fgobench.db}, beside what was there (nothing deleted);" \
		"the roofline in $(DEMO_PLOTS)/. Next: ./fgobench best --m 512 (README.md, Everyday commands)"

# The nightly job (tests/nightly.sh): sweeps/nightly.json in rounds tagged
# nightly-YYYY-MM-DD, then `report --against auto --gate` into reports/TAG/.
# Its settings are environment variables. `make nightly` exits as the script
# does: 0 no regression, 1 a regression, 2 bad set-up. GNU make turns any
# failed recipe into 2, except in question mode (-q), where a recursive
# (+) line's 1 passes through as 1; so `make nightly` alone runs in question
# mode, and builds the tool with a sub-make outside it.
ifeq ($(MAKECMDGOALS),nightly)
MAKEFLAGS += -q
endif
nightly:
	+@env -u MAKEFLAGS -u MFLAGS $(MAKE) --no-print-directory all || exit 2
	+@sh tests/nightly.sh

# The GPU bundle: build/cuda (the binary, libcjson beside it, and the
# kernels of BUNDLE_SPECS compiled for BUNDLE_ARCH into build/cuda/kcache),
# made here, carried to a GPU machine and run there with tests/gpu/run.sh,
# which finds the kernel cache beside the binary: no compiling there.
# The quick-start's specs only: the bundle must stay small enough to carry
# (a few hundred kernels, ~20 MB); any other spec's kernels compile on the
# GPU machine (`sh tests/gpu/run.sh compile SPEC -j N`, or at the sweep's
# start), or here with BUNDLE_SPECS="...".
BUNDLE_SPECS ?= sweeps/smoke.json sweeps/gpu_smoke.json sweeps/wgmma_check.json
BUNDLE_ARCH ?= sm_90a
bundle:
	$(MAKE) --no-print-directory GPU=cuda
	@mkdir -p build/cuda/stub && ln -sf $(CUDA_HOME)/lib64/stubs/libcuda.so build/cuda/stub/libcuda.so.1
	@# only these specs' kernels: what earlier builds compiled would travel too
	rm -rf build/cuda/kcache
	for spec in $(BUNDLE_SPECS); do \
		LD_LIBRARY_PATH=build/cuda/stub:$(CUDA_HOME)/lib64 build/cuda/fgobench compile $$spec \
			--arch $(BUNDLE_ARCH) --cache build/cuda/kcache --quiet --format csv > /dev/null || exit 1; \
	done
	@echo "bundle: build/cuda ($$(du -sh build/cuda | cut -f1)); carry it, then run: sh tests/gpu/run.sh sweep SPEC"
	@rm -rf build/cuda/stub

cppcheck:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c11 -Isrc -Ikernels --suppress=missingIncludeSystem --max-configs=1 \
		--suppress=toomanyconfigs -j2 src

# Regenerates man/fgobench-CMD.1 from the --help texts (commit the result).
man: all
	sh man/mkman.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 fgobench $(DESTDIR)$(PREFIX)/bin/fgobench
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build fgobench

# ---- hardening: sanitizers and fuzzing ----
#   make test-asan            the tool, unit and MPI tests built with ASan+UBSan in
#                             build/asan, run on the CPU backend (the tool under
#                             mpirun -np 2, the MPI tests -np 4); only OpenMPI's own
#                             leaks are suppressed (tests/asan/ompi.supp)
#   make fuzz FUZZ_SECONDS=N  every libFuzzer harness of tests/fuzz for N seconds each
#                             (clang; working corpus and findings under build/fuzz;
#                             FUZZ_NICE=19 on a shared machine)
#   make fuzz-ci              every harness over its seed corpus and reproducers, then
#                             FUZZ_CI_SECONDS of fuzzing each (what .ci/run calls)
ASAN_FLAGS := -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
ASAN_UNIT_BINS := $(patsubst tests/unit/%.c,build/asan/tests/%,$(UNIT_SRCS))
ASAN_MPI_BINS := $(patsubst tests/mpi/%.c,build/asan/tests/mpi_%,$(MPI_TEST_SRCS))
FUZZ_CC ?= clang
FUZZ_FLAGS := -fsanitize=fuzzer-no-link,address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -Wno-error
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRCS))
# fuzz_cli stops each command where it would launch kernels (see its comment).
FUZZ_WRAP := -Wl,--wrap=session_run -Wl,--wrap=tune_run -Wl,--wrap=runner_run
FUZZ_SECONDS ?= 60
FUZZ_CI_SECONDS ?= 2

.PHONY: test-asan asan-build fuzz fuzz-build fuzz-ci

asan-build: build/.deps-ok
	@$(MAKE) --no-print-directory OBJ=build/asan/obj BIN=build/asan/fgobench \
		SANITIZE="$(ASAN_FLAGS)" build/asan/fgobench
	@$(MAKE) --no-print-directory $(ASAN_UNIT_BINS) $(ASAN_MPI_BINS)

build/asan/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) build/asan/obj/libfgo.a
	@mkdir -p build/asan/tests
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< build/asan/obj/libfgo.a $(LDLIBS) $(ASAN_FLAGS)

build/asan/tests/mpi_%: tests/mpi/%.c tests/unit/testlib.h build/asan/obj/libfgo.a
	@mkdir -p build/asan/tests
	$(CC) $(CFLAGS) $(ASAN_FLAGS) -Itests/unit -o $@ $< build/asan/obj/libfgo.a $(LDLIBS) $(ASAN_FLAGS)

test-asan: asan-build
	@sh tests/asan/run.sh build/asan/fgobench $(ASAN_UNIT_BINS) $(ASAN_MPI_BINS)

fuzz-build: build/.deps-ok
	@$(MAKE) --no-print-directory CC=$(FUZZ_CC) OBJ=build/fuzz/obj BIN=build/fuzz/obj/unused \
		SANITIZE="$(FUZZ_FLAGS)" build/fuzz/obj/libfgo.a
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_util.h build/fuzz/obj/libfgo.a
	$(FUZZ_CC) $(CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer $(if $(filter %/fuzz_cli,$@),$(FUZZ_WRAP)) \
		-o $@ $< build/fuzz/obj/libfgo.a $(LDLIBS)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh fuzz $(FUZZ_SECONDS) $(FUZZ_BINS)

fuzz-ci: fuzz-build
	@sh tests/fuzz/run.sh ci $(FUZZ_CI_SECONDS) $(FUZZ_BINS)

# ---- the mutation check: do the tests fail when the code is wrong? ----
#   make mutate               each mutant of tests/mutants.txt alone, in a scratch
#                             copy of the tree (this one is never touched): built,
#                             its named tests run; per mutant caught / SURVIVED /
#                             STALE, then "mutate: N of M caught (P%)" (about 10
#                             minutes on 2 cores; docs/testing.md)
#   make mutate MUTATE_ARGS="--only gate,check --full"   some of them; --full runs
#                             the whole suite for a survivor of its named tests
MUTATE_ARGS ?=
.PHONY: mutate
mutate:
	@sh tests/mutate.sh $(MUTATE_ARGS)
