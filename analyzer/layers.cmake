# The layering rule: every #include "<folder>/..." in a layer's files must name the layer
# itself or one below it. Checked when the build is configured and again on every build (the
# pd_layers target, which the libraries depend on); a violation stops it with the file, the
# line and the rule it breaks.
#
#   base    the ground floor: allocation, strings, paths, hashing, limits, devices
#   script  text -> syntax tree -> script model          (uses base)
#   audit   script model -> facts -> findings -> reports (uses script, base)
#   trace   trace files -> per-rank and cross-rank summaries (uses base)
#   evidence  a trace summary's measures -> evidence on findings (uses audit and below)
#   cli     the subcommands                              (uses audit, trace and below)
#   lsp     the language server                          (uses audit, trace and below)
set(PD_LAYER_ALLOWED_base "base")
set(PD_LAYER_ALLOWED_script "base;script")
set(PD_LAYER_ALLOWED_audit "base;script;audit")
set(PD_LAYER_ALLOWED_trace "base;trace")
set(PD_LAYER_ALLOWED_evidence "base;script;audit;evidence")
set(PD_LAYER_ALLOWED_cli "base;script;audit;trace;evidence;cli")
set(PD_LAYER_ALLOWED_lsp "base;script;audit;trace;evidence;lsp")

function(pd_check_layers _root)
  set(_bad "")
  foreach(_layer base script audit trace evidence cli lsp)
    if(_layer STREQUAL "lsp")
      set(_dir "${_root}/lsp")
    else()
      set(_dir "${_root}/analyzer/${_layer}")
    endif()
    file(GLOB _files "${_dir}/*.c" "${_dir}/*.h")
    foreach(_f ${_files})
      if(_f MATCHES "/lsp/main\\.c$")
        continue() # the program's entry ties the faces together
      endif()
      file(STRINGS "${_f}" _incs REGEX "^#include \"")
      foreach(_i ${_incs})
        string(REGEX REPLACE "^#include \"([^/\"]+)/.*" "\\1" _to "${_i}")
        if(_to STREQUAL _i)
          set(_to "(no folder)")
        endif()
        list(FIND PD_LAYER_ALLOWED_${_layer} "${_to}" _ok)
        if(_ok LESS 0)
          file(RELATIVE_PATH _rel "${_root}" "${_f}")
          string(APPEND _bad "\n  ${_rel}: ${_i} (${_layer} may include only ${PD_LAYER_ALLOWED_${_layer}})")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(_bad)
    message(FATAL_ERROR "layering: an include points up or sideways:${_bad}")
  endif()
endfunction()

# `cmake -DPD_LAYERS_ROOT=DIR -P analyzer/layers.cmake` checks the tree at DIR (the tests use it
# on a tree with a violation planted in it).
if(CMAKE_SCRIPT_MODE_FILE AND DEFINED PD_LAYERS_ROOT)
  pd_check_layers("${PD_LAYERS_ROOT}")
endif()
