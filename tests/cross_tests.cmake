# Tests of a cross build (included by tests/CMakeLists.txt when CMAKE_CROSSCOMPILING). ctest runs
# each command through CMAKE_CROSSCOMPILING_EMULATOR (qemu-user, see cmake/toolchains/). Starting
# an emulated process costs far more than a small test, so each suite is one ctest test instead
# of one per googletest case. Labels: kernels, unit, models, backend; `-generic` variants force the
# portable kernels with KILN_ISA=generic.

if(NOT CMAKE_CROSSCOMPILING_EMULATOR)
  message(WARNING "Cross build without CMAKE_CROSSCOMPILING_EMULATOR (qemu-user not found): "
                  "the tests can only run on the target")
endif()

# The shared models: $KILN_SHARED_MODELS, else ../shared/models or ../../shared/models from the
# source tree (a clone next to shared/, or a worktree one level further down).
set(_kiln_models_default "${PROJECT_SOURCE_DIR}/../shared/models")
if(DEFINED ENV{KILN_SHARED_MODELS} AND NOT "$ENV{KILN_SHARED_MODELS}" STREQUAL "")
  set(_kiln_models_default "$ENV{KILN_SHARED_MODELS}")
elseif(NOT IS_DIRECTORY "${_kiln_models_default}"
       AND IS_DIRECTORY "${PROJECT_SOURCE_DIR}/../../shared/models")
  set(_kiln_models_default "${PROJECT_SOURCE_DIR}/../../shared/models")
endif()
set(KILN_SHARED_MODELS "${_kiln_models_default}" CACHE PATH
    "Folder of the shared ONNX models (<name>/model.onnx + test_data_set_0/)")
set(KILN_CROSS_BACKEND_FILTER "*" CACHE STRING
    "googletest filter choosing the expected-pass ONNX backend cases run under emulation")

# Unit and kernel tests, with the ISA the machine reports and with the portable path forced.
add_test(NAME unit COMMAND kiln_tests)
add_test(NAME unit-generic COMMAND kiln_tests)
set_tests_properties(unit PROPERTIES TIMEOUT 1200 LABELS unit)
set_tests_properties(unit-generic PROPERTIES TIMEOUT 1200 LABELS unit ENVIRONMENT KILN_ISA=generic)

# The kernel tests alone (kernels + core): a few files to build, the first check of a new target
# or ISA, e.g. `ninja -C build-armv7 kiln_kernel_tests && ctest --test-dir build-armv7 -L kernels`.
file(GLOB _kiln_kernel_tests CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/kernels/*_test.cpp")
add_executable(kiln_kernel_tests ${_kiln_kernel_tests})
target_link_libraries(kiln_kernel_tests PRIVATE kiln_ops kiln_kernels GTest::gtest GTest::gtest_main
                                                kiln_warnings)
add_test(NAME kernels COMMAND kiln_kernel_tests)
add_test(NAME kernels-generic COMMAND kiln_kernel_tests)
set_tests_properties(kernels PROPERTIES TIMEOUT 600 LABELS kernels)
set_tests_properties(kernels-generic PROPERTIES TIMEOUT 600 LABELS kernels ENVIRONMENT KILN_ISA=generic)

# Every shared ONNX model through the CLI, against ONNX Runtime's outputs.
file(GLOB _kiln_models LIST_DIRECTORIES true "${KILN_SHARED_MODELS}/*")
set(_kiln_model_count 0)
foreach(dir IN LISTS _kiln_models)
  if(NOT EXISTS "${dir}/model.onnx" OR NOT IS_DIRECTORY "${dir}/test_data_set_0")
    continue()
  endif()
  get_filename_component(name "${dir}" NAME)
  foreach(isa native generic)
    set(test "model-${name}")
    if(isa STREQUAL "generic")
      set(test "model-${name}-generic")
    endif()
    add_test(NAME ${test}
             COMMAND kiln run "${dir}/model.onnx" --input-bundle "${dir}/test_data_set_0"
                     --assert-output-bundle "${dir}/test_data_set_0" -q)
    set_tests_properties(${test} PROPERTIES TIMEOUT 900 LABELS models)
    if(isa STREQUAL "generic")
      set_tests_properties(${test} PROPERTIES ENVIRONMENT KILN_ISA=generic)
    endif()
  endforeach()
  math(EXPR _kiln_model_count "${_kiln_model_count} + 1")
endforeach()
if(_kiln_model_count EQUAL 0)
  message(WARNING "No shared models in ${KILN_SHARED_MODELS} (set KILN_SHARED_MODELS)")
endif()

# The ONNX backend suite's expected-pass cases, in one process (about 30 s under qemu).
add_test(NAME backend COMMAND kiln_backend_tests "--gtest_filter=${KILN_CROSS_BACKEND_FILTER}")
add_test(NAME backend-generic COMMAND kiln_backend_tests "--gtest_filter=${KILN_CROSS_BACKEND_FILTER}")
set_tests_properties(backend PROPERTIES TIMEOUT 1200 LABELS backend)
set_tests_properties(backend-generic PROPERTIES TIMEOUT 1200 LABELS backend ENVIRONMENT KILN_ISA=generic)

# AArch64: a second emulated CPU with the ARMv8.2 dot product (qemu's `max`; the default is a
# Cortex-A72 without it), so the int8 SDOT kernels (kernels/quant/arm/qtile_neondot.cpp) run too:
# the emulator command with its -cpu replaced.
set(_kiln_dot_emulator "")
if(CMAKE_CROSSCOMPILING_EMULATOR AND CMAKE_SIZEOF_VOID_P EQUAL 8)
  set(_kiln_dot_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
  list(FIND _kiln_dot_emulator "-cpu" _kiln_at)
  if(_kiln_at GREATER_EQUAL 0)
    math(EXPR _kiln_at "${_kiln_at} + 1")
    list(REMOVE_AT _kiln_dot_emulator ${_kiln_at})
    list(INSERT _kiln_dot_emulator ${_kiln_at} max)
  else()
    list(INSERT _kiln_dot_emulator 1 -cpu max)
  endif()
  # The int8 kernel tests only: the float kernels do not depend on the dot product.
  add_test(NAME kernels-sdot COMMAND ${_kiln_dot_emulator} $<TARGET_FILE:kiln_kernel_tests>
                                     "--gtest_filter=Qmmm.*:QDepthwise*:KernelsQ*")
  set_tests_properties(kernels-sdot PROPERTIES TIMEOUT 600 LABELS kernels)
endif()

# The int8 models (../shared/models/int8) with the int8 rule of shared/models/README.md as
# `kiln run` checks it: |y - ref| <= 2 s, s the output quantization step of SOURCE.txt (`output
# step s:`); 0.15 absolute where the output comes from float ops (tiny_bert). Each with the NEON
# kernels (Wide16 on the Cortex-A72), the portable ones, and on AArch64 the SDOT kernels (whose
# selection `kiln dump -O` shows).
file(GLOB _kiln_int8_models LIST_DIRECTORIES true "${KILN_SHARED_MODELS}/int8/*")
foreach(dir IN LISTS _kiln_int8_models)
  if(NOT EXISTS "${dir}/model.onnx" OR NOT EXISTS "${dir}/SOURCE.txt")
    continue()
  endif()
  get_filename_component(name "${dir}" NAME)
  file(STRINGS "${dir}/SOURCE.txt" _kiln_step REGEX "^output step s: [0-9]")
  set(_kiln_atol 0.15)
  if(_kiln_step MATCHES "^output step s: ([0-9.eE+-]+)")
    # 2 s (CMake's math is integer only).
    execute_process(COMMAND awk "BEGIN { printf \"%.9g\", 2 * ${CMAKE_MATCH_1} }"
                    OUTPUT_VARIABLE _kiln_atol)
  endif()
  set(_kiln_run run "${dir}/model.onnx" --input-bundle "${dir}/test_data_set_0"
                --assert-output-bundle "${dir}/test_data_set_0" --atol ${_kiln_atol} --rtol 0 -q)
  add_test(NAME model-int8-${name} COMMAND kiln ${_kiln_run})
  add_test(NAME model-int8-${name}-generic COMMAND kiln ${_kiln_run})
  set_tests_properties(model-int8-${name} model-int8-${name}-generic PROPERTIES TIMEOUT 900
                       LABELS models)
  set_tests_properties(model-int8-${name}-generic PROPERTIES ENVIRONMENT KILN_ISA=generic)
  if(_kiln_dot_emulator)
    add_test(NAME model-int8-${name}-sdot
             COMMAND ${_kiln_dot_emulator} $<TARGET_FILE:kiln> ${_kiln_run})
    set_tests_properties(model-int8-${name}-sdot PROPERTIES TIMEOUT 900 LABELS models)
  endif()
endforeach()
if(_kiln_dot_emulator AND EXISTS "${KILN_SHARED_MODELS}/int8/mobilenet_v2_int8_qdq/model.onnx")
  add_test(NAME int8-sdot-selected
           COMMAND ${_kiln_dot_emulator} $<TARGET_FILE:kiln> dump
                   "${KILN_SHARED_MODELS}/int8/mobilenet_v2_int8_qdq/model.onnx" -O)
  add_test(NAME int8-sdot-off
           COMMAND ${_kiln_dot_emulator} $<TARGET_FILE:kiln> dump
                   "${KILN_SHARED_MODELS}/int8/mobilenet_v2_int8_qdq/model.onnx" -O)
  set_tests_properties(int8-sdot-selected PROPERTIES LABELS models TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "kernel=qmmm_i8_8x8_neondot")
  # KILN_INT8_DOT=0: the Wide16 NEON kernel on the same CPU.
  set_tests_properties(int8-sdot-off PROPERTIES LABELS models TIMEOUT 300
                       ENVIRONMENT KILN_INT8_DOT=0
                       PASS_REGULAR_EXPRESSION "kernel=qmmm_i8_8x8_neon "
                       FAIL_REGULAR_EXPRESSION "neondot")
endif()
