# Accelerated int8 backends (docs/backends.md). Sources under runtime/src/backends/ stay out of
# the default build; each adapter is compiled into the runtime only when its library's source
# tree is given, and that library is then built from the given tree:
#   -DTIGRIS_CMSIS_NN_DIR=<CMSIS-NN tree>  CMSIS-NN adapter, TIGRIS_HAS_CMSIS_NN (target cmsis-nn:
#                                           the tree's sources the adapter calls)
#   -DTIGRIS_ESP_NN_DIR=<esp-nn tree>      ESP-NN adapter, TIGRIS_HAS_ESP_NN (its portable C
#                                           sources; TIGRIS_ESP_NN_OPTIMIZED picks the generic
#                                           optimized variants over the ANSI reference ones)
# A parent project that already defines the target cmsis-nn or esp-nn is used as is.
set(TIGRIS_CMSIS_NN_DIR "" CACHE PATH "CMSIS-NN source tree; builds the CMSIS-NN adapter")
set(TIGRIS_ESP_NN_DIR "" CACHE PATH "esp-nn source tree; builds the ESP-NN adapter")
option(TIGRIS_ESP_NN_OPTIMIZED "Build esp-nn's generic optimized C kernels (CONFIG_NN_OPTIMIZED)" OFF)

set(TIGRIS_BACKENDS_SRC ${CMAKE_CURRENT_LIST_DIR}/../runtime/src/backends)
set(TIGRIS_BACKEND_CMSIS_NN OFF)
set(TIGRIS_BACKEND_ESP_NN OFF)

if(TIGRIS_CMSIS_NN_DIR)
  if(NOT TARGET cmsis-nn)
    if(NOT EXISTS ${TIGRIS_CMSIS_NN_DIR}/Include/arm_nnfunctions.h)
      message(FATAL_ERROR "TIGRIS_CMSIS_NN_DIR=${TIGRIS_CMSIS_NN_DIR} is not a CMSIS-NN source tree "
                          "(no Include/arm_nnfunctions.h)")
    endif()
    # Only the sources the adapter's calls reach (the closure of runtime/src/backends/cmsis_nn's
    # arm_* references, on the host, the DSP cores and MVE, read off the linker's map): 30 of
    # the tree's 175 files, where its own CMakeLists.txt compiles them all, once per core. A
    # new CMSIS-NN call in the adapter that needs another file fails to link until it is added.
    # Flags as CMSIS-NN's CMakeLists.txt sets them (-Ofast, float extensions off).
    set(cmsis_nn_sources
        BasicMathFunctions/arm_elementwise_add_s8.c BasicMathFunctions/arm_elementwise_mul_s8.c
        BasicMathFunctions/arm_maximum_s8.c BasicMathFunctions/arm_minimum_s8.c
        ConvolutionFunctions/arm_convolve_1_x_n_s8.c ConvolutionFunctions/arm_convolve_1x1_s8.c
        ConvolutionFunctions/arm_convolve_1x1_s8_fast.c ConvolutionFunctions/arm_convolve_get_buffer_sizes_s8.c
        ConvolutionFunctions/arm_convolve_s8.c ConvolutionFunctions/arm_convolve_wrapper_s8.c
        ConvolutionFunctions/arm_depthwise_conv_3x3_s8.c ConvolutionFunctions/arm_depthwise_conv_get_buffer_sizes_s8.c
        ConvolutionFunctions/arm_depthwise_conv_s8.c ConvolutionFunctions/arm_depthwise_conv_s8_opt.c
        ConvolutionFunctions/arm_depthwise_conv_wrapper_s8.c ConvolutionFunctions/arm_nn_mat_mult_kernel_row_offset_s8_s16.c
        ConvolutionFunctions/arm_nn_mat_mult_kernel_s8_s16.c
        FullyConnectedFunctions/arm_fully_connected_get_buffer_sizes_s8.c
        FullyConnectedFunctions/arm_fully_connected_per_channel_s8.c FullyConnectedFunctions/arm_fully_connected_s8.c
        FullyConnectedFunctions/arm_vector_sum_s8.c
        NNSupportFunctions/arm_nn_depthwise_conv_nt_t_s8.c NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c
        NNSupportFunctions/arm_nn_vec_mat_mult_t_per_ch_s8.c NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c
        NNSupportFunctions/arm_q7_to_q15_with_offset.c NNSupportFunctions/arm_s8_to_s16_unordered_with_offset.c
        PoolingFunctions/arm_avgpool_get_buffer_sizes_s8.c PoolingFunctions/arm_avgpool_s8.c
        TransposeFunctions/arm_transpose_s8.c)
    list(TRANSFORM cmsis_nn_sources PREPEND ${TIGRIS_CMSIS_NN_DIR}/Source/)
    add_library(cmsis-nn STATIC ${cmsis_nn_sources})
    target_include_directories(cmsis-nn PUBLIC $<BUILD_INTERFACE:${TIGRIS_CMSIS_NN_DIR}/Include>)
    target_compile_definitions(cmsis-nn PUBLIC ARM_NN_ENABLE_F32=0 ARM_NN_ENABLE_F16=0)
    target_compile_options(cmsis-nn PRIVATE -Ofast)
    set_target_properties(cmsis-nn PROPERTIES UNITY_BUILD OFF)  # vendor sources compile one by one
  endif()
  set(TIGRIS_BACKEND_CMSIS_NN ON)
  message(STATUS "backends: CMSIS-NN adapter from ${TIGRIS_CMSIS_NN_DIR}")
endif()

if(TIGRIS_ESP_NN_DIR)
  if(NOT TARGET esp-nn)
    if(NOT EXISTS ${TIGRIS_ESP_NN_DIR}/include/esp_nn.h)
      message(FATAL_ERROR "TIGRIS_ESP_NN_DIR=${TIGRIS_ESP_NN_DIR} is not an esp-nn source tree (no include/esp_nn.h)")
    endif()
    # The portable C kernels (the ESP-IDF component build adds the Xtensa/RISC-V assembly).
    file(GLOB esp_nn_sources ${TIGRIS_ESP_NN_DIR}/src/*/*_ansi.c ${TIGRIS_ESP_NN_DIR}/src/*/*_opt.c)
    add_library(esp-nn STATIC ${esp_nn_sources})
    target_include_directories(esp-nn PUBLIC ${TIGRIS_ESP_NN_DIR}/include PRIVATE ${TIGRIS_ESP_NN_DIR}/src/common)
    target_compile_options(esp-nn PRIVATE -O2 -Wno-unused-function)
    # Its sources share static helper names: they compile one by one, never as a unity batch.
    set_target_properties(esp-nn PROPERTIES POSITION_INDEPENDENT_CODE ON UNITY_BUILD OFF)
    if(TIGRIS_ESP_NN_OPTIMIZED)
      target_compile_definitions(esp-nn PUBLIC CONFIG_NN_OPTIMIZED=1)
    endif()
  endif()
  set(TIGRIS_BACKEND_ESP_NN ON)
  message(STATUS "backends: ESP-NN adapter from ${TIGRIS_ESP_NN_DIR} (optimized: ${TIGRIS_ESP_NN_OPTIMIZED})")
endif()

# Other folders (tests/backends) read which adapters this build has.
set_property(GLOBAL PROPERTY TIGRIS_BACKEND_CMSIS_NN ${TIGRIS_BACKEND_CMSIS_NN})
set_property(GLOBAL PROPERTY TIGRIS_BACKEND_ESP_NN ${TIGRIS_BACKEND_ESP_NN})

# tigris_attach_backends(<runtime target>): adds the configured adapters to a runtime library.
function(tigris_attach_backends target)
  if(NOT TIGRIS_BACKEND_CMSIS_NN AND NOT TIGRIS_BACKEND_ESP_NN)
    return()
  endif()
  file(GLOB common ${TIGRIS_BACKENDS_SRC}/common/*.cpp)
  list(FILTER common EXCLUDE REGEX "/accel_routes\\.cpp$")  # already in every runtime
  target_sources(${target} PRIVATE ${common})
  if(TIGRIS_BACKEND_CMSIS_NN)
    file(GLOB cmsis ${TIGRIS_BACKENDS_SRC}/cmsis_nn/*.cpp)
    target_sources(${target} PRIVATE ${cmsis})
    target_compile_definitions(${target} PUBLIC TIGRIS_HAS_CMSIS_NN=1)
    # Installed, the library is tigris::cmsis_nn (cmake/tigrisConfig.cmake.in).
    target_link_libraries(${target} PUBLIC $<BUILD_INTERFACE:cmsis-nn> $<INSTALL_INTERFACE:tigris::cmsis_nn>)
  endif()
  if(TIGRIS_BACKEND_ESP_NN)
    file(GLOB esp ${TIGRIS_BACKENDS_SRC}/esp_nn/*.cpp)
    target_sources(${target} PRIVATE ${esp})
    target_compile_definitions(${target} PUBLIC TIGRIS_HAS_ESP_NN=1)
    target_link_libraries(${target} PUBLIC $<BUILD_INTERFACE:esp-nn> $<INSTALL_INTERFACE:tigris::esp_nn>)
  endif()
endfunction()
