# Copied to CMakeLists.txt of a scratch folder by check_package.cmake (a CMakeLists.txt here
# would be taken for a test suite by tests/CMakeLists.txt).
# A project that takes TiGrIS from an installed prefix: find_package(tigris) -> tigris::runtime.
cmake_minimum_required(VERSION 3.20)
project(tigris_consumer C CXX)
find_package(tigris 0.13 REQUIRED COMPONENTS runtime)
add_executable(consumer ${CMAKE_CURRENT_LIST_DIR}/consumer.c)
target_link_libraries(consumer PRIVATE tigris::runtime)
set_target_properties(consumer PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON)
if(CMAKE_CROSSCOMPILING)
  target_link_options(consumer PRIVATE --specs=nosys.specs)  # newlib's stubs: a firmware image links
endif()
