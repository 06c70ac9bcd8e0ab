# Debian packages of Heptapod: `cpack -G DEB` in the build directory makes two, one per install component
# (cmake/Install.cmake):
#   heptapod_<version>_<arch>.deb      component runtime: /usr/bin/heptapod. Depends: what dpkg-shlibdeps finds
#                                      for the binary (libc6, libstdc++6, libgcc-s1, libgomp1, libdnnl2,
#                                      libsentencepiece0, libutf8proc2, libpcre2-8-0, libopenblas0), plus the package that owns the BLAS
#                                      library the binary was linked with (libopenblas0-openmp: Debian's shlibs
#                                      only name the libopenblas0 metapackage, which any OpenBLAS build satisfies).
#   heptapod-dev_<version>_<arch>.deb  component development: the static libraries, the headers and the CMake
#                                      package under /usr. Depends: the -dev packages the exported targets
#                                      link and include (libdnnl-dev, libopenblas-openmp-dev,
#                                      libsentencepiece-dev, libutf8proc-dev, libpcre2-dev, nlohmann-json3-dev, and GCC's OpenMP and C++
#                                      libraries), and heptapod of the same version, so that one name installs all.
# The packages a library comes from are looked up with dpkg-query at configure time (the library, and the
# file its .so symlink resolves to), so they follow HEPTAPOD_BLAS; tests/package/deb.sh checks the result
# against what the extracted binary actually loads.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME heptapod)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "Heptapod")
set(CPACK_PACKAGE_CONTACT "Heptapod maintainers <heptapod@localhost>")
# (No double quotes in descriptions: CPack's DEB generator mangles them.)
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Transformer toolkit in C++20: training, beam search, BLEU")
set(CPACK_PACKAGE_DESCRIPTION
    "Heptapod is the Transformer of Attention Is All You Need as a C++20 toolkit. It trains and runs \
encoder-decoder models on the CPU: its own kernels, training from raw parallel text with exact resume, beam \
search with a key/value cache, BLEU and chrF, and a self-contained model file. One binary, heptapod, with \
subcommands (train, translate, score, bleu, ...).")
set(CPACK_STRIP_FILES OFF)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development)
# Each package's Description: the summary line above (CPack uses it for both), then these.
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_DEBIAN_DEVELOPMENT_DESCRIPTION
    "Development files of Heptapod for C++ programs: its static libraries, headers and CMake package \
(find_package of heptapod, then link the target heptapod::heptapod).")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME heptapod)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME heptapod-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_SECTION libdevel)

# The runtime package: dpkg-shlibdeps (package dpkg-dev) on the binary, plus the BLAS build it is linked with.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
list(JOIN HEPTAPOD_DEB_RUNTIME_PACKAGES ", " CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS)

# The development package: the -dev packages, and the binary's package of the same version.
set(_heptapod_dev_depends "heptapod (= ${PROJECT_VERSION})")
foreach(p ${HEPTAPOD_DEB_DEV_PACKAGES})
  if(p STREQUAL "nlohmann-json3-dev")
    string(APPEND _heptapod_dev_depends ", nlohmann-json3-dev (>= 3.10)")
  else()
    string(APPEND _heptapod_dev_depends ", ${p}")
  endif()
endforeach()
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS "${_heptapod_dev_depends}")

include(CPack)
