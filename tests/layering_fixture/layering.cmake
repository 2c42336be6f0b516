# A small declared graph for the layering check's own test: suite may use scenario, scenario only core.
set(EXECBENCH_AREAS core load/scenario load/suite)
set(EXECBENCH_AREA_DEPS_core )
set(EXECBENCH_AREA_DEPS_load/scenario core)
set(EXECBENCH_AREA_DEPS_load/suite load/scenario)
