# gpuplan - convenience wrapper around CMake/CTest.
#
#   make          build build/gpuplan
#   make demo     install missing deps, build, run the main job on the
#                 embedded defaults
#   make test     install missing deps, build (warnings as errors), run the
#                 whole test suite, then again under ASan+UBSan
#   make bench    run the benchmarks in bench/
#   make clean

BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all deps configure demo test test-release test-asan bench clean

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

test: deps test-release test-asan

test-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGP_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

test-asan:
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DGP_SANITIZE=ON -DGP_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j $(JOBS) -LE nosan

bench: all
	@bash bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
