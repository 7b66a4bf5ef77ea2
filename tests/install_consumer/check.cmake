# ctest install_consumer: installs the build into a fresh prefix, then builds and runs
# tests/install_consumer (a host copy measured through the C++ API) against the installed tree,
# once through find_package(caliber) and once through pkg-config; checks that <caliber/caliber.h>
# preprocesses without nlohmann/json, and that the installed Python package finds its library.
#
#   cmake -DBUILD_DIR=<caliber build> -DWORK_DIR=<scratch> -DCONSUMER_DIR=<this folder>
#         -DCXX=<c++ compiler> -DGENERATOR=<generator> [-DPYTHON=<python3>] -P check.cmake
foreach(v BUILD_DIR WORK_DIR CONSUMER_DIR CXX GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check.cmake: -D${v}=... is required")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_measurement output how)
  set(want "name=host_copy params=dtype=float32 elements=65536 n=30 value_us_positive=1 instrument=wallclock schedule=isolated cache=warm integrity=verified")
  string(STRIP "${output}" got)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${how}: the consumer printed\n  ${got}\nexpected\n  ${want}")
  endif()
  message(STATUS "${how}: ${got}")
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(f include/caliber/caliber.h include/caliber/config.h lib/pkgconfig/caliber.pc lib/cmake/caliber/caliberConfig.cmake
        share/caliber/ops/rmsnorm.op.yaml share/caliber/ops/gemm.op.yaml)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()

# The public API without a JSON library: nlohmann never appears in caliber.h's preprocessed text.
run(${CXX} -std=c++20 -E -I${prefix}/include -x c++ ${prefix}/include/caliber/caliber.h)
if(run_output MATCHES "nlohmann")
  message(FATAL_ERROR "<caliber/caliber.h> pulls in nlohmann/json")
endif()
string(REGEX MATCHALL "\n" lines "${run_output}")
list(LENGTH lines line_count)
message(STATUS "<caliber/caliber.h> preprocesses to ${line_count} lines, without nlohmann/json")

# An op of your own from the installed tree alone (docs/user-ops.md): the installed example's host
# plugin source, built against the installed headers, runs next to the installed example plugin,
# from a matrix named by its bare file name in the working directory (its ./ entrypoints resolve there).
set(example ${prefix}/share/caliber/examples/user_op)
set(own ${WORK_DIR}/own_op)
file(MAKE_DIRECTORY ${own})
run(${CXX} -x c -shared -fPIC -O2 -I${prefix}/include ${example}/add_rmsnorm_plugin.c -lm -o ${own}/libmine.so)
file(WRITE ${own}/matrix.yaml "schema_version: 1
kernel: add_rmsnorm
op_type: add_rmsnorm
op_description: ${example}/add_rmsnorm.op.yaml
dtype: [fp32]
reference_provider: installed
layout_contract: row_major
providers:
  installed: {enabled: true, entrypoint: \"@plugins/libcaliber_add_rmsnorm.so:add_rmsnorm_twopass\", provider: plugin}
  mine: {enabled: true, entrypoint: \"./libmine.so:add_rmsnorm_fused\", provider: plugin}
")
function(run_in dir)
  execute_process(COMMAND ${ARGN} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}) in ${dir}: ${cmd}\n${out}\n${err}")
  endif()
endfunction()
run_in(${own} ${prefix}/bin/caliber ledger manual --op add_rmsnorm --op-description ${example}/add_rmsnorm.op.yaml
       --ledger ledger.jsonl --shape m=8,n=256,eps=1e-6 --dtype fp32)
run_in(${own} ${prefix}/bin/caliber run --op add_rmsnorm --backend host --shape-ledger ledger.jsonl
       --baseline-matrix matrix.yaml --out run --max-time-ms 20)
file(READ ${own}/run/benchmark_results.jsonl rows)
string(REGEX MATCHALL "\"benchmark_status\":\"[a-z_]+\"" all_rows "${rows}")
string(REGEX MATCHALL "\"benchmark_status\":\"ok\"" ok_rows "${rows}")
list(LENGTH all_rows row_count)
list(LENGTH ok_rows ok_count)
if(NOT row_count EQUAL 2 OR NOT ok_count EQUAL 2)
  message(FATAL_ERROR "an op of your own from the installed tree: ${ok_count} of ${row_count} rows ok (expected 2 of 2)")
endif()
message(STATUS "an op of your own from the installed tree: 2 of 2 rows ok")

# 1. find_package(caliber CONFIG) -> caliber::caliber
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/find_package -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/find_package)
run(${WORK_DIR}/find_package/measure_host_copy)
expect_measurement("${run_output}" "find_package")

# 2. pkg-config caliber
find_program(PKG_CONFIG NAMES pkg-config pkgconf)
if(NOT PKG_CONFIG)
  message(FATAL_ERROR "pkg-config is needed to check caliber.pc")
endif()
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run(${PKG_CONFIG} --cflags --libs caliber)
string(STRIP "${run_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${PKG_CONFIG} --variable=libdir caliber)
string(STRIP "${run_output}" libdir)
file(MAKE_DIRECTORY ${WORK_DIR}/pkg_config)
run(${CXX} ${CONSUMER_DIR}/main.cpp ${flags} -Wl,-rpath,${libdir} -o ${WORK_DIR}/pkg_config/measure_host_copy)
run(${WORK_DIR}/pkg_config/measure_host_copy)
expect_measurement("${run_output}" "pkg-config")

# 3. The installed Python package finds the installed libcaliber_c.so by itself.
if(PYTHON)
  file(GLOB python_dir ${prefix}/lib*/caliber/python)
  set(ENV{PYTHONPATH} ${python_dir})
  unset(ENV{CALIBER_LIBRARY})
  file(WRITE ${WORK_DIR}/installed_python.py [=[
import caliber
r = caliber.measure(lambda stream: None, backend="host", cache="warm", iterations=5, integrity_checks=False)
assert r.summary.n == 5, r
print("caliber", caliber.version(), "from", caliber._library().caliber_path)
]=])
  run(${PYTHON} ${WORK_DIR}/installed_python.py)
  string(STRIP "${run_output}" got)
  if(NOT got MATCHES "^caliber .* from ${prefix}/")
    message(FATAL_ERROR "the installed Python package did not load the installed library: ${got}")
  endif()
  message(STATUS "python from the prefix: ${got}")
  # Python providers from the prefix: caliber.run finds the installed caliber, whose Python worker
  # imports the installed package (tests/python/test_python_providers.py).
  unset(ENV{CALIBER_EXE})
  run(${PYTHON} -m unittest discover -s ${CONSUMER_DIR}/../python -t ${CONSUMER_DIR}/../python
      -p test_python_providers.py)
  message(STATUS "python providers from the prefix: passed")
endif()
