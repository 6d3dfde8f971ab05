# Entry points: `make demo` and `make test` install what is missing, configure and build.
BUILD      ?= build
BUILD_ARM  ?= build-cortex-m
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

PREFIX     ?= /usr/local

.PHONY: all deps configure build cortex-m test demo bench install clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

cortex-m: deps
	cmake -S . -B $(BUILD_ARM) -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
	  -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF
	cmake --build $(BUILD_ARM) -j $(JOBS)

test: build cortex-m
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	scripts/demo.sh $(BUILD)

# The command on the PATH (PREFIX/bin), its docs, the runtime's headers, library, CMake and
# pkg-config files (docs/firmware.md). `make install PREFIX=$$HOME/.local` needs no root.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	scripts/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ARM)
