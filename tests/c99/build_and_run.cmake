# Compile the C99 API program with strict flags, link it with plain cc, run it.
execute_process(
  COMMAND ${CC} -std=c99 -pedantic -Wall -Wextra -Werror -I${INCLUDE} ${SRC} ${LIB} -lm -o ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "C99 build failed:\n${out}${err}")
endif()
execute_process(COMMAND ${OUT} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "C99 program failed (${rc}):\n${out}${err}")
endif()
message(STATUS "${out}")
