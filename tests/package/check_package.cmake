# cmake -DMODE=install|subdirectory -DSOURCE=<tigris tree> -DWORK=<scratch dir> [-DBUILD=<configured tree>]
#       [-DTOOLCHAIN=<toolchain file>] [-DRUN=1] [-DLAUNCHER=ccache] -P check_package.cmake
# install:      cmake --install BUILD into WORK/prefix, then build consumer.cmake's project against
#               it with find_package, and consumer.c with the compiler and pkg-config alone.
# subdirectory: build firmware.cmake's project, which adds SOURCE/runtime with add_subdirectory.
# RUN=1 runs what was built (host builds).
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
# A project of its own, in a scratch folder: its CMakeLists.txt and the C program.
function(stage_project name)
  file(MAKE_DIRECTORY ${WORK}/${name}-src)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${name}.cmake ${WORK}/${name}-src/CMakeLists.txt COPYONLY)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/consumer.c ${WORK}/${name}-src/consumer.c COPYONLY)
endfunction()
set(configure_args)
if(TOOLCHAIN)
  list(APPEND configure_args -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN})
endif()
if(LAUNCHER)
  list(APPEND configure_args -DCMAKE_C_COMPILER_LAUNCHER=${LAUNCHER} -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
endif()

if(MODE STREQUAL "install")
  if(NOT EXISTS ${BUILD}/CMakeCache.txt)
    message("SKIPPED: no build tree ${BUILD} to install (make cortex-m builds the Cortex-M4 one)")
    return()
  endif()
  set(prefix ${WORK}/prefix)
  run(${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix})
  foreach(f include/tigris/tigris.h include/tigris/tigris_executor.h lib/libtigris_runtime.a
            lib/cmake/tigris/tigrisConfig.cmake lib/cmake/tigris/tigrisConfigVersion.cmake lib/pkgconfig/tigris.pc)
    if(NOT EXISTS ${prefix}/${f})
      message(FATAL_ERROR "cmake --install wrote no ${f}")
    endif()
  endforeach()
  file(READ ${BUILD}/CMakeCache.txt cache)
  if(cache MATCHES "TIGRIS_BUILD_TOOLS:BOOL=ON")
    # A host build with the tools also installs the command and its documentation.
    foreach(f bin/tigris share/doc/tigris/README.md share/doc/tigris/cli.md share/doc/tigris/python.md)
      if(NOT EXISTS ${prefix}/${f})
        message(FATAL_ERROR "cmake --install wrote no ${f}")
      endif()
    endforeach()
    run(${prefix}/bin/tigris --version)
  endif()

  # find_package(tigris) from a project of its own.
  stage_project(consumer)
  run(${CMAKE_COMMAND} -S ${WORK}/consumer-src -B ${WORK}/cmake -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_BUILD_TYPE=Release ${configure_args})
  run(${CMAKE_COMMAND} --build ${WORK}/cmake)
  # A component this installation was built without is refused with the reason; one it was
  # built with is found.
  set(missing "")
  set(built "")
  foreach(adapter cmsis_nn esp_nn)
    string(TOUPPER ${adapter} var)
    if(cache MATCHES "TIGRIS_${var}_DIR:PATH=[^\n]+")
      list(APPEND built ${adapter})
    elseif(NOT missing)
      set(missing ${adapter})
    endif()
  endforeach()
  if(missing)
    set(expect "built without the ${missing} adapter")
  else()
    set(missing npu)
    set(expect "no component npu")
  endif()
  file(WRITE ${WORK}/missing/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.20)\nproject(m C CXX)\nfind_package(tigris REQUIRED COMPONENTS ${missing})\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/missing -B ${WORK}/missing/build -DCMAKE_PREFIX_PATH=${prefix}
                          ${configure_args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  # CMake wraps the reason's lines at a width that depends on the prefix's path length.
  string(REGEX REPLACE "[ \n]+" " " said "${out}${err}")
  if(rc EQUAL 0 OR NOT "${said}" MATCHES "${expect}")
    message(FATAL_ERROR "find_package(tigris COMPONENTS ${missing}) of a build without it:\n${out}${err}")
  endif()
  foreach(adapter ${built})
    file(WRITE ${WORK}/${adapter}/CMakeLists.txt
         "cmake_minimum_required(VERSION 3.20)\nproject(m C CXX)\nfind_package(tigris REQUIRED COMPONENTS ${adapter})\n"
         "if(NOT TARGET tigris::${adapter})\n  message(FATAL_ERROR \"no tigris::${adapter}\")\nendif()\n")
    run(${CMAKE_COMMAND} -S ${WORK}/${adapter} -B ${WORK}/${adapter}/build -DCMAKE_PREFIX_PATH=${prefix}
        ${configure_args})
  endforeach()

  # pkg-config and the C compiler alone.
  find_program(PKG_CONFIG pkg-config REQUIRED)
  set(ENV{PKG_CONFIG_LIBDIR} ${prefix}/lib/pkgconfig)
  run(${PKG_CONFIG} --cflags tigris)
  string(STRIP "${last_output}" cflags)
  run(${PKG_CONFIG} --libs tigris)
  string(STRIP "${last_output}" libs)
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  separate_arguments(libs UNIX_COMMAND "${libs}")
  if(TOOLCHAIN)
    set(cc arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16)
    set(extra --specs=nosys.specs)
  else()
    set(cc cc)
    set(extra)
  endif()
  run(${cc} -std=c99 -pedantic -Wall -Wextra -Werror ${cflags} ${CMAKE_CURRENT_LIST_DIR}/consumer.c ${libs} ${extra}
      -o ${WORK}/pkgconfig-consumer)
  set(programs ${WORK}/cmake/consumer ${WORK}/pkgconfig-consumer)
elseif(MODE STREQUAL "subdirectory")
  stage_project(firmware)
  run(${CMAKE_COMMAND} -S ${WORK}/firmware-src -B ${WORK}/build -DTIGRIS_SOURCE_DIR=${SOURCE}
      -DCMAKE_BUILD_TYPE=Release ${configure_args})
  # Nothing but the compilers was looked for: no package of the host tools is in the cache.
  file(STRINGS ${WORK}/build/CMakeCache.txt found REGEX "^(Protobuf|ONNX|FlatBuffers|CLI11|fmt|GTest|nlohmann|ZLIB|LZ4|Python3|pybind11)")
  if(found)
    message(FATAL_ERROR "add_subdirectory(runtime) looked for host packages:\n${found}")
  endif()
  run(${CMAKE_COMMAND} --build ${WORK}/build -j 2)
  set(programs ${WORK}/build/firmware)
else()
  message(FATAL_ERROR "MODE must be install or subdirectory")
endif()

foreach(p ${programs})
  if(NOT EXISTS ${p})
    message(FATAL_ERROR "no ${p} was built")
  endif()
  if(RUN)
    run(${p})
    message(STATUS "${p}: ${last_output}")
  endif()
endforeach()
