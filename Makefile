# gpuplan - convenience wrapper around CMake/CTest.
#
#   make          build build/gpuplan
#   make demo     install missing deps, build, run the main job on the
#                 embedded defaults
#   make test     install missing deps, build (warnings as errors), run the
#                 whole test suite, then again under ASan+UBSan
#   make fuzz     build the libFuzzer harnesses (clang) and fuzz each
#                 target briefly (FUZZ_SECONDS in all; fuzz/README.md)
#   make alloc    allocation-failure sweep over the examples (tests/alloc)
#   make bench    run the benchmarks in bench/
#   make clean

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 286
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps configure demo test test-release test-asan fuzz alloc bench clean

all: deps configure
	@cmake --build $(BUILD) -j $(JOBS) > $(BUILD)/build.log 2>&1 \
	  || { cat $(BUILD)/build.log; exit 1; }
	@echo "built $(BUILD)/gpuplan"

deps:
	@bash scripts/deps.sh

configure:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

demo: all
	@bash scripts/demo.sh $(BUILD)/gpuplan

# The sanitizer pass replays every fuzz corpus (ctest label fuzz) and runs
# the allocation-failure sweep (label alloc); 'fuzz' then fuzzes afresh.
test: deps test-release test-asan fuzz

test-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGP_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS) -LE nosan

fuzz:
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGP_SANITIZE=ON -DGP_FUZZ=ON -DGP_TESTS=OFF $(CMAKE_FLAGS) >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target fuzz_all
	bash fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

alloc:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 ctest --output-on-failure -L alloc

bench: all
	@bash bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
