# Embeds every JSON file of analyzer/data into pd_base (base/data.h) so the binary never reads the
# source tree at run time (without this step base/data.c reads PD_DATA_DIR: development builds only).
# Include once after the pd_base library is defined:  include(analyzer/data/embed.cmake)
file(GLOB PD_DATA_JSON CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.json")
set(PD_DATA_C "${CMAKE_BINARY_DIR}/generated/pd_data.c")
add_custom_command(OUTPUT "${PD_DATA_C}"
  COMMAND "${CMAKE_COMMAND}" "-DOUT=${PD_DATA_C}" "-DFILES=${PD_DATA_JSON}"
          -P "${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake"
  DEPENDS ${PD_DATA_JSON} "${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake"
  COMMENT "Embedding analyzer/data" VERBATIM)
target_sources(pd_base PRIVATE "${PD_DATA_C}")
target_compile_definitions(pd_base PRIVATE PD_DATA_EMBEDDED=1)
