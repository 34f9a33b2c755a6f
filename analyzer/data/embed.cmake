# Embeds every JSON file of analyzer/data into pd_base (base/data.h) so the binary never reads the
# source tree at run time (without this step base/data.c reads PD_DATA_DIR: development builds only).
# Include once after the pd_base library is defined:  include(analyzer/data/embed.cmake)
file(GLOB PD_DATA_JSON CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.json")
# The flag catalog goes in compiled (flagc, CMakeLists.txt): flags.bin instead of flags.json.
list(FILTER PD_DATA_JSON EXCLUDE REGEX "/flags\\.json$")
set(PD_FLAGS_BIN "${CMAKE_BINARY_DIR}/generated/flags.bin")
add_custom_command(OUTPUT "${PD_FLAGS_BIN}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_BINARY_DIR}/generated"
  COMMAND pd_flagc "${CMAKE_CURRENT_LIST_DIR}/flags.json" "${PD_FLAGS_BIN}"
  DEPENDS pd_flagc "${CMAKE_CURRENT_LIST_DIR}/flags.json"
  COMMENT "Compiling the flag catalog" VERBATIM)
set(PD_DATA_C "${CMAKE_BINARY_DIR}/generated/pd_data.c")
add_custom_command(OUTPUT "${PD_DATA_C}"
  COMMAND "${CMAKE_COMMAND}" "-DOUT=${PD_DATA_C}" "-DFILES=${PD_DATA_JSON};${PD_FLAGS_BIN}"
          -P "${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake"
  DEPENDS ${PD_DATA_JSON} "${PD_FLAGS_BIN}" "${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake"
  COMMENT "Embedding analyzer/data" VERBATIM)
target_sources(pd_base PRIVATE "${PD_DATA_C}")
target_compile_definitions(pd_base PRIVATE PD_DATA_EMBEDDED=1)
