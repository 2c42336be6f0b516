# Writes OUTPUT from TEMPLATE with digests of the sources the binaries are built from, run by the build (cmake -P)
# on every build, as cmake/git_revision.cmake is: a figure then names the code that made it even when the checkout is
# dirty or has no git at all (a revision says which commit; a digest says which bytes).
#   EXECBENCH_SOURCE_DIGEST: SHA-256 over every file of src/, include/, apps/ and cmake/ and the top CMake files, as
#     "path\0sha256\n" in path order; the first 16 hex digits.
#   One digest per model (the names of the rows in include/execbench/core/model_names.hpp): over its own files
#     (src/models/<name>.* and <name>_*) and every file of the models area they include, directly or through another,
#     with each header's .cpp, so a model's identity changes when its own code or what it is built on changes (coro's
#     task type, a shared io_server) and not when another model's does.
cmake_minimum_required(VERSION 3.25)

function(digest_of files out)
  list(SORT files)
  set(text "")
  foreach(file IN LISTS files)
    file(SHA256 "${file}" sum)
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${file}")
    string(APPEND text "${rel}\n${sum}\n")
  endforeach()
  string(SHA256 all "${text}")
  string(SUBSTRING "${all}" 0 16 short)
  set(${out} ${short} PARENT_SCOPE)
endfunction()

file(GLOB_RECURSE sources "${SOURCE_DIR}/src/*" "${SOURCE_DIR}/include/*" "${SOURCE_DIR}/apps/*"
  "${SOURCE_DIR}/cmake/*")
list(APPEND sources "${SOURCE_DIR}/CMakeLists.txt" "${SOURCE_DIR}/CMakePresets.json")
digest_of("${sources}" EXECBENCH_SOURCE_DIGEST)

# The models area's files a model is built from: its own .cpp, then what each file includes of src/models/ (private
# headers, by file name) or include/execbench/models/ (public ones), until nothing new is found.
function(model_files model out)
  # Its own files: <model>.cpp and .hpp, and any <model>_*.cpp beside them (fiber_ucontext.cpp).
  file(GLOB seen "${SOURCE_DIR}/src/models/${model}.*" "${SOURCE_DIR}/src/models/${model}_*")
  set(todo ${seen})
  while(todo)
    list(POP_FRONT todo file)
    file(STRINGS "${file}" includes REGEX "^#include \"")
    foreach(line IN LISTS includes)
      string(REGEX MATCH "\"([^\"]+)\"" _ "${line}")
      set(name ${CMAKE_MATCH_1})
      set(found "")
      if(EXISTS "${SOURCE_DIR}/src/models/${name}")
        set(found "${SOURCE_DIR}/src/models/${name}")
      elseif(name MATCHES "^execbench/models/" AND EXISTS "${SOURCE_DIR}/include/${name}")
        set(found "${SOURCE_DIR}/include/${name}")
      endif()
      if(found AND NOT found IN_LIST seen)
        list(APPEND seen "${found}")
        list(APPEND todo "${found}")
        # A header's implementation file belongs to it: io_server.hpp -> io_server.cpp, and a public header's in
        # src/models/ (include/execbench/models/movie_database.hpp -> src/models/movie_database.cpp).
        get_filename_component(stem "${found}" NAME_WE)
        set(implementation "${SOURCE_DIR}/src/models/${stem}.cpp")
        # Not the selector's: server.cpp builds every model by name, so following it would make each model all four.
        if(EXISTS "${implementation}" AND NOT implementation IN_LIST seen AND NOT stem STREQUAL "server")
          list(APPEND seen "${implementation}")
          list(APPEND todo "${implementation}")
        endif()
      endif()
    endforeach()
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

file(STRINGS "${SOURCE_DIR}/include/execbench/core/model_names.hpp" rows REGEX "^    {\"[a-z0-9_]+\", \"")
set(EXECBENCH_MODEL_DIGESTS "")
foreach(row IN LISTS rows)
  string(REGEX MATCH "{\"([a-z0-9_]+)\"" _ "${row}")
  set(model ${CMAKE_MATCH_1})
  model_files(${model} files)
  digest_of("${files}" digest)
  string(APPEND EXECBENCH_MODEL_DIGESTS "        {\"${model}\", \"${model}@${digest}\"},\n")
endforeach()
configure_file("${TEMPLATE}" "${OUTPUT}" @ONLY)
