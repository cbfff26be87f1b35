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
set(KILN_STATIC_DEPS "onnx_proto;protobuf;archive;re2;${KILN_IMAGE_LIBS};spdlog;fmt")
list(REMOVE_ITEM KILN_STATIC_DEPS "")
set(_kiln_image_flags "")
foreach(_lib ${KILN_IMAGE_LIBS})
  string(APPEND _kiln_image_flags " -l${_lib}")
endforeach()
set(KILN_PC_LIBS_PRIVATE
    "-lonnx_proto -lprotobuf -larchive -lre2${_kiln_image_flags} -lspdlog -lfmt -lstdc++ -lm -lpthread")
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

# Debian package (cpack -G DEB in the build folder): one package `kiln` with the executable,
# libkiln, headers, CMake and pkg-config files and the Python package; Depends from
# dpkg-shlibdeps. A cross build (cmake/toolchains/) gives the target's architecture.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kiln)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "kiln developers <kiln-dev@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Neural-network inference for small CPUs: kiln command, C/C++ library, Python module")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "kiln loads ONNX models, TensorFlow frozen graphs and NNEF, optimizes them for the CPU it runs\non, runs, benchmarks and profiles them, and converts them to NNEF. This package holds the\nkiln command, libkiln (shared when built, and static) with its C and C++ headers, CMake and\npkg-config files, and the kiln Python module (ctypes, numpy).")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-numpy")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
include(CPack)
