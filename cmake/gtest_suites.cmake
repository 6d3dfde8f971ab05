# Script mode (tests/CMakeLists.txt runs it after a suite's executable is linked): lists the
# GoogleTest suites of EXE and writes OUT, a CTest file with one test per GoogleTest suite,
# named "<exe>:<suite>.*" (suite names repeat across executables: Conv, Softmax...) and run as
# `EXE --gtest_filter=<suite>.*`. A suite's tests share one process:
# starting a process per test cost more than most tests (measured: 254 tests of one suite, 12 s
# of CPU as 254 CTest cases, 0.4 s as one). With PER_TEST set, one test per GoogleTest test
# instead (the ONNX node tests: a failure names the node test).
#   cmake -DEXE=<exe> -DOUT=<file> -DWORKDIR=<dir> [-DPER_TEST=1] -P gtest_suites.cmake
execute_process(COMMAND "${EXE}" --gtest_list_tests WORKING_DIRECTORY "${WORKDIR}"
                OUTPUT_VARIABLE listing RESULT_VARIABLE status TIMEOUT 120)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${EXE} --gtest_list_tests failed (${status}):\n${listing}")
endif()
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
get_filename_component(exe_name "${EXE}" NAME_WE)
set(names "")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( +#.*)?$")
    set(suite "${CMAKE_MATCH_1}")
    if(NOT PER_TEST)
      list(APPEND names "${exe_name}:${suite}.*")
    endif()
  elseif(PER_TEST AND line MATCHES "^  ([^ #]+)( +#.*)?$")
    list(APPEND names "${suite}.${CMAKE_MATCH_1}")
  endif()
endforeach()
set(text "")
foreach(name IN LISTS names)
  string(REGEX REPLACE "^[^:]*:" "" filter "${name}")
  string(APPEND text "add_test([==[${name}]==] [==[${EXE}]==] [==[--gtest_filter=${filter}]==])\n"
         "set_tests_properties([==[${name}]==] PROPERTIES WORKING_DIRECTORY [==[${WORKDIR}]==] SKIP_RETURN_CODE 77)\n")
endforeach()
file(WRITE "${OUT}" "${text}")
