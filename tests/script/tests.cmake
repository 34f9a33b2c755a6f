pd_add_unit(script_model ${CMAKE_CURRENT_LIST_DIR}/test_script.c)
# The CLI face of the model: the bundled example through the real binary.
add_test(NAME script_context_cli
  COMMAND $<TARGET_FILE:perf-doctor> context --format json
          ${CMAKE_CURRENT_LIST_DIR}/fixtures/scripts/training/text/run-qwen3-4B-8xgpu.sh)
set_tests_properties(script_context_cli PROPERTIES
  PASS_REGULAR_EXPRESSION "\"model\": \"qwen3-4B\".*\"tp\": 2.*--tensor-model-parallel-size")
add_test(NAME script_context_missing_file
  COMMAND $<TARGET_FILE:perf-doctor> context /nonexistent/run-x.sh)
set_tests_properties(script_context_missing_file PROPERTIES WILL_FAIL TRUE)
# Syntax errors on the line `bash -n` names: broken fixtures, and seeded random mutations.
add_test(NAME script_bash_syntax COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/test_bash_syntax.py $<TARGET_FILE:perf-doctor> 300)
set_tests_properties(script_bash_syntax PROPERTIES TIMEOUT 600)
