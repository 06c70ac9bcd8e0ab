# Every external dependency of Heptapod, in one place. All come from Debian 12 packages:
#   libdnnl-dev             oneDNN's sgemm: the fastest float GEMM on this machine (docs/blas.md)
#   libopenblas-openmp-dev  BLAS (double GEMM for gradient checks; float GEMM when HEPTAPOD_BLAS says so),
#                           sharing the OpenMP runtime with our own kernels
#   libomp / libgomp        OpenMP threading (ships with g++)
#   libsentencepiece-dev    sub-word vocabularies (training and encoding)
#   libutf8proc-dev         Unicode categories, case and decomposition for GPT-2's and BERT's tokenizers
#   libpcre2-dev            regular expressions (8-bit, UTF-8 and Unicode properties, JIT) for the Split and
#                           Replace patterns of Hugging Face tokenizer.json files (LLaMA 3's, Qwen's)
#   nlohmann-json3-dev      JSON for configs and the model file header
#   libcli11-dev            command-line parsing for the heptapod binary
#   libboost-dev            Boost.Asio and Boost.Beast (header-only): the event-driven HTTP front end of
#                           heptapod serve (docs/serving.md says why)
#   libcpp-httplib-dev      an HTTP client for the server's tests and bench/serve_load (a shared library built with
#                           OpenSSL, zlib and brotli; its header must see the same CPPHTTPLIB_* definitions, from
#                           its pkg-config); not linked into the product
#   libopenmpi-dev          distributed training (mpirun -np N heptapod train); optional: without it the binary
#                           trains in one process and `heptapod info` says so (HEPTAPOD_WITH_MPI=OFF to leave out)
#   libgtest-dev            unit tests
#   libbenchmark-dev        micro-benchmarks under bench/
# HEPTAPOD_BLAS picks the GEMM provider; docs/blas.md records why the default is the default.

set(HEPTAPOD_BLAS "onednn" CACHE STRING "float GEMM provider: onednn, openblas-openmp, openblas-pthread or blis-openmp")
set_property(CACHE HEPTAPOD_BLAS PROPERTY STRINGS onednn openblas-openmp openblas-pthread blis-openmp)

find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(nlohmann_json 3.10 REQUIRED)
find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
find_path(SENTENCEPIECE_INCLUDE_DIR sentencepiece_processor.h REQUIRED)
find_library(SENTENCEPIECE_LIBRARY sentencepiece REQUIRED)
find_library(SENTENCEPIECE_TRAIN_LIBRARY sentencepiece_train REQUIRED)
add_library(heptapod_sentencepiece INTERFACE)
target_include_directories(heptapod_sentencepiece SYSTEM INTERFACE ${SENTENCEPIECE_INCLUDE_DIR})
target_link_libraries(heptapod_sentencepiece INTERFACE ${SENTENCEPIECE_TRAIN_LIBRARY} ${SENTENCEPIECE_LIBRARY})
find_path(UTF8PROC_INCLUDE_DIR utf8proc.h REQUIRED)
find_library(UTF8PROC_LIBRARY utf8proc REQUIRED)
add_library(heptapod_utf8proc INTERFACE)
target_include_directories(heptapod_utf8proc SYSTEM INTERFACE ${UTF8PROC_INCLUDE_DIR})
target_link_libraries(heptapod_utf8proc INTERFACE ${UTF8PROC_LIBRARY})
find_path(PCRE2_INCLUDE_DIR pcre2.h REQUIRED)
find_library(PCRE2_LIBRARY pcre2-8 REQUIRED)
add_library(heptapod_pcre2 INTERFACE)
target_include_directories(heptapod_pcre2 SYSTEM INTERFACE ${PCRE2_INCLUDE_DIR})
target_link_libraries(heptapod_pcre2 INTERFACE ${PCRE2_LIBRARY})

set(_multiarch /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
set(_multiarch_inc /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
if(HEPTAPOD_BLAS STREQUAL "onednn")
  # float GEMM from oneDNN, double GEMM (tests) from the OpenMP build of OpenBLAS.
  find_library(HEPTAPOD_DNNL_LIBRARY NAMES dnnl REQUIRED)
  find_library(HEPTAPOD_BLAS_LIBRARY NAMES openblas PATHS ${_multiarch}/openblas-openmp NO_DEFAULT_PATH REQUIRED)
  set(HEPTAPOD_BLAS_INCLUDE ${_multiarch_inc}/openblas-openmp)
  set(HEPTAPOD_BLAS_KIND 3)
elseif(HEPTAPOD_BLAS STREQUAL "blis-openmp")
  find_library(HEPTAPOD_BLAS_LIBRARY NAMES blis PATHS ${_multiarch}/blis-openmp NO_DEFAULT_PATH REQUIRED)
  set(HEPTAPOD_BLAS_INCLUDE ${_multiarch_inc}/blis-openmp)
  set(HEPTAPOD_BLAS_KIND 2)
else()
  find_library(HEPTAPOD_BLAS_LIBRARY NAMES openblas PATHS ${_multiarch}/${HEPTAPOD_BLAS} NO_DEFAULT_PATH REQUIRED)
  set(HEPTAPOD_BLAS_INCLUDE ${_multiarch_inc}/${HEPTAPOD_BLAS})
  set(HEPTAPOD_BLAS_KIND 1)
endif()
unset(HEPTAPOD_BLAS_LIBRARY_FOUND)
message(STATUS "Heptapod BLAS: ${HEPTAPOD_BLAS} (${HEPTAPOD_BLAS_LIBRARY})")

add_library(heptapod_blas INTERFACE)
target_include_directories(heptapod_blas SYSTEM INTERFACE ${HEPTAPOD_BLAS_INCLUDE})
target_link_libraries(heptapod_blas INTERFACE ${HEPTAPOD_BLAS_LIBRARY})
if(HEPTAPOD_BLAS_KIND EQUAL 3)
  target_link_libraries(heptapod_blas INTERFACE ${HEPTAPOD_DNNL_LIBRARY})
endif()
target_compile_definitions(heptapod_blas INTERFACE
  HEPTAPOD_BLAS_NAME="${HEPTAPOD_BLAS}" HEPTAPOD_BLAS_KIND=${HEPTAPOD_BLAS_KIND})

find_package(Threads REQUIRED)
find_package(Boost 1.74 REQUIRED)
add_library(heptapod_asio INTERFACE)
target_include_directories(heptapod_asio SYSTEM INTERFACE ${Boost_INCLUDE_DIRS})
target_link_libraries(heptapod_asio INTERFACE Threads::Threads)

find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED cpp-httplib>=0.11)
find_library(HTTPLIB_LIBRARY NAMES cpp-httplib HINTS ${HTTPLIB_LIBRARY_DIRS} REQUIRED)
find_path(HTTPLIB_INCLUDE_DIR httplib.h HINTS ${HTTPLIB_INCLUDE_DIRS} REQUIRED)
add_library(heptapod_httplib INTERFACE)
target_include_directories(heptapod_httplib SYSTEM INTERFACE ${HTTPLIB_INCLUDE_DIR})
target_compile_options(heptapod_httplib INTERFACE ${HTTPLIB_CFLAGS_OTHER})  # -DCPPHTTPLIB_OPENSSL_SUPPORT ...
target_link_libraries(heptapod_httplib INTERFACE ${HTTPLIB_LIBRARY} Threads::Threads)

option(HEPTAPOD_WITH_MPI "Build distributed training on MPI (OpenMPI) when found" ON)
set(HEPTAPOD_MPI_FOUND OFF)
if(HEPTAPOD_WITH_MPI)
  find_package(MPI COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(HEPTAPOD_MPI_FOUND ON)
  endif()
endif()
message(STATUS "Heptapod MPI: ${HEPTAPOD_MPI_FOUND}")

# The Python module (python/): pybind11 for Debian's /usr/bin/python3, which has Debian's packages (the first
# python3 on PATH may be another install). On by default when both are found; the module and its tests are
# left out, with a message, when not.
option(HEPTAPOD_WITH_PYTHON "Build the heptapod Python module (pybind11) when found" ON)
set(HEPTAPOD_PYTHON_FOUND OFF)
if(HEPTAPOD_WITH_PYTHON)
  if(NOT Python_EXECUTABLE AND EXISTS /usr/bin/python3)
    set(Python_EXECUTABLE /usr/bin/python3)
  endif()
  find_package(Python COMPONENTS Interpreter Development.Module)
  set(PYBIND11_FINDPYTHON ON)
  find_package(pybind11 CONFIG QUIET)
  if(Python_FOUND AND pybind11_FOUND)
    set(HEPTAPOD_PYTHON_FOUND ON)
  endif()
endif()
message(STATUS "Heptapod Python module: ${HEPTAPOD_PYTHON_FOUND} (${Python_EXECUTABLE})")

add_library(heptapod_cli11 INTERFACE)
target_include_directories(heptapod_cli11 SYSTEM INTERFACE ${CLI11_INCLUDE_DIR})

if(HEPTAPOD_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(HEPTAPOD_BUILD_BENCH)
  find_package(benchmark REQUIRED)
endif()
