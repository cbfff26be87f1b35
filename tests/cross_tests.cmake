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
