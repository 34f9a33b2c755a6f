# Robustness tests (issue 6) through the real binary: fault injection on the language server
# (framing, huge and wrong messages, shutdown, edit floods, files vanishing), trace folders with
# bad files, size limits, `source` following; and the long editing session. Python 3 standard
# library only. Run the same tests against the ASan build (-DPD_SANITIZE=ON) for LeakSanitizer's
# verdict: each test fails on any sanitizer report in the binary's stderr.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(_rb ${CMAKE_CURRENT_LIST_DIR})
  foreach(_t eof_in_body huge_message wrong_content_length after_shutdown flood_did_change
             sourced_config_vanishes trace_folder_faults script_size_limit trace_event_limit
             source_following)
    add_test(NAME robust_${_t} COMMAND ${Python3_EXECUTABLE} ${_rb}/test_faults.py
             $<TARGET_FILE:perf-doctor> ${PD_TESTS_DIR} ${PD_HTA_DIR} ${_t})
    set_tests_properties(robust_${_t} PROPERTIES LABELS robust SKIP_RETURN_CODE 77 TIMEOUT 600)
  endforeach()
  # 100,000 edits across 20 documents (PD_LONG_SESSION_EDITS to change), one analysis per
  # 100-edit batch.
  set(PD_LONG_SESSION_EDITS 100000 CACHE STRING "Edits in the robust_long_session test")
  add_test(NAME robust_long_session COMMAND ${Python3_EXECUTABLE} ${_rb}/test_long_session.py
           $<TARGET_FILE:perf-doctor> ${PD_TESTS_DIR} ${PD_LONG_SESSION_EDITS} 100)
  set_tests_properties(robust_long_session PROPERTIES LABELS robust TIMEOUT 1800)
endif()
