# One ctest entry per GoogleTest suite (not per test): a test process of a CUDA build spends
# ~0.4 s loading the CUDA libraries before its first test, which dominated CI when every test was
# its own process. The suites are listed from the binary when ctest runs (like
# gtest_discover_tests' PRE_TEST mode), so a new suite needs no edit here.
# A suite in which a test was skipped reads as skipped (exit 77, tests/support/skip_aware_main.cpp).
set(CALIBER_GTEST_SUITES_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/gtest_suites_add.cmake")

# caliber_add_gtest_suites(<target> LABELS <label>... [ENVIRONMENT <VAR=value>...])
function(caliber_add_gtest_suites target)
  cmake_parse_arguments(ARG "" "" "LABELS;ENVIRONMENT" ${ARGN})
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(CALIBER_SUITES_EXE [==[$<TARGET_FILE:${target}>]==])
set(CALIBER_SUITES_PREFIX [==[${target}]==])
set(CALIBER_SUITES_LABELS [==[${ARG_LABELS}]==])
set(CALIBER_SUITES_ENVIRONMENT [==[${ARG_ENVIRONMENT}]==])
set(CALIBER_SUITES_WORKDIR [==[${CMAKE_CURRENT_BINARY_DIR}]==])
include([==[${CALIBER_GTEST_SUITES_SCRIPT}]==])
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
