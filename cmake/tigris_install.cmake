# What `cmake --install` (make install) puts under the prefix:
#   bin/tigris                              the command (with the host tools)
#   share/doc/tigris/                       README.md and docs/*.md
#   include/tigris/*.h                      the runtime's public C headers
#   lib/libtigris_runtime.a                 the runtime (plus the adapters' libraries when built)
#   lib/cmake/tigris/tigrisConfig.cmake     find_package(tigris [COMPONENTS cmsis_nn esp_nn]) -> tigris::runtime
#   lib/pkgconfig/tigris.pc                 pkg-config --cflags --libs tigris
# docs/firmware.md describes the package; tests/package builds projects against it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(tigris_runtime PROPERTIES EXPORT_NAME runtime)  # tigris::runtime
install(TARGETS tigris_runtime EXPORT tigrisTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
file(GLOB tigris_public_headers ${CMAKE_SOURCE_DIR}/runtime/include/*.h)
install(FILES ${tigris_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tigris COMPONENT runtime)

# The adapters are compiled into libtigris_runtime.a; their libraries are installed beside it
# and imported by the config file as tigris::cmsis_nn / tigris::esp_nn.
set(TIGRIS_INSTALLED_COMPONENTS runtime)
set(tigris_pc_private_libs "")
foreach(adapter cmsis_nn esp_nn)
  string(TOUPPER ${adapter} upper)
  string(REPLACE "_" "-" lib_target ${adapter})
  get_property(built GLOBAL PROPERTY TIGRIS_BACKEND_${upper})  # set by cmake/tigris_backends.cmake
  if(built)
    install(FILES $<TARGET_FILE:${lib_target}> DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
    list(APPEND TIGRIS_INSTALLED_COMPONENTS ${adapter})
    string(APPEND tigris_pc_private_libs " -l${lib_target}")
  endif()
endforeach()

install(EXPORT tigrisTargets NAMESPACE tigris:: FILE tigrisTargets.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tigris COMPONENT runtime)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/tigrisConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/tigrisConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tigris)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/tigrisConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/tigrisConfig.cmake ${CMAKE_BINARY_DIR}/package/tigrisConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tigris COMPONENT runtime)

# pkg-config: -lm always (the runtime calls expf, floorf...; newlib has a libm too). CMake's
# imported target gets it on the host, and from the C++ link driver on a cross build.
set(tigris_pc_libm " -lm")
set(tigris_pc_cflags "")
get_target_property(tigris_defs tigris_runtime INTERFACE_COMPILE_DEFINITIONS)
if(tigris_defs)
  foreach(d ${tigris_defs})
    string(APPEND tigris_pc_cflags " -D${d}")
  endforeach()
endif()
# The prefix is found from the .pc file's own place, so --prefix at install time holds.
file(RELATIVE_PATH tigris_pc_to_prefix "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" tigris_pc_to_prefix "${tigris_pc_to_prefix}")
configure_file(${CMAKE_SOURCE_DIR}/cmake/tigris.pc.in ${CMAKE_BINARY_DIR}/package/tigris.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/tigris.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT runtime)

# The command and its documentation (host builds with the tools).
if(TARGET tigris)
  install(TARGETS tigris RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT cli)
  file(GLOB tigris_docs ${CMAKE_SOURCE_DIR}/docs/*.md)
  install(FILES ${CMAKE_SOURCE_DIR}/README.md ${tigris_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT cli)
endif()
