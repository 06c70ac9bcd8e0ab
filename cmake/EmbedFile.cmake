# EmbedFile.cmake — compile a file into the binary as a byte array (the server's web page).
#
#   cmake -DINPUT=page.html -DOUTPUT=page.cpp -DSYMBOL=name -P cmake/EmbedFile.cmake
#
# Writes OUTPUT defining `extern const char SYMBOL[]` (the bytes, then a terminating 0) and
# `extern const std::size_t SYMBOL_size` (the byte count) in namespace heptapod.
cmake_minimum_required(VERSION 3.20)
foreach(arg INPUT OUTPUT SYMBOL)
  if(NOT DEFINED ${arg})
    message(FATAL_ERROR "EmbedFile: pass -D${arg}=...")
  endif()
endforeach()
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
     "// Generated from ${name} by cmake/EmbedFile.cmake; do not edit.\n#include <cstddef>\n"
     "namespace heptapod {\nextern const char ${SYMBOL}[] = {${bytes}0};\n"
     "extern const std::size_t ${SYMBOL}_size = sizeof(${SYMBOL}) - 1;\n}  // namespace heptapod\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
