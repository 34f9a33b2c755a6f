# Editor integrations (issue 8): headless Neovim with editors/nvim, and the VS Code extension's
# Node tests and `vsce package`, all against the built server. Each test exits 77 (skipped)
# only when its tool (nvim; node/npm) is not installed.
set(_ed ${CMAKE_CURRENT_LIST_DIR})
set(_ed_src ${CMAKE_SOURCE_DIR})
set(_ed_work ${CMAKE_CURRENT_BINARY_DIR}/editors)

add_test(NAME editors_nvim
  COMMAND sh ${_ed}/nvim.sh ${_ed_src} ${_ed_work}/nvim $<TARGET_FILE:perf-doctor>
          ${PD_HTA_DIR}/hta-trace-filter-2rank)

add_test(NAME editors_vscode_node
  COMMAND sh ${_ed}/vscode.sh ${_ed_src} ${_ed_work}/vscode test)
add_test(NAME editors_vscode_package
  COMMAND sh ${_ed}/vscode.sh ${_ed_src} ${_ed_work}/vscode package)

set_tests_properties(editors_nvim editors_vscode_node editors_vscode_package PROPERTIES
  SKIP_RETURN_CODE 77
  ENVIRONMENT "PERF_DOCTOR_BIN=$<TARGET_FILE:perf-doctor>;PD_HTA_DIR=${PD_HTA_DIR}")
set_tests_properties(editors_nvim PROPERTIES TIMEOUT 180)
# The two VS Code tests share one work folder (and its node_modules): never at the same time.
set_tests_properties(editors_vscode_node editors_vscode_package PROPERTIES
  TIMEOUT 600 RESOURCE_LOCK editors_vscode_work)
