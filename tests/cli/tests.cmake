# The command line as a user drives it: rules and explain, project config files, options that
# match the editor settings, environment and script arguments, and the JSON and SARIF shapes
# against their schemas (python3-jsonschema).
set(_cli ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME cli_control COMMAND sh ${_cli}/test_control.sh $<TARGET_FILE:perf-doctor> ${PD_TESTS_DIR})
add_test(NAME cli_install COMMAND sh ${_cli}/test_install.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(cli_install PROPERTIES TIMEOUT 300)
# Golden outputs in en and zh beside each other: trace (and its SVG), trace --compare, profile; the
# JSON the same in both languages, the language from the locale without --lang (issue 28).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_golden COMMAND ${Python3_EXECUTABLE} ${_cli}/test_golden.py $<TARGET_FILE:perf-doctor> ${CMAKE_SOURCE_DIR})
endif()
