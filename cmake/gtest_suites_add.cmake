# Run by ctest (TEST_INCLUDE_FILES, see gtest_suites.cmake): lists the suites of
# CALIBER_SUITES_EXE and adds one test per suite, "<prefix>/<suite>", filtered to that suite.
if(NOT EXISTS "${CALIBER_SUITES_EXE}")
  add_test("${CALIBER_SUITES_PREFIX}/NOT_BUILT" "${CALIBER_SUITES_EXE}")
  return()
endif()
execute_process(COMMAND "${CALIBER_SUITES_EXE}" --gtest_list_tests
                WORKING_DIRECTORY "${CALIBER_SUITES_WORKDIR}"
                OUTPUT_VARIABLE listing RESULT_VARIABLE listed TIMEOUT 120)
if(NOT listed EQUAL 0)
  add_test("${CALIBER_SUITES_PREFIX}/LISTING_FAILED" "${CALIBER_SUITES_EXE}" --gtest_list_tests)
  return()
endif()
string(REPLACE "\n" ";" lines "${listing}")
foreach(line IN LISTS lines)
  # A suite line starts in column 1 and ends with '.' (parameterized: "Prefix/Suite.",
  # typed: "Suite/0.  # TypeParam = int"); its tests follow, indented.
  if(line MATCHES "^([^ #][^ ]*)\\.( .*)?$")
    set(suite "${CMAKE_MATCH_1}")
    set(name "${CALIBER_SUITES_PREFIX}/${suite}")
    # A suite in which a test was skipped exits 77 (tests/support/skip_aware_main.cpp) and reads
    # as skipped, not passed; a failure still fails it.
    add_test("${name}" "${CALIBER_SUITES_EXE}" "--gtest_filter=${suite}.*" "--skipped_exit_code=77")
    set_tests_properties("${name}" PROPERTIES LABELS "${CALIBER_SUITES_LABELS}"
                         WORKING_DIRECTORY "${CALIBER_SUITES_WORKDIR}" SKIP_RETURN_CODE 77
                         ENVIRONMENT "${CALIBER_SUITES_ENVIRONMENT}")
  endif()
endforeach()
