# Every server module is one .c/.h pair in this folder; main.c is the program's entry only.
file(GLOB PD_LSP_SOURCES CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.c")
list(FILTER PD_LSP_SOURCES EXCLUDE REGEX "/main\\.c$")
