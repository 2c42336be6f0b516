# The never rule's own test: here a report floor links load/run, which the rule refuses whatever the includes say
# (every include in the fixture is legal under this graph).
set(EXECBENCH_AREAS core load/run report/read)
set(EXECBENCH_AREA_DEPS_core )
set(EXECBENCH_AREA_DEPS_load/run core)
set(EXECBENCH_AREA_DEPS_report/read load/run)
set(EXECBENCH_NEVER_report load/engine load/run load/capacity load/profile)
