# cmake --install: the kiln executable, libkiln (libkiln.so when KILN_BUILD_SHARED, and libkiln.a
# holding the API and every internal library), include/kiln/, a CMake package (kiln::kiln), a
# pkg-config file (kiln.pc) and the Python package. docs/api.md.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# One static archive for other programs: the API objects and the internal libraries (ar MRI).
set(_kiln_archives kiln_static kiln_io kiln_tf_proto kiln_passes kiln_ops kiln_core kiln_base)
if(KILN_KERNELS_SOURCES)
  list(APPEND _kiln_archives kiln_kernels)
endif()
set(_kiln_merged ${CMAKE_BINARY_DIR}/kiln-install/libkiln.a)
set(_mri "create ${_kiln_merged}\n")
set(_deps "")
foreach(lib ${_kiln_archives})
  string(APPEND _mri "addlib $<TARGET_FILE:${lib}>\n")
  list(APPEND _deps ${lib})
endforeach()
string(APPEND _mri "save\nend\n")
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/kiln-install/merge.mri CONTENT "${_mri}")
add_custom_command(OUTPUT ${_kiln_merged}
                   COMMAND ${CMAKE_COMMAND} -E rm -f ${_kiln_merged}
                   COMMAND sh -c "${CMAKE_AR} -M < ${CMAKE_BINARY_DIR}/kiln-install/merge.mri"
                   DEPENDS ${_deps} ${CMAKE_BINARY_DIR}/kiln-install/merge.mri
                   COMMENT "Merging the static libraries into libkiln.a" VERBATIM)
add_custom_target(kiln_archive ALL DEPENDS ${_kiln_merged})

# What a program linking libkiln.a also needs (Debian's shared libraries).
set(KILN_STATIC_DEPS "onnx_proto;protobuf;archive;spdlog;fmt")
set(KILN_PC_LIBS_PRIVATE "-lonnx_proto -lprotobuf -larchive -lspdlog -lfmt -lstdc++ -lm -lpthread")
if(KILN_BUILD_SHARED)
  set(KILN_PC_LIBS "")
else()
  set(KILN_PC_LIBS "${KILN_PC_LIBS_PRIVATE}")  # libkiln.a only: the dependencies always
endif()

install(TARGETS kiln RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${_kiln_merged} DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(KILN_BUILD_SHARED)
  install(TARGETS kiln_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(DIRECTORY include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
file(RELATIVE_PATH KILN_CONFIG_TO_PREFIX /prefix/${_cmake_dir} /prefix)
configure_file(cmake/kilnConfig.cmake.in ${CMAKE_BINARY_DIR}/kiln-install/kilnConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kiln-install/kilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kiln-install/kilnConfig.cmake
              ${CMAKE_BINARY_DIR}/kiln-install/kilnConfigVersion.cmake DESTINATION ${_cmake_dir})

set(_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH KILN_PC_TO_PREFIX /prefix/${_pc_dir} /prefix)
configure_file(cmake/kiln.pc.in ${CMAKE_BINARY_DIR}/kiln-install/kiln.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kiln-install/kiln.pc DESTINATION ${_pc_dir})

# The Python package (ctypes over libkiln.so: useful with KILN_BUILD_SHARED).
set(KILN_PYTHON_DIR lib/python3/dist-packages CACHE STRING "Where the kiln Python package goes")
if(KILN_BUILD_SHARED)
  install(DIRECTORY python/kiln DESTINATION ${KILN_PYTHON_DIR} PATTERN __pycache__ EXCLUDE)
endif()
