# Copied to CMakeLists.txt of a scratch folder by check_package.cmake.
# A firmware project that builds the runtime from source with add_subdirectory, as one would
# vendor the TiGrIS tree: no find_package, no host library, only the compilers.
cmake_minimum_required(VERSION 3.20)
project(tigris_firmware C CXX)
add_subdirectory(${TIGRIS_SOURCE_DIR}/runtime tigris)
add_executable(firmware ${CMAKE_CURRENT_LIST_DIR}/consumer.c)
target_link_libraries(firmware PRIVATE tigris_runtime)
if(CMAKE_CROSSCOMPILING)
  target_link_options(firmware PRIVATE --specs=nosys.specs)
endif()
