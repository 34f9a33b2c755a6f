# The flag catalog and the Python reader of a Relax checkout (issue 24).
pd_add_unit(flagcat_units ${CMAKE_CURRENT_LIST_DIR}/test_flagcat.c)
