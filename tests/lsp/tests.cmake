# Language server tests: C units for the pure modules, the random-edit equivalence test, and
# transcripts replayed against the real binary (one ctest per transcript file).
pd_add_unit(lsp_units ${CMAKE_CURRENT_LIST_DIR}/test_units.c)
pd_add_unit(lsp_random_edits ${CMAKE_CURRENT_LIST_DIR}/test_random_edits.c)

add_executable(lsp_transcript ${CMAKE_CURRENT_LIST_DIR}/transcript.c)
target_link_libraries(lsp_transcript PRIVATE pdcore)
target_compile_options(lsp_transcript PRIVATE ${PD_WARN})
target_include_directories(lsp_transcript PRIVATE ${PD_TESTS_DIR})
target_compile_definitions(lsp_transcript PRIVATE PD_TESTS_DIR="${PD_TESTS_DIR}" PD_HTA_DIR="${PD_HTA_DIR}"
  PD_BINARY="$<TARGET_FILE:perf-doctor>")
add_dependencies(lsp_transcript perf-doctor)
file(GLOB _lsp_transcripts CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/transcripts/*.lsp")
foreach(_t ${_lsp_transcripts})
  get_filename_component(_n ${_t} NAME_WE)
  add_test(NAME lsp_tr_${_n} COMMAND lsp_transcript ${_t})
endforeach()

# Latency on a ~340-line script (prints p50/p95; fails only on lost or misversioned publishes or
# a p95 over 250 ms).
pd_add_unit(lsp_bench ${CMAKE_CURRENT_LIST_DIR}/bench.c)
add_dependencies(lsp_bench perf-doctor)
# The same on a generated 800-line script: helper functions with `case`, `for` loops, heredocs,
# conditional `+=` appends, many statements after each edit to replay.
add_test(NAME lsp_random_edits_generated
  COMMAND sh -c "python3 '${PROJECT_SOURCE_DIR}/bench/gen_scripts.py' script --lines 800 --out ws-random && PD_SCRIPT=\"$(ls \"$PWD\"/ws-random/scripts/training/text/*.sh)\" PD_EDITS=1000 '$<TARGET_FILE:lsp_random_edits>'"
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# Two analyses per edit: minutes, more under the sanitizers.
set_tests_properties(lsp_random_edits lsp_random_edits_generated PROPERTIES TIMEOUT 3600)

# The editor features (code lens, inlay hints, definition, references) on a 3,000-line script.
add_test(NAME lsp_large_script COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_large_script.py $<TARGET_FILE:perf-doctor> 3000)
set_tests_properties(lsp_large_script PROPERTIES TIMEOUT 300)

# Bad input for the editor features: rename never gives a script bash -n rejects (seeded renames
# on every fixture script and model config, and a generated 800-line script), and every new
# request on a stale or half-typed document answers (seeded edits, requests sent before the
# analysis, positions past the end or from the text before the edit).
add_test(NAME lsp_rename_bash COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_rename_bash.py $<TARGET_FILE:perf-doctor> 2000 600)
set_tests_properties(lsp_rename_bash PROPERTIES TIMEOUT 600)
