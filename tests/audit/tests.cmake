# Audit (issue 3): expression engine, facts/memory arithmetic, per-rule fixtures, golden reports,
# the check command over a corpus of realistic scripts.
set(_audit "${CMAKE_CURRENT_LIST_DIR}")
pd_add_unit(audit_expr ${_audit}/test_expr.c)
pd_add_unit(audit_memory ${_audit}/test_memory.c)
pd_add_unit(audit_rules ${_audit}/test_rules.c)
pd_add_unit(audit_golden ${_audit}/test_golden.c)
add_test(NAME audit_cli COMMAND sh ${_audit}/test_cli.sh $<TARGET_FILE:perf-doctor> ${PD_TESTS_DIR})
pd_add_unit(audit_robust ${_audit}/test_robust.c)
pd_add_unit(audit_corpus ${_audit}/test_corpus.c)
pd_add_unit(audit_policy ${_audit}/test_policy.c)
pd_add_unit(audit_params ${_audit}/test_params.c)
pd_add_unit(audit_knowledge ${_audit}/test_knowledge.c)
pd_add_unit(audit_messages ${_audit}/test_messages.c)
# Every default a fact or rule writes equals the flag catalog's (issue 28), unless stated why.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME audit_defaults COMMAND ${Python3_EXECUTABLE} ${_audit}/check_defaults.py ${CMAKE_SOURCE_DIR})
  # The curated flag notes: on options the catalog has, in both languages (issue 28).
  add_test(NAME audit_flag_notes COMMAND ${Python3_EXECUTABLE} ${_audit}/check_flag_notes.py ${CMAKE_SOURCE_DIR})
  add_test(NAME audit_flag_notes_finds COMMAND ${Python3_EXECUTABLE} ${_audit}/check_flag_notes.py ${CMAKE_SOURCE_DIR} --self-test)
endif()
# The device table as data (issue 28): the shipped table round-trips; a fixture table with devices
# no real one has is compiled into base/device.c with no C changed; devc refuses planted faults.
pd_add_unit(audit_devices ${_audit}/test_devices.c)
set(_devx "${CMAKE_CURRENT_BINARY_DIR}/devices_extra")
add_custom_command(OUTPUT "${_devx}/generated/devices.inc"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${_devx}/generated"
  COMMAND pd_devc "${_audit}/devices_extra.json" "${_devx}/generated/devices.inc"
  DEPENDS pd_devc "${_audit}/devices_extra.json" VERBATIM)
add_executable(audit_devices_extra ${_audit}/test_devices.c ${CMAKE_SOURCE_DIR}/analyzer/base/device.c
               "${_devx}/generated/devices.inc")
target_include_directories(audit_devices_extra PRIVATE "${_devx}" ${CMAKE_SOURCE_DIR}/analyzer ${PD_TESTS_DIR})
target_compile_definitions(audit_devices_extra PRIVATE PD_DEVICES_FIXTURE=1)
target_compile_options(audit_devices_extra PRIVATE ${PD_WARN})
target_link_libraries(audit_devices_extra PRIVATE m)
add_test(NAME audit_devices_extra COMMAND audit_devices_extra)
if(Python3_Interpreter_FOUND)
  add_test(NAME audit_devc COMMAND ${Python3_EXECUTABLE} ${_audit}/check_devc.py $<TARGET_FILE:pd_devc>
           ${CMAKE_SOURCE_DIR} "${CMAKE_CURRENT_BINARY_DIR}/devc_cases")
endif()
