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

# Components (one Debian package each, below): kiln (the executable, libkiln.so.*), dev (headers,
# libkiln.a, the libkiln.so link, CMake and pkg-config files), python (the Python package).
# `cmake --install build --component NAME` installs one of them.
install(TARGETS kiln RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT kiln)
install(FILES ${_kiln_merged} DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
if(KILN_BUILD_SHARED)
  install(TARGETS kiln_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT kiln
          NAMELINK_COMPONENT dev)
endif()
install(DIRECTORY include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)

# The manual page kiln.1 and the bash completion, generated from the program's own --help (`kiln
# help-man`, `kiln completion bash`) at build time, so they follow the CLI. A cross build runs
# its kiln under CMAKE_CROSSCOMPILING_EMULATOR (qemu, cmake/toolchains/debian-cross.cmake), or
# the host kiln of the same source given as KILN_DOC_KILN; with neither, both are left out (and
# from sanitizer and fuzzing builds).
set(KILN_DOC_KILN "" CACHE FILEPATH
    "A kiln that runs on the build machine, to generate kiln.1 and the completion (cross builds)")
set(_kiln_doc_run "")
set(KILN_DOCS_GENERATED OFF)
if(KILN_SANITIZE OR KILN_FUZZ)
  # not in sanitizer / fuzzing builds (nothing is packaged from them)
elseif(KILN_DOC_KILN)
  set(_kiln_doc_run "${KILN_DOC_KILN}")
elseif(NOT CMAKE_CROSSCOMPILING)
  set(_kiln_doc_run "$<TARGET_FILE:kiln>")
elseif(CMAKE_CROSSCOMPILING_EMULATOR)
  string(REPLACE ";" "|" _kiln_doc_run "${CMAKE_CROSSCOMPILING_EMULATOR}|$<TARGET_FILE:kiln>")
endif()
if(_kiln_doc_run)
  set(KILN_DOCS_GENERATED ON)
  set(_kiln_man ${CMAKE_BINARY_DIR}/kiln-install/kiln.1)
  set(_kiln_completion ${CMAKE_BINARY_DIR}/kiln-install/kiln.bash)
  add_custom_command(OUTPUT ${_kiln_man} ${_kiln_man}.gz
                     COMMAND ${CMAKE_COMMAND} -DKILN_RUN=${_kiln_doc_run} -DKILN_ARGS=help-man
                             -DKILN_OUT=${_kiln_man} -DKILN_GZIP=${_kiln_man}.gz
                             -P ${PROJECT_SOURCE_DIR}/cmake/KilnGenerateDoc.cmake
                     DEPENDS kiln ${PROJECT_SOURCE_DIR}/cmake/KilnGenerateDoc.cmake
                     COMMENT "Generating kiln.1 from kiln's --help" VERBATIM)
  add_custom_command(OUTPUT ${_kiln_completion}
                     COMMAND ${CMAKE_COMMAND} -DKILN_RUN=${_kiln_doc_run} "-DKILN_ARGS=completion|bash"
                             -DKILN_OUT=${_kiln_completion}
                             -P ${PROJECT_SOURCE_DIR}/cmake/KilnGenerateDoc.cmake
                     DEPENDS kiln ${PROJECT_SOURCE_DIR}/cmake/KilnGenerateDoc.cmake
                     COMMENT "Generating kiln's bash completion" VERBATIM)
  add_custom_target(kiln_docs ALL DEPENDS ${_kiln_man}.gz ${_kiln_completion})
  # gzipped, as Debian policy wants man pages (man reads them as they are).
  install(FILES ${_kiln_man}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT kiln)
  install(FILES ${_kiln_completion} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions
          RENAME kiln COMPONENT kiln)
elseif(NOT (KILN_SANITIZE OR KILN_FUZZ))
  message(STATUS "kiln.1 and the bash completion: not generated (a cross build without an "
                 "emulator; -DKILN_DOC_KILN=/path/to/host/kiln generates them)")
endif()

set(_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
file(RELATIVE_PATH KILN_CONFIG_TO_PREFIX /prefix/${_cmake_dir} /prefix)
configure_file(cmake/kilnConfig.cmake.in ${CMAKE_BINARY_DIR}/kiln-install/kilnConfig.cmake @ONLY)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/kiln-install/kilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/kiln-install/kilnConfig.cmake
              ${CMAKE_BINARY_DIR}/kiln-install/kilnConfigVersion.cmake DESTINATION ${_cmake_dir}
        COMPONENT dev)

set(_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH KILN_PC_TO_PREFIX /prefix/${_pc_dir} /prefix)
configure_file(cmake/kiln.pc.in ${CMAKE_BINARY_DIR}/kiln-install/kiln.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/kiln-install/kiln.pc DESTINATION ${_pc_dir} COMPONENT dev)

# The Python package (ctypes over libkiln.so: useful with KILN_BUILD_SHARED).
set(KILN_PYTHON_DIR lib/python3/dist-packages CACHE STRING "Where the kiln Python package goes")
if(KILN_BUILD_SHARED)
  install(DIRECTORY python/kiln DESTINATION ${KILN_PYTHON_DIR} COMPONENT python
          PATTERN __pycache__ EXCLUDE)
endif()

# Debian packages (cpack -G DEB in the build folder, or cpack --config build/CPackConfig.cmake
# -B DIR): one per component, Depends of the binaries from dpkg-shlibdeps.
#   kiln          bin/kiln, libkiln.so.MAJOR.MINOR (+ shlibs), kiln.1.gz, bash completion, docs
#   libkiln-dev   include/kiln, libkiln.a, libkiln.so, lib/cmake/kiln, lib/pkgconfig/kiln.pc
#   python3-kiln  lib/python3/dist-packages/kiln (Architecture: all; Depends kiln, python3-numpy)
# A cross build (cmake/toolchains/) gives the target's architecture; its libraries live in a
# sysroot dpkg does not know (scripts/setup-cross.sh), so dpkg-shlibdeps cannot run there and
# kiln's Depends are KILN_DEB_RUNTIME_DEPENDS instead: the same Debian 12 packages shlibdeps
# gives on amd64 (the ctest api.deb_packages checks that the two lists name the same packages).
set(KILN_DEB_RUNTIME_DEPENDS_DEFAULT
    "libarchive13 (>= 3.0.4), libc6 (>= 2.34), libfmt9 (>= 9.1.0+ds1), libgcc-s1 (>= 3.0), libonnx1 (>= 1.12.0), libprotobuf32 (>= 3.21.12), libre2-9 (>= 0+hg23), libspdlog1.10-fmt9, libstdc++6 (>= 12)")
# ImageDecoder's codec libraries, when the build found them (CMakeLists.txt: KILN_IMAGE_LIBS).
if("jpeg" IN_LIST KILN_IMAGE_LIBS)
  string(APPEND KILN_DEB_RUNTIME_DEPENDS_DEFAULT ", libjpeg62-turbo (>= 1.3.1)")
endif()
if("png16" IN_LIST KILN_IMAGE_LIBS)
  string(APPEND KILN_DEB_RUNTIME_DEPENDS_DEFAULT ", libpng16-16 (>= 1.6.2)")
endif()
if("webp" IN_LIST KILN_IMAGE_LIBS)
  string(APPEND KILN_DEB_RUNTIME_DEPENDS_DEFAULT ", libwebp7 (>= 1.2.4)")
endif()
set(KILN_DEB_RUNTIME_DEPENDS "" CACHE STRING
    "The kiln package's Depends in cross builds (no dpkg-shlibdeps there); empty: Debian 12's")
if(NOT KILN_DEB_RUNTIME_DEPENDS)
  set(KILN_DEB_RUNTIME_DEPENDS "${KILN_DEB_RUNTIME_DEPENDS_DEFAULT}")
endif()
set(KILN_DEB_MAINTAINER "kiln developers <kiln-dev@localhost>" CACHE STRING
    "The Debian packages' Maintainer (lintian wants a real address)")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kiln)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${KILN_DEB_MAINTAINER}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_COMPONENTS_ALL kiln dev)
if(KILN_BUILD_SHARED)
  list(APPEND CPACK_COMPONENTS_ALL python)
endif()
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE armhf)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()

# Descriptions: the synopsis, then lines CPack indents by one space (an empty line: " .").
set(_kiln_deb_long
    "kiln loads ONNX models, TensorFlow frozen graphs and NNEF, optimizes them for\nthe CPU it runs on (AVX-512, AVX2, NEON kernels), runs, benchmarks and profiles\nthem, and converts them to NNEF.\n")
# Each package's /usr/share/doc/<package>: copyright and changelog.gz (Debian policy).
set(_kiln_doc ${CMAKE_BINARY_DIR}/kiln-install/doc)
string(TIMESTAMP _kiln_doc_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${_kiln_doc}/changelog
     "kiln (${PROJECT_VERSION}) unstable; urgency=medium\n\n  * Built from the kiln source tree by CPack.\n\n -- ${KILN_DEB_MAINTAINER}  ${_kiln_doc_date}\n")
file(ARCHIVE_CREATE OUTPUT ${_kiln_doc}/changelog.gz PATHS ${_kiln_doc}/changelog FORMAT raw
     COMPRESSION GZip COMPRESSION_LEVEL 9)
file(WRITE ${_kiln_doc}/copyright
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: kiln\n\nFiles: *\nCopyright: 2026 the kiln developers\nLicense: undeclared\n The kiln source tree does not declare a license yet.\n")
foreach(_pair "kiln;kiln" "dev;libkiln-dev" "python;python3-kiln")
  list(GET _pair 0 _component)
  list(GET _pair 1 _package)
  if(_component STREQUAL "python" AND NOT KILN_BUILD_SHARED)
    continue()
  endif()
  install(FILES ${_kiln_doc}/copyright ${_kiln_doc}/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${_package} COMPONENT ${_component})
endforeach()

set(CPACK_DEBIAN_KILN_PACKAGE_NAME kiln)
set(CPACK_DEBIAN_KILN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_KILN_DESCRIPTION
    "neural-network inference for small CPUs\n${_kiln_deb_long}\nThis package holds the kiln command and the shared library libkiln.")
if(KILN_BUILD_SHARED)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)  # only kiln holds a shared library
  # dpkg's ldconfig trigger (lintian: lacks-ldconfig-trigger); CPack's postinst/postrm also
  # call ldconfig (lintian warns: maintscript-calls-ldconfig).
  file(WRITE ${_kiln_doc}/triggers "activate-noawait ldconfig\n")
  set(CPACK_DEBIAN_KILN_PACKAGE_CONTROL_EXTRA ${_kiln_doc}/triggers)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
endif()
if(CMAKE_CROSSCOMPILING)
  set(CPACK_DEBIAN_KILN_PACKAGE_DEPENDS "${KILN_DEB_RUNTIME_DEPENDS}")
else()
  set(CPACK_DEBIAN_KILN_PACKAGE_SHLIBDEPS ON)
endif()

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libkiln-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS kiln)
set(CPACK_DEBIAN_DEV_DESCRIPTION
    "neural-network inference for small CPUs - development files\n${_kiln_deb_long}\nThis package holds the C and C++ headers, the static library libkiln.a, the\nlibkiln.so link, the CMake package (find_package(kiln)) and kiln.pc.")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-kiln)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_DEBIAN_PYTHON_PACKAGE_ARCHITECTURE all)
set(CPACK_COMPONENT_PYTHON_DEPENDS kiln)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3:any, python3-numpy")
set(CPACK_DEBIAN_PYTHON_DESCRIPTION
    "neural-network inference for small CPUs - Python module\n${_kiln_deb_long}\nThis package holds the kiln Python module (ctypes over libkiln, numpy arrays).")
include(CPack)
