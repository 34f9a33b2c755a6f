# Pins and builds the tree-sitter-bash grammar (C sources from the npm registry).
#
# Why 0.23.3: it is the newest release with parser ABI 14; Debian 12's runtime (0.20.7) accepts
# ABI 13..14 and rejects 0.25.x (ABI 15). The tarball is fetched with `npm pack` (no install
# scripts run), checked against the pinned sha256, and unpacked into the build tree. Nothing of
# the grammar is committed. Offline: pass -DPD_GRAMMAR_TARBALL=/path/to/tree-sitter-bash-0.23.3.tgz
# or keep the tarball in ~/.cache/perf-doctor/.

set(PD_GRAMMAR_VERSION "0.23.3")
set(PD_GRAMMAR_SHA256 "10f4d67f56e07bc6cc34c49afb34e232269c1e0a19933880dfdb5dd738a8fc7d")
set(PD_GRAMMAR_NAME "tree-sitter-bash-${PD_GRAMMAR_VERSION}.tgz")
set(PD_GRAMMAR_TARBALL "" CACHE FILEPATH "Local copy of ${PD_GRAMMAR_NAME} (skips npm)")

set(_gdir "${CMAKE_BINARY_DIR}/_grammar")
set(_cache "$ENV{HOME}/.cache/perf-doctor")
set(_tgz "${_gdir}/${PD_GRAMMAR_NAME}")
file(MAKE_DIRECTORY "${_gdir}")

function(_pd_grammar_ok path out)
  set(${out} FALSE PARENT_SCOPE)
  if(EXISTS "${path}")
    file(SHA256 "${path}" _sum)
    if(_sum STREQUAL PD_GRAMMAR_SHA256)
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

_pd_grammar_ok("${_tgz}" _have)
if(NOT _have)
  foreach(_cand "${PD_GRAMMAR_TARBALL}" "${_cache}/${PD_GRAMMAR_NAME}")
    _pd_grammar_ok("${_cand}" _ok)
    if(_ok)
      file(COPY "${_cand}" DESTINATION "${_gdir}")
      set(_have TRUE)
      break()
    endif()
  endforeach()
endif()
if(NOT _have)
  find_program(NPM npm)
  if(NOT NPM)
    message(FATAL_ERROR "tree-sitter-bash ${PD_GRAMMAR_VERSION}: npm not found and no tarball given "
      "(install npm, or pass -DPD_GRAMMAR_TARBALL=...)")
  endif()
  message(STATUS "Fetching tree-sitter-bash@${PD_GRAMMAR_VERSION} with npm pack")
  execute_process(COMMAND "${NPM}" pack "tree-sitter-bash@${PD_GRAMMAR_VERSION}" --silent
    WORKING_DIRECTORY "${_gdir}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
  _pd_grammar_ok("${_tgz}" _have)
  if(NOT _have)
    message(FATAL_ERROR "tree-sitter-bash ${PD_GRAMMAR_VERSION}: npm pack failed or checksum mismatch "
      "(rc=${_rc}) ${_err}")
  endif()
  file(MAKE_DIRECTORY "${_cache}")
  file(COPY "${_tgz}" DESTINATION "${_cache}")
endif()

set(_src "${_gdir}/package/src")
if(NOT EXISTS "${_src}/parser.c")
  file(ARCHIVE_EXTRACT INPUT "${_tgz}" DESTINATION "${_gdir}" PATTERNS "package/src/*" "package/LICENSE")
endif()

add_library(ts_bash STATIC "${_src}/parser.c" "${_src}/scanner.c")
# The grammar compiles against its own bundled tree_sitter/parser.h, never /usr/include's.
target_include_directories(ts_bash PRIVATE "${_src}")
target_compile_options(ts_bash PRIVATE -w -O2)
set_target_properties(ts_bash PROPERTIES POSITION_INDEPENDENT_CODE ON)
