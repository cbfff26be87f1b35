# Finds Google's RE2 regular expression library (Debian: libre2-dev), which has no CMake
# package file: through pkg-config when it works (native builds), else by header and library
# search (cross builds, where the sysroot is searched through CMAKE_FIND_ROOT_PATH).
# Defines RE2_FOUND and the imported target RE2::re2.
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND AND NOT CMAKE_CROSSCOMPILING)
  pkg_check_modules(PC_RE2 QUIET re2)
endif()
find_path(RE2_INCLUDE_DIR re2/re2.h HINTS ${PC_RE2_INCLUDE_DIRS})
find_library(RE2_LIBRARY NAMES re2 HINTS ${PC_RE2_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(RE2 REQUIRED_VARS RE2_LIBRARY RE2_INCLUDE_DIR)
if(RE2_FOUND AND NOT TARGET RE2::re2)
  add_library(RE2::re2 UNKNOWN IMPORTED)
  set_target_properties(RE2::re2 PROPERTIES IMPORTED_LOCATION "${RE2_LIBRARY}"
                                            INTERFACE_INCLUDE_DIRECTORIES "${RE2_INCLUDE_DIR}")
  if(PC_RE2_CFLAGS_OTHER)
    set_target_properties(RE2::re2 PROPERTIES INTERFACE_COMPILE_OPTIONS "${PC_RE2_CFLAGS_OTHER}")
  endif()
endif()
mark_as_advanced(RE2_INCLUDE_DIR RE2_LIBRARY)
