# The libraries other projects use, and how they are installed (docs/python.md, README "Using the
# library from another project").
#
#   libcaliber.so    the C++ API (include/caliber/caliber.h): the whole core, with libcrypto (and
#                    the CUDA runtime) linked in statically and hidden, and the shared yaml-cpp, so
#                    a consumer links -lcaliber and nothing else. Installed as caliber::caliber.
#   libcaliber_c.so  the C API (include/caliber/c_api.h) over the same core: only caliber_*
#                    symbols exported, libstdc++/libgcc linked statically, so one build loads into
#                    any process (every Python version through ctypes); the shared yaml-cpp and
#                    muparser it needs come from Debian packages. Installed as caliber::caliber_c.
#
# In this tree, the CLI and the tests link the static core (caliber_lib, alias caliber::caliber).

# Static archives whose symbols libcaliber.so must not export (a consumer may link its own
# OpenSSL).
set(_caliber_hidden_archives libcrypto.a)
if(CALIBER_WITH_CUDA)
  list(APPEND _caliber_hidden_archives libcudart_static.a)
endif()
list(JOIN _caliber_hidden_archives ":" _caliber_hidden_archives)

add_library(caliber_shared SHARED ${PROJECT_SOURCE_DIR}/cmake/empty.cpp)
target_link_libraries(caliber_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,caliber_lib>")
target_link_options(caliber_shared PRIVATE "LINKER:--exclude-libs,${_caliber_hidden_archives}")
target_include_directories(caliber_shared INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                           $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(caliber_shared INTERFACE cxx_std_20)
set_target_properties(caliber_shared PROPERTIES OUTPUT_NAME caliber EXPORT_NAME caliber CALIBER_SHARED_YAML_CPP ON
                      VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})

add_library(caliber_c SHARED ${PROJECT_SOURCE_DIR}/src/c_api/c_api.cpp ${PROJECT_SOURCE_DIR}/src/c_api/c_api_identity.cpp
            ${PROJECT_SOURCE_DIR}/src/c_api/c_api_support.cpp ${PROJECT_SOURCE_DIR}/src/c_api/c_api_worker.cpp)
target_include_directories(caliber_c PRIVATE ${PROJECT_SOURCE_DIR}/src
                           INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_options(caliber_c PRIVATE ${CALIBER_WARNINGS})
target_link_libraries(caliber_c PRIVATE caliber_lib fmt::fmt-header-only nlohmann_json::nlohmann_json)
# Only the C API leaves the library (cmake/caliber_c.map), and no libstdc++ is needed where it loads.
target_link_options(caliber_c PRIVATE "LINKER:--version-script=${PROJECT_SOURCE_DIR}/cmake/caliber_c.map")
if(NOT CALIBER_SANITIZE)  # a sanitized library leaves the sanitizer runtime to the executable
  target_link_options(caliber_c PRIVATE -static-libstdc++ -static-libgcc "LINKER:--no-undefined")
endif()
# No SONAME version: the C ABI is versioned by caliber_c_api_version(), and a plain file (no
# symlinks) survives being copied to another machine with the build directory.
# The shared yaml-cpp (as libcaliber.so): the measuring worker a Python process hosts
# (caliber_run_worker) reads baseline matrices and op descriptions, and Debian's static yaml-cpp is
# built -fPIE, which a shared object cannot contain. Like the shared muparser, it brings the system
# libstdc++ into the process beside the static one; only C and caliber_* symbols cross.
set_target_properties(caliber_c PROPERTIES LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/caliber_c.map
                      EXPORT_NAME caliber_c CALIBER_SHARED_YAML_CPP ON)

foreach(lib caliber_shared caliber_c)
  if(CALIBER_SANITIZE)
    # Only the integration tests load them, and a sanitizer build does not run those.
    set_target_properties(${lib} PROPERTIES EXCLUDE_FROM_ALL TRUE)
  endif()
  if(CALIBER_WITH_CUDA)
    # cuBLAS (dlopened by src/backends/cuda/cublas_library.cpp) is found where the toolkit installs it.
    set_target_properties(${lib} PROPERTIES BUILD_RPATH "${CUDAToolkit_LIBRARY_DIR}"
                                            INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  endif()
endforeach()

set(CALIBER_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/caliber CACHE STRING
    "Where the CMake package (find_package(caliber)) is installed, relative to the prefix")
set(CALIBER_INSTALL_PYTHONDIR ${CMAKE_INSTALL_LIBDIR}/caliber/python CACHE STRING
    "Where the Python package is installed, relative to the prefix (put it on PYTHONPATH)")
# Where an installed caliber finds the package for the worker of Python providers
# (src/runner/worker_command.cpp): <prefix>/<this>, the prefix being the executable's bin/..
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/runner/worker_command.cpp TARGET_DIRECTORY caliber_lib APPEND PROPERTY
             COMPILE_DEFINITIONS CALIBER_INSTALL_PYTHONDIR="${CALIBER_INSTALL_PYTHONDIR}")
# Where an installed caliber finds its plugins (@plugins/, src/ops/entrypoint.cpp): <prefix>/<this>.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/ops/entrypoint.cpp TARGET_DIRECTORY caliber_lib APPEND PROPERTY
             COMPILE_DEFINITIONS CALIBER_INSTALL_PLUGINDIR="${CALIBER_INSTALL_PLUGINDIR}")

function(caliber_install_libraries)
  include(CMakePackageConfigHelpers)
  install(TARGETS caliber_shared caliber_c EXPORT caliberTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  # The API, and only the API: every other header is the library's own (src/).
  set(_api_headers backend.h c_api.h caliber.h caliber_check.h clock.h contract.h device.h dtype.h errors.h input_draw.h
      instrument_policy.h integrity.h measure.h params.h plugin_abi.h result.h result_json.h result_table.h
      run_identity.h run_identity_json.h statistics.h telemetry.h)
  list(TRANSFORM _api_headers PREPEND ${PROJECT_SOURCE_DIR}/include/caliber/)
  # A header in include/caliber is the API: adding one is a decision made here, not by accident.
  file(GLOB _in_folder ${PROJECT_SOURCE_DIR}/include/caliber/*.h)
  set(_unlisted ${_in_folder})
  list(REMOVE_ITEM _unlisted ${_api_headers})
  if(_unlisted)
    message(FATAL_ERROR "include/caliber holds headers that are not in the API list of cmake/libraries.cmake: "
                        "${_unlisted} (internal headers live under src/)")
  endif()
  install(FILES ${_api_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/caliber)
  install(FILES ${PROJECT_BINARY_DIR}/generated/caliber/config.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/caliber)
  install(EXPORT caliberTargets NAMESPACE caliber:: DESTINATION ${CALIBER_INSTALL_CMAKEDIR})
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/caliberConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/caliberConfig.cmake
                                INSTALL_DESTINATION ${CALIBER_INSTALL_CMAKEDIR})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/caliberConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/caliberConfig.cmake ${PROJECT_BINARY_DIR}/caliberConfigVersion.cmake
          DESTINATION ${CALIBER_INSTALL_CMAKEDIR})
  # pkg-config: relocatable (the prefix is found from the .pc file's own directory).
  file(RELATIVE_PATH _pc_to_prefix ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
  string(REGEX REPLACE "/$" "" CALIBER_PC_PREFIX "\${pcfiledir}/${_pc_to_prefix}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/caliber.pc.in ${PROJECT_BINARY_DIR}/caliber.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/caliber.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
  # The Python package, with where it finds libcaliber_c.so relative to itself.
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/caliber DESTINATION ${CALIBER_INSTALL_PYTHONDIR}
          PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
  file(RELATIVE_PATH _py_to_lib ${CMAKE_INSTALL_PREFIX}/${CALIBER_INSTALL_PYTHONDIR}/caliber
       ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
  file(WRITE ${PROJECT_BINARY_DIR}/python_install/_installed.py
       "# Written by cmake --install: where libcaliber_c.so is, relative to this package.\n"
       "LIBRARY_DIR = \"${_py_to_lib}\"\n")
  install(FILES ${PROJECT_BINARY_DIR}/python_install/_installed.py DESTINATION ${CALIBER_INSTALL_PYTHONDIR}/caliber)
endfunction()
