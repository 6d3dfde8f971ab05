# The runtime as an ESP-IDF component (runtime/CMakeLists.txt includes this when ESP-IDF's
# build sets ESP_PLATFORM; runtime/idf_component.yml is its manifest). The same sources as
# every other build, plus the ESP-NN adapter over the espressif/esp-nn component the manifest
# brings (its Xtensa/RISC-V kernels on ESP32-S3 and -P4). docs/firmware.md says what of this
# was checked without the SDK.
set(tigris_runtime_dir ${CMAKE_CURRENT_LIST_DIR}/../runtime)
file(GLOB_RECURSE tigris_runtime_sources ${tigris_runtime_dir}/src/*.cpp)
list(FILTER tigris_runtime_sources EXCLUDE REGEX "/src/backends/")
file(GLOB tigris_esp_nn_adapter ${tigris_runtime_dir}/src/backends/common/*.cpp
     ${tigris_runtime_dir}/src/backends/esp_nn/*.cpp)

# esp-nn is required through the manifest; idf_component_register returns early (the IDF's
# first, requirements-only pass over this file) before the lines below it.
idf_component_register(SRCS ${tigris_runtime_sources} ${tigris_esp_nn_adapter}
                       INCLUDE_DIRS ${tigris_runtime_dir}/include
                       PRIV_INCLUDE_DIRS ${tigris_runtime_dir}/src)

target_compile_options(${COMPONENT_LIB} PRIVATE
  $<$<COMPILE_LANGUAGE:CXX>:-std=gnu++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics>)
target_compile_definitions(${COMPONENT_LIB} PUBLIC TIGRIS_HAS_ESP_NN=1)
# esp_nn.h picks its optimized kernels from CONFIG_NN_OPTIMIZED and CONFIG_IDF_TARGET_*, which
# only sdkconfig.h defines; the adapter's sources read it first.
set_source_files_properties(${tigris_esp_nn_adapter} PROPERTIES COMPILE_OPTIONS "-include;sdkconfig.h")
