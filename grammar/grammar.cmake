# Pins and builds the tree-sitter grammars perf-doctor reads with (C sources from the npm
# registry): bash for launch scripts, Python for a Relax checkout's own argument definitions.
#
# Why these versions: they are the newest releases with parser ABI 14; Debian 12's runtime
# (0.20.7) accepts ABI 13..14 and rejects 0.25.x (ABI 15). Each tarball is fetched with
# `npm pack` (no install scripts run), checked against its pinned sha256, and unpacked into the
# build tree. Nothing of the grammars is committed. Offline: pass
# -DPD_GRAMMAR_TARBALL=/path/to/tree-sitter-bash-0.23.3.tgz and
# -DPD_PYTHON_GRAMMAR_TARBALL=/path/to/tree-sitter-python-0.23.6.tgz, or keep the tarballs in
# ~/.cache/perf-doctor/.

set(PD_GRAMMAR_VERSION "0.23.3")
set(PD_GRAMMAR_SHA256 "10f4d67f56e07bc6cc34c49afb34e232269c1e0a19933880dfdb5dd738a8fc7d")
set(PD_GRAMMAR_TARBALL "" CACHE FILEPATH "Local copy of tree-sitter-bash-${PD_GRAMMAR_VERSION}.tgz (skips npm)")
set(PD_PYTHON_GRAMMAR_VERSION "0.23.6")
set(PD_PYTHON_GRAMMAR_SHA256 "aab5b860d93dbf84b37fed532f7dacc0468ede5387d0c74911d68f964287662a")
set(PD_PYTHON_GRAMMAR_TARBALL "" CACHE FILEPATH "Local copy of tree-sitter-python-${PD_PYTHON_GRAMMAR_VERSION}.tgz (skips npm)")

function(_pd_grammar_ok path sha out)
  set(${out} FALSE PARENT_SCOPE)
  if(EXISTS "${path}")
    file(SHA256 "${path}" _sum)
    if(_sum STREQUAL sha)
      set(${out} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

# pd_pin_grammar(LANG VERSION SHA256 LOCAL_TARBALL TARGET): the static library TARGET built from
# tree-sitter-LANG@VERSION's parser.c and scanner.c.
function(pd_pin_grammar lang version sha local target)
  set(_pkg "tree-sitter-${lang}")
  set(_name "${_pkg}-${version}.tgz")
  set(_gdir "${CMAKE_BINARY_DIR}/_grammar/${lang}")
  set(_cache "$ENV{HOME}/.cache/perf-doctor")
  set(_tgz "${_gdir}/${_name}")
  file(MAKE_DIRECTORY "${_gdir}")
  _pd_grammar_ok("${_tgz}" "${sha}" _have)
  if(NOT _have)
    foreach(_cand "${local}" "${_cache}/${_name}")
      _pd_grammar_ok("${_cand}" "${sha}" _ok)
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
      message(FATAL_ERROR "${_pkg} ${version}: npm not found and no tarball given "
        "(install npm, or pass the tarball's path: see grammar/grammar.cmake)")
    endif()
    message(STATUS "Fetching ${_pkg}@${version} with npm pack")
    execute_process(COMMAND "${NPM}" pack "${_pkg}@${version}" --silent
      WORKING_DIRECTORY "${_gdir}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
    _pd_grammar_ok("${_tgz}" "${sha}" _have)
    if(NOT _have)
      message(FATAL_ERROR "${_pkg} ${version}: npm pack failed or checksum mismatch (rc=${_rc}) ${_err}")
    endif()
    file(MAKE_DIRECTORY "${_cache}")
    file(COPY "${_tgz}" DESTINATION "${_cache}")
  endif()
  set(_src "${_gdir}/package/src")
  if(NOT EXISTS "${_src}/parser.c")
    file(ARCHIVE_EXTRACT INPUT "${_tgz}" DESTINATION "${_gdir}" PATTERNS "package/src/*" "package/LICENSE")
  endif()
  add_library(${target} STATIC "${_src}/parser.c" "${_src}/scanner.c")
  # A grammar compiles against its own bundled tree_sitter/parser.h, never /usr/include's.
  target_include_directories(${target} PRIVATE "${_src}")
  target_compile_options(${target} PRIVATE -w -O2)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()

pd_pin_grammar(bash "${PD_GRAMMAR_VERSION}" "${PD_GRAMMAR_SHA256}" "${PD_GRAMMAR_TARBALL}" ts_bash)
pd_pin_grammar(python "${PD_PYTHON_GRAMMAR_VERSION}" "${PD_PYTHON_GRAMMAR_SHA256}" "${PD_PYTHON_GRAMMAR_TARBALL}" ts_python)
