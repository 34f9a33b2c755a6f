# Trace analyzer tests (issue 7). C tests link pdcore; the synthetic traces are generated at
# test time by gen_traces.py (Python 3 standard library) into the build tree.
set(_tr ${CMAKE_CURRENT_LIST_DIR})
pd_add_unit(trace_units ${_tr}/test_units.c)
pd_add_unit(trace_hta_parity ${_tr}/test_hta_parity.c)
pd_add_unit(trace_corrupt ${_tr}/test_corrupt.c)
pd_add_unit(trace_eff_units ${_tr}/test_eff_units.c)
pd_add_unit(trace_inflate ${_tr}/test_inflate.c)
pd_add_unit(trace_kname ${_tr}/test_kname.c)
# the message catalog: templates, what the loader refuses, the built-in catalog in both languages
pd_add_unit(trace_messages ${_tr}/test_messages.c)
# the corrupt-input suite again with the zlib fallback (the default is ISA-L where found)
add_test(NAME trace_corrupt_zlib COMMAND trace_corrupt)
set_tests_properties(trace_corrupt_zlib PROPERTIES ENVIRONMENT PERF_DOCTOR_INFLATE=zlib)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(_synth ${CMAKE_CURRENT_BINARY_DIR}/trace_synth)
  add_test(NAME trace_gen COMMAND ${CMAKE_COMMAND} -E env ${Python3_EXECUTABLE} ${_tr}/gen_traces.py --out ${_synth})
  set_tests_properties(trace_gen PROPERTIES FIXTURES_SETUP trace_synth)
  pd_add_unit(trace_synthetic ${_tr}/test_synthetic.c)
  target_compile_definitions(trace_synthetic PRIVATE TRACE_SYNTH_DIR="${_synth}")
  set_tests_properties(trace_synthetic PROPERTIES FIXTURES_REQUIRED trace_synth)
  # Efficiency figures against TraceLens's sheets and the traces themselves, bandwidth by hand on
  # a generated multi-rank set, a folder of three runs split into jobs.
  add_test(NAME trace_efficiency COMMAND ${Python3_EXECUTABLE} ${_tr}/test_efficiency.py $<TARGET_FILE:perf-doctor>
           ${CMAKE_SOURCE_DIR}/tests/fixtures/traces/tracelens ${_synth} ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(trace_efficiency PROPERTIES FIXTURES_REQUIRED trace_synth)
  # trace --compare (a run against itself and against a uniformly slower copy, one-step and multi-step real
  # traces) and --svg
  add_test(NAME trace_compare_svg COMMAND ${Python3_EXECUTABLE} ${_tr}/test_compare_svg.py $<TARGET_FILE:perf-doctor>
           ${_synth} ${CMAKE_SOURCE_DIR}/tests/fixtures/traces/tracelens ${CMAKE_CURRENT_BINARY_DIR} ${PD_HTA_DIR})
  set_tests_properties(trace_compare_svg PROPERTIES FIXTURES_REQUIRED trace_synth)
  # summaries and comparisons a person can read on every vendored trace: cells under 160 characters,
  # unique short kernel names, long tails in one row, everything in the JSON
  add_test(NAME trace_readable COMMAND ${Python3_EXECUTABLE} ${_tr}/test_readable.py $<TARGET_FILE:perf-doctor>
           ${CMAKE_SOURCE_DIR}/tests/fixtures/traces/tracelens ${PD_HTA_DIR})
  # trace --partial / --merge equal to one process
  add_test(NAME trace_partial COMMAND ${Python3_EXECUTABLE} ${_tr}/test_partial.py $<TARGET_FILE:perf-doctor>
           ${_synth} ${PD_HTA_DIR} ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(trace_partial PROPERTIES FIXTURES_REQUIRED trace_synth)
  # check --trace: evidence on findings from the generated set (with memory events added)
  add_test(NAME cli_evidence COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tests/cli/test_evidence.py
           $<TARGET_FILE:perf-doctor> ${PD_TESTS_DIR} ${_synth} ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(cli_evidence PROPERTIES FIXTURES_REQUIRED trace_synth)
  # Against HTA itself (set HTA_SRC to an HTA checkout; skipped otherwise). Debian's
  # /usr/bin/python3 is the interpreter that sees python3-pandas.
  add_test(NAME trace_hta_crosscheck COMMAND /usr/bin/python3 ${_tr}/hta_crosscheck.py
           $<TARGET_FILE:perf-doctor> ${_synth}/pipeline ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(trace_hta_crosscheck PROPERTIES FIXTURES_REQUIRED trace_synth SKIP_RETURN_CODE 77)
  # Peak RSS on a generated trace. TRACE_MEMORY_MB sets its uncompressed size (default 200;
  # the 1 GB figure is measured with -DTRACE_MEMORY_MB=1000). Sanitizers inflate RSS: skipped.
  if(NOT DEFINED TRACE_MEMORY_MB)
    set(TRACE_MEMORY_MB 200)
  endif()
  if(NOT PD_SANITIZE)
    add_test(NAME trace_memory COMMAND ${Python3_EXECUTABLE} ${_tr}/test_memory.py
             $<TARGET_FILE:perf-doctor> ${CMAKE_CURRENT_BINARY_DIR}/trace_big.json.gz ${TRACE_MEMORY_MB})
    set_tests_properties(trace_memory PROPERTIES TIMEOUT 900)
  endif()
endif()
