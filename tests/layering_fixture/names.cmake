# The names rule's own test: http may use core, so every include is legal, but both floors hold a source named base.
set(EXECBENCH_AREAS core http)
set(EXECBENCH_AREA_DEPS_core )
set(EXECBENCH_AREA_DEPS_http core)
