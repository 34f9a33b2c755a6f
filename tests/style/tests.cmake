# The code base's shape (issue 12): no source file over 1,000 lines, no function over 150. The
# layering rule is checked when the build is configured (analyzer/layers.cmake).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME style_sizes COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_sizes.py ${CMAKE_SOURCE_DIR})
  # Tests, CI and bench read only the repository (issue 23); the checker finds a planted reference.
  add_test(NAME style_self_contained COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_LIST_DIR}/check_self_contained.py ${CMAKE_SOURCE_DIR})
  add_test(NAME style_self_contained_finds COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_LIST_DIR}/check_self_contained.py --self-test)
  # ARCHITECTURE.md names every source file and folder, and nothing that is gone.
  add_test(NAME style_map COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_map.py ${CMAKE_SOURCE_DIR})
  # Every message (the audit's and the trace layer's) has en and zh, zh in Chinese (issue 28); the
  # checker finds what is planted in a bad document.
  add_test(NAME style_languages COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_languages.py ${CMAKE_SOURCE_DIR})
  add_test(NAME style_languages_finds COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_languages.py --self-test)
endif()
# The layering check refuses a planted upward include (a script file including an audit header).
add_test(NAME style_layers_refuse_upward
  COMMAND ${CMAKE_COMMAND} -DPD_LAYERS_ROOT=${CMAKE_CURRENT_LIST_DIR}/layer_violation
          -P ${CMAKE_SOURCE_DIR}/analyzer/layers.cmake)
set_tests_properties(style_layers_refuse_upward PROPERTIES
  PASS_REGULAR_EXPRESSION "analyzer/script/upward.c: #include \"audit/audit.h\"")
add_test(NAME style_layers_refuse_sideways
  COMMAND ${CMAKE_COMMAND} -DPD_LAYERS_ROOT=${CMAKE_CURRENT_LIST_DIR}/layer_violation
          -P ${CMAKE_SOURCE_DIR}/analyzer/layers.cmake)
set_tests_properties(style_layers_refuse_sideways PROPERTIES
  PASS_REGULAR_EXPRESSION "lsp/sideways.c: #include \"cli/cli.h\" \\(lsp may include only")
add_test(NAME style_layers_tree
  COMMAND ${CMAKE_COMMAND} -DPD_LAYERS_ROOT=${CMAKE_SOURCE_DIR} -P ${CMAKE_SOURCE_DIR}/analyzer/layers.cmake)
