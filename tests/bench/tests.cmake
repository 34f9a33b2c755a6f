# Benchmark smoke (issue 5): bench/bench.py --smoke on tiny inputs, no thresholds. It fails only
# when a perf-doctor measurement fails (a lost or misversioned publish, a timeout, a bad exit
# status); the peers have their own tests, which report SKIP (77) when the peer is not installed.
# The full benchmark (bench/run.sh) is not part of ctest: too slow and too noisy.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(_bench ${CMAKE_SOURCE_DIR}/bench/bench.py)
  set(_bdir ${CMAKE_CURRENT_BINARY_DIR}/bench_smoke)
  set(_parts lsp,check,trace,callgrind)
  if(PD_SANITIZE)
    set(_parts lsp,check,trace)  # valgrind cannot run an ASan binary
  endif()
  add_test(NAME bench_smoke COMMAND ${Python3_EXECUTABLE} ${_bench} --smoke --build $<TARGET_FILE_DIR:perf-doctor>
           --data ${_bdir} --out ${_bdir}/smoke.json --parts ${_parts})
  add_test(NAME bench_smoke_bls COMMAND ${Python3_EXECUTABLE} ${_bench} --smoke --build $<TARGET_FILE_DIR:perf-doctor>
           --data ${_bdir} --out ${_bdir}/smoke_bls.json --parts bls)
  add_test(NAME bench_smoke_hta COMMAND ${Python3_EXECUTABLE} ${_bench} --smoke --build $<TARGET_FILE_DIR:perf-doctor>
           --data ${_bdir} --out ${_bdir}/smoke_hta.json --parts hta)
  set_tests_properties(bench_smoke bench_smoke_bls bench_smoke_hta PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77
                       RESOURCE_LOCK bench_smoke_data)
endif()
