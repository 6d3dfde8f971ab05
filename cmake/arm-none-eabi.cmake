# Cross toolchain for the Cortex-M4 runtime archive (make cortex-m).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# -ffp-contract=off: no fused multiply-adds, so float32 plans give the same bytes as the host
# build (x86-64 does not fuse either); tests/embedded compares them byte for byte.
set(TIGRIS_CORTEX_M_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -ffp-contract=off -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${TIGRIS_CORTEX_M_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${TIGRIS_CORTEX_M_FLAGS}")
set(CMAKE_C_FLAGS_RELEASE "-Os" CACHE STRING "" FORCE)
set(CMAKE_CXX_FLAGS_RELEASE "-Os" CACHE STRING "" FORCE)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
