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

# Unity builds: build time only, no effect on the code's meaning. With KILN_UNITY_BUILD=ON a
# target's C++ files are compiled KILN_UNITY_BATCH at a time as one translation unit, so the
# inline code every file instantiates (std::function, shared_ptr, fmt, kiln's core templates) is
# compiled and optimized once per batch instead of once per file: the 30 files of ops/nn take
# ~26 s as two batches against ~100 s one by one (issue 25). CI's scripts turn it on (a cold
# build); it is off by default, since changing one file recompiles its whole batch. Files are
# therefore written so that any of them can share a translation unit: helpers in anonymous
# namespaces carry names of their own file. Only the targets that call kiln_unity take part; the
# per-ISA kernels (their own flags) and generated protobuf code do not.
option(KILN_UNITY_BUILD "Compile the libraries, the CLI and the tests in unity batches (CI)" OFF)
set(KILN_UNITY_BATCH 16 CACHE STRING "Files per unity batch (KILN_UNITY_BUILD)")
function(kiln_unity target)
  if(KILN_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE
                                                               ${KILN_UNITY_BATCH})
  endif()
endfunction()
