# Embeds every JSON file of analyzer/data into pd_base (base/data.h) so the binary never reads the
# source tree at run time (without this step base/data.c reads PD_DATA_DIR: development builds only).
# Include once after the pd_base library is defined:  include(analyzer/data/embed.cmake)
file(GLOB PD_DATA_JSON CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.json")
# The flag catalog and the trace layer's sentences go in compiled (flagc, tmsgc: CMakeLists.txt):
# flags.bin and trace_messages.bin instead of their JSON; the device table is C (devc).
list(FILTER PD_DATA_JSON EXCLUDE REGEX "/(flags|trace_messages|devices)\\.json$")
set(PD_FLAGS_BIN "${CMAKE_BINARY_DIR}/generated/flags.bin")
# flagc writes into generated/ before anything else has made it (a clean build)
file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/generated")
add_custom_command(OUTPUT "${PD_FLAGS_BIN}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/generated"
  COMMAND pd_flagc "${CMAKE_CURRENT_LIST_DIR}/flags.json" "${PD_FLAGS_BIN}"
  DEPENDS pd_flagc "${CMAKE_CURRENT_LIST_DIR}/flags.json"
  COMMENT "Compiling the flag catalog" VERBATIM)
set(PD_TMSG_BIN "${CMAKE_BINARY_DIR}/generated/trace_messages.bin")
add_custom_command(OUTPUT "${PD_TMSG_BIN}"
  COMMAND pd_tmsgc "${CMAKE_CURRENT_LIST_DIR}/trace_messages.json" "${PD_TMSG_BIN}"
  DEPENDS pd_tmsgc "${CMAKE_CURRENT_LIST_DIR}/trace_messages.json"
  COMMENT "Checking and compiling the trace messages" VERBATIM)
set(PD_DATA_C "${CMAKE_BINARY_DIR}/generated/pd_data.c")
add_custom_command(OUTPUT "${PD_DATA_C}"
  COMMAND "${CMAKE_COMMAND}" "-DOUT=${PD_DATA_C}" "-DFILES=${PD_DATA_JSON};${PD_FLAGS_BIN};${PD_TMSG_BIN}"
          -P "${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake"
  DEPENDS ${PD_DATA_JSON} "${PD_FLAGS_BIN}" "${PD_TMSG_BIN}" "${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake"
  COMMENT "Embedding analyzer/data" VERBATIM)
target_sources(pd_base PRIVATE "${PD_DATA_C}")
target_compile_definitions(pd_base PRIVATE PD_DATA_EMBEDDED=1)
