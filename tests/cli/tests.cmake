# The command line as a user drives it: rules and explain, project config files, options that
# match the editor settings, environment and script arguments, and the JSON and SARIF shapes
# against their schemas (python3-jsonschema).
set(_cli ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME cli_control COMMAND sh ${_cli}/test_control.sh $<TARGET_FILE:perf-doctor> ${PD_TESTS_DIR})
add_test(NAME cli_install COMMAND sh ${_cli}/test_install.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(cli_install PROPERTIES TIMEOUT 300)
