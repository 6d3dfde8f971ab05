# Entry points: `make demo` and `make test` install what is missing, configure and build.
BUILD      ?= build
BUILD_ARM  ?= build-cortex-m
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

# Accelerated backends (docs/backends.md): the pinned CMSIS-NN and esp-nn trees of
# ../shared/third_party when they are there; without them the adapters are not built and
# their tests skip. An empty -D clears a tree configured earlier.
THIRD_PARTY ?= $(abspath ../shared/third_party)
CMSIS_NN_DIR ?= $(if $(wildcard $(THIRD_PARTY)/CMSIS-NN/Include/arm_nnfunctions.h),$(THIRD_PARTY)/CMSIS-NN)
ESP_NN_DIR   ?= $(if $(wildcard $(THIRD_PARTY)/esp-nn/include/esp_nn.h),$(THIRD_PARTY)/esp-nn)
BACKEND_ARGS  = -DTIGRIS_CMSIS_NN_DIR=$(CMSIS_NN_DIR) -DTIGRIS_ESP_NN_DIR=$(ESP_NN_DIR)
backends-note = $(if $(CMSIS_NN_DIR),,echo "backends: no CMSIS-NN tree at $(THIRD_PARTY)/CMSIS-NN: the CMSIS-NN adapter is not built, its tests skip";) \
                $(if $(ESP_NN_DIR),,echo "backends: no esp-nn tree at $(THIRD_PARTY)/esp-nn: the ESP-NN adapter is not built, its tests skip";) true

PREFIX     ?= /usr/local

# Ninja when it is installed (scripts/install-deps.sh installs it): it keeps both cores busy
# across targets. A build folder configured before keeps the generator it has.
generator = $(if $(wildcard $(1)/CMakeCache.txt),,$(if $(shell command -v ninja),-G Ninja))

.PHONY: all deps configure build cortex-m test demo bench install clean

all: build

deps:
	@scripts/install-deps.sh

configure: deps
	@$(backends-note)
	cmake -S . -B $(BUILD) $(call generator,$(BUILD)) -DCMAKE_BUILD_TYPE=Release $(BACKEND_ARGS) $(CMAKE_ARGS)

build: configure
	cmake --build $(BUILD) -j $(JOBS)

cortex-m: deps
	cmake -S . -B $(BUILD_ARM) $(call generator,$(BUILD_ARM)) -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake \
	  -DCMAKE_BUILD_TYPE=Release -DTIGRIS_BUILD_TOOLS=OFF -DTIGRIS_BUILD_TESTS=OFF \
	  -DTIGRIS_CMSIS_NN_DIR=$(CMSIS_NN_DIR)
	cmake --build $(BUILD_ARM) -j $(JOBS)

test: build cortex-m
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# The demo builds only what it runs: the command and the demo model's generator.
demo: configure
	cmake --build $(BUILD) -j $(JOBS) --target tigris tigris-demo-model
	scripts/demo.sh $(BUILD)

# The command on the PATH (PREFIX/bin), its docs, the runtime's headers, library, CMake and
# pkg-config files (docs/firmware.md). `make install PREFIX=$$HOME/.local` needs no root.
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build
	scripts/bench.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ARM)
