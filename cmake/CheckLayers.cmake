# CheckLayers.cmake — keep the library's layers from including upwards.
#
#   cmake -DROOT=<dir holding heptapod/> -P cmake/CheckLayers.cmake
#   e.g. cmake -DROOT=src -P cmake/CheckLayers.cmake
#
# The sources live in ROOT/heptapod/<layer>/... (any depth: kernels/naive belongs to kernels). The layers,
# lowest first, are listed in HEPTAPOD_LAYERS below (pass -DHEPTAPOD_LAYERS="a;b;c" to try another order).
# Every `#include "heptapod/<other>/..."` (or <heptapod/<other>/...>) line in a .h, .cpp or .inc file under
# ROOT/heptapod/<layer>/ must name a layer at or below <layer>. Each violation is printed as
#   FILE:LINE: <layer> may not include heptapod/<other>/... (layers, lowest first: core kernels ...)
# and so is every directory under ROOT/heptapod that is not a layer, every such source file lying directly
# in ROOT/heptapod, and every include of heptapod/<something> that names no layer. After all files are
# checked the script stops with FATAL_ERROR and the count (exit status 1); when all is well it prints
# nothing and exits 0.

cmake_minimum_required(VERSION 3.20)  # script mode too: IN_LIST and current policies

if(NOT DEFINED HEPTAPOD_LAYERS)
  set(HEPTAPOD_LAYERS core kernels layers model io data eval decode train serve)
endif()
string(REPLACE ";" " " _layers_text "${HEPTAPOD_LAYERS}")
set(_order "(layers, lowest first: ${_layers_text})")

if(NOT DEFINED ROOT OR "${ROOT}" STREQUAL "")
  message(FATAL_ERROR "CheckLayers: pass -DROOT=<directory holding heptapod/>, e.g. -DROOT=src")
endif()
# Print paths the way the caller spelled ROOT, without a trailing slash.
string(REGEX REPLACE "/+$" "" _root "${ROOT}")
if(_root STREQUAL "")
  set(_root "/")
endif()
get_filename_component(_root_abs "${_root}" ABSOLUTE)  # relative ROOT: relative to the working directory
set(_top "${_root_abs}/heptapod")
if(NOT IS_DIRECTORY "${_top}")
  message(FATAL_ERROR "CheckLayers: ${_root}/heptapod is not a directory")
endif()

set(_violations 0)

# The layer directories: every directory under ROOT/heptapod must be a layer; stray sources are an error.
file(GLOB _entries RELATIVE "${_top}" "${_top}/*")
list(SORT _entries)
foreach(_entry IN LISTS _entries)
  if(IS_DIRECTORY "${_top}/${_entry}")
    if(NOT _entry IN_LIST HEPTAPOD_LAYERS)
      message("${_root}/heptapod/${_entry}/: unknown layer directory '${_entry}' ${_order}")
      math(EXPR _violations "${_violations} + 1")
    endif()
  elseif(_entry MATCHES "\\.(h|cpp|inc)$")
    message("${_root}/heptapod/${_entry}: source file outside any layer ${_order}")
    math(EXPR _violations "${_violations} + 1")
  endif()
endforeach()

set(_include_re "\n[ \t]*#[ \t]*include[ \t]*[\"<]heptapod/[^\">\n]*[\">]")
foreach(_layer IN LISTS HEPTAPOD_LAYERS)
  if(NOT IS_DIRECTORY "${_top}/${_layer}")
    continue()
  endif()
  list(FIND HEPTAPOD_LAYERS "${_layer}" _rank)
  file(GLOB_RECURSE _files RELATIVE "${_top}" LIST_DIRECTORIES false
       "${_top}/${_layer}/*.h" "${_top}/${_layer}/*.cpp" "${_top}/${_layer}/*.inc")
  list(SORT _files)
  foreach(_file IN LISTS _files)
    file(READ "${_top}/${_file}" _text)
    if(NOT _text MATCHES "heptapod/")
      continue()
    endif()
    # Walk the include lines in order; a leading newline lets the first line match too. _line counts
    # the newlines already consumed, so the line of a match is _line + (newlines before it) + 1.
    string(REPLACE "\r" "" _rest "\n${_text}")
    set(_line 0)
    while(TRUE)
      string(REGEX MATCH "${_include_re}" _directive "${_rest}")
      if(_directive STREQUAL "")
        break()
      endif()
      string(FIND "${_rest}" "${_directive}" _pos)
      string(SUBSTRING "${_rest}" 0 ${_pos} _before)
      string(REGEX REPLACE "[^\n]+" "" _newlines "${_before}")
      string(LENGTH "${_newlines}" _n)
      math(EXPR _line "${_line} + ${_n} + 1")
      string(LENGTH "${_directive}" _len)
      math(EXPR _after "${_pos} + ${_len}")
      string(SUBSTRING "${_rest}" ${_after} -1 _rest)

      string(REGEX REPLACE "^.*heptapod/([^\">]*)[\">]$" "\\1" _path "${_directive}")
      if(_path MATCHES "^([^/]+)/")
        set(_other "${CMAKE_MATCH_1}")
      else()
        set(_other "")
      endif()
      if(_other STREQUAL "" OR NOT _other IN_LIST HEPTAPOD_LAYERS)
        message("${_root}/heptapod/${_file}:${_line}: ${_layer} includes heptapod/${_path}, which is in no layer ${_order}")
        math(EXPR _violations "${_violations} + 1")
        continue()
      endif()
      list(FIND HEPTAPOD_LAYERS "${_other}" _other_rank)
      if(_other_rank GREATER _rank)
        message("${_root}/heptapod/${_file}:${_line}: ${_layer} may not include heptapod/${_path} ${_order}")
        math(EXPR _violations "${_violations} + 1")
      endif()
    endwhile()
  endforeach()
endforeach()

if(_violations GREATER 0)
  message(FATAL_ERROR "CheckLayers: ${_violations} layering violation(s) under ${_root}/heptapod")
endif()
