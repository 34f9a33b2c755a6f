# Every analyzer module is one .c/.h pair in this folder.
file(GLOB PD_ANALYZER_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.c")
