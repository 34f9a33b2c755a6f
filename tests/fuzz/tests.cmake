# libFuzzer targets (issue 6). Off by default; they need clang:
#
#   CC=clang cmake -S . -B build-fuzz -DPD_FUZZ=ON && cmake --build build-fuzz -j2
#   tests/fuzz/run.sh 30 build-fuzz            # every target 30 s; fails on any report
#   ctest --test-dir build-fuzz -L fuzz        # the same smoke run from ctest
#
# With PD_FUZZ the layer libraries (and the grammar) is built with coverage instrumentation and
# ASan+UBSan, so every other test in that build directory runs sanitized too. Do not combine
# with PD_SANITIZE (gcc-style flags) in the same build directory.
option(PD_FUZZ "Build the libFuzzer targets (clang only)" OFF)
set(PD_FUZZ_SECONDS 30 CACHE STRING "Seconds each fuzz target runs in the ctest smoke job")

if(PD_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PD_FUZZ needs clang: CC=clang cmake -DPD_FUZZ=ON ...")
  endif()
  set(_fz_cflags -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
      -fno-sanitize-recover=undefined -g)
  foreach(_l ${PD_LAYERS})
    target_compile_options(${_l} PRIVATE ${_fz_cflags})
  endforeach()
  target_link_options(pd_base INTERFACE -fsanitize=address,undefined)
  foreach(_g ts_bash ts_python)
    if(TARGET ${_g})
      get_target_property(_fz_imported ${_g} IMPORTED)
      if(NOT _fz_imported)
        target_compile_options(${_g} PRIVATE ${_fz_cflags})
      endif()
    endif()
  endforeach()

  set(PD_FUZZ_TARGETS lsp script edit trace rules partial flags kname)
  foreach(_t ${PD_FUZZ_TARGETS})
    add_executable(fuzz_${_t} ${CMAKE_CURRENT_LIST_DIR}/fuzz_${_t}.c)
    target_compile_definitions(fuzz_${_t} PRIVATE _GNU_SOURCE)
    target_compile_options(fuzz_${_t} PRIVATE ${PD_WARN} -fsanitize=fuzzer,address,undefined
                           -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g)
    target_link_options(fuzz_${_t} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_libraries(fuzz_${_t} PRIVATE pdcore)
    set_target_properties(fuzz_${_t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
    add_test(NAME fuzz_smoke_${_t}
             COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/run.sh ${PD_FUZZ_SECONDS} ${CMAKE_BINARY_DIR} ${_t})
    math(EXPR _fz_timeout "${PD_FUZZ_SECONDS} * 2 + 120")
    set_tests_properties(fuzz_smoke_${_t} PROPERTIES LABELS fuzz TIMEOUT ${_fz_timeout})
  endforeach()
endif()
