# Precompiled headers: build time only, no effect on the code. Most of a kiln source file's
# compile time is parsing the standard library, fmt, and kiln's core headers again; one header
# per target (cmake/pch/<name>.h) parsed once saves 15-25% of the library files' and ~45% of the
# unit-test files' compile time (CI's cold build, issue 25). KILN_PCH=OFF turns it off (e.g. to
# check that every file includes what it uses).
option(KILN_PCH "Compile the libraries, the CLI and the tests with precompiled headers" ON)

# kiln_precompile(<target> <header>): <header> (a path) is compiled once with the target's flags
# and included first in each of its C++ files. Files with their own ISA flags (the per-ISA
# kernels) or their own definitions must be marked SKIP_PRECOMPILE_HEADERS.
function(kiln_precompile target header)
  if(NOT KILN_PCH OR KILN_SANITIZE OR KILN_FUZZ)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${header})
  # gcc 12 loses the system-header status of the standard headers it reads from a precompiled
  # header and then reports its known -Warray-bounds / -Wstringop-overread false positives on
  # inlined std::string copies inside libstdc++ (the family of GCC bug 105329 that kiln_warnings'
  # -Wno-restrict -Wno-stringop-overflow already answer). Out-of-bounds accesses are what the
  # ASan+UBSan legs (clang, no precompiled header there: KILN_SANITIZE) check at run time.
  target_compile_options(${target} PRIVATE
                         "$<$<CXX_COMPILER_ID:GNU>:-Wno-array-bounds;-Wno-stringop-overread>")
  # ccache caches files built with a precompiled header when it sees the header's text (gcc's
  # -fpch-preprocess) and the sloppiness CMAKE_CXX_COMPILER_LAUNCHER sets (CMakeLists.txt).
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache" AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(${target} PRIVATE -fpch-preprocess)
  endif()
endfunction()
