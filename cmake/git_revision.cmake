# Writes OUTPUT from TEMPLATE with the revision of the checkout at SOURCE_DIR, run by the build (cmake -P) on every
# build so binaries never report a revision older than their sources. "-dirty" marks tracked files that differ from
# that revision; outside a git checkout (a tarball) or without git the revision is "unknown". configure_file leaves
# OUTPUT untouched when the text is unchanged, so only a new revision or dirty state recompiles anything.
cmake_minimum_required(VERSION 3.25)
set(revision unknown)
if(GIT_EXECUTABLE)
  execute_process(COMMAND "${GIT_EXECUTABLE}" rev-parse --short=12 HEAD
    WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE head
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(rc EQUAL 0 AND head)
    set(revision "${head}")
    # --untracked-files=no: a stray output file is not a change to the code the binary was built from.
    execute_process(COMMAND "${GIT_EXECUTABLE}" status --porcelain --untracked-files=no
      WORKING_DIRECTORY "${SOURCE_DIR}" RESULT_VARIABLE rc OUTPUT_VARIABLE changes ERROR_QUIET)
    if(NOT rc EQUAL 0 OR changes)
      string(APPEND revision "-dirty")
    endif()
  endif()
endif()
set(EXECBENCH_GIT_REVISION "${revision}")
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
