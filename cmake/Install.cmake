# Installing Heptapod: `cmake --install build --prefix P` puts
#   P/bin/heptapod                               the binary                               (component runtime)
#   P/lib/libheptapod_<layer>.a                  every layer's static library, and the
#   P/lib/libheptapod_kernels_<isa>.a            kernels' per-ISA builds                  (component development)
#   P/include/heptapod/<layer>/*.h               the public headers (not kernels/naive/, the test oracles, nor
#                                                kernels/isa/, internal to the ISA builds)
#   P/lib/cmake/heptapod/                        the CMake package: heptapodConfig.cmake, its version file and
#                                                the exported targets (heptapodTargets*.cmake)
# so that another project does
#   find_package(heptapod REQUIRED)
#   target_link_libraries(app PRIVATE heptapod::heptapod)
# The directories are fixed (bin, lib, include) rather than GNUInstallDirs': the layers' install include
# directory is `include` (src/CMakeLists.txt), and a multiarch lib/ chosen at configure time from
# CMAKE_INSTALL_PREFIX would not follow `cmake --install --prefix` or CPack's /usr.
include(CMakePackageConfigHelpers)

set(HEPTAPOD_INSTALL_CMAKEDIR lib/cmake/heptapod)

# The layers carry their install include directory themselves ($<INSTALL_INTERFACE:include>, src/CMakeLists.txt).
# Exported names: heptapod::heptapod (the whole library), heptapod::<layer> (heptapod::core, ...
# heptapod::serve), heptapod::kernels_<isa>, heptapod::blas, heptapod::sentencepiece, heptapod::utf8proc, heptapod::pcre2 and heptapod::asio.
set(_heptapod_layer_targets)
foreach(layer ${HEPTAPOD_LAYERS})
  list(APPEND _heptapod_layer_targets heptapod_${layer})
  set_target_properties(heptapod_${layer} PROPERTIES EXPORT_NAME ${layer})
endforeach()
set(_heptapod_isa_targets)
foreach(isa ${HEPTAPOD_ISAS})
  list(APPEND _heptapod_isa_targets heptapod_kernels_${isa})
  set_target_properties(heptapod_kernels_${isa} PROPERTIES EXPORT_NAME kernels_${isa})
endforeach()
set_target_properties(heptapod_library PROPERTIES EXPORT_NAME heptapod)
set_target_properties(heptapod_blas PROPERTIES EXPORT_NAME blas)
set_target_properties(heptapod_sentencepiece PROPERTIES EXPORT_NAME sentencepiece)
set_target_properties(heptapod_utf8proc PROPERTIES EXPORT_NAME utf8proc)
set_target_properties(heptapod_pcre2 PROPERTIES EXPORT_NAME pcre2)
set_target_properties(heptapod_asio PROPERTIES EXPORT_NAME asio)
# The headers are C++20; a consumer gets the standard from the target, not from its own settings. (The tree
# already builds as C++20 from CMAKE_CXX_STANDARD: this changes no flag here.)
target_compile_features(heptapod_library INTERFACE cxx_std_20)

# The installed binary finds its shared libraries where the build tree's does: CMake gives the build tree an
# RPATH for every linked library outside the system's directories, which here is OpenBLAS's
# /usr/lib/<multiarch>/openblas-openmp. Without it, the installed binary would load whichever OpenBLAS the
# alternatives system points libopenblas.so.0 at (possibly the pthread build, which does not share our
# OpenMP runtime).
set_target_properties(heptapod PROPERTIES INSTALL_RPATH_USE_LINK_PATH TRUE)

install(TARGETS heptapod RUNTIME DESTINATION bin COMPONENT runtime)

# The exported heptapod::kernels links the per-ISA libraries in the tree's order (baseline first): a consumer's
# link line keeps it (tests/package/install_consumer.sh scans the consumer's binary as the tree's is scanned).
install(TARGETS ${_heptapod_layer_targets} ${_heptapod_isa_targets} heptapod_library
                heptapod_blas heptapod_sentencepiece heptapod_utf8proc heptapod_pcre2 heptapod_asio
        EXPORT heptapodTargets
        ARCHIVE DESTINATION lib COMPONENT development)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/heptapod/ DESTINATION include/heptapod COMPONENT development
        FILES_MATCHING PATTERN "*.h"
        REGEX "/kernels/(naive|isa)$" EXCLUDE)

install(EXPORT heptapodTargets NAMESPACE heptapod:: DESTINATION ${HEPTAPOD_INSTALL_CMAKEDIR}
        COMPONENT development)

# The Debian packages behind the dependencies, for the config's error message and the packages' Depends
# (cmake/Package.cmake), looked up with dpkg-query rather than listed by hand, so that they follow
# HEPTAPOD_BLAS:
#   HEPTAPOD_DEB_DEV_PACKAGES      owners of the libraries heptapod::blas and heptapod::sentencepiece link (the
#                                  .so symlinks: libdnnl-dev, libopenblas-openmp-dev, libsentencepiece-dev),
#                                  of heptapod::utf8proc's (libutf8proc-dev) and heptapod::pcre2's (libpcre2-dev),
#                                  of Boost's headers (libboost1.74-dev)
#                                  of nlohmann_json's CMake package and of OpenMP's libgomp.so (libgcc-12-dev)
#   HEPTAPOD_DEB_RUNTIME_PACKAGES  the owner of the file HEPTAPOD_BLAS_LIBRARY resolves to
#                                  (libopenblas0-openmp); dpkg-shlibdeps finds the rest at packaging time
find_program(HEPTAPOD_DPKG_QUERY dpkg-query)
mark_as_advanced(HEPTAPOD_DPKG_QUERY)
function(heptapod_debian_owner out path)
  set(${out} "" PARENT_SCOPE)
  if(NOT HEPTAPOD_DPKG_QUERY OR NOT IS_ABSOLUTE "${path}")
    return()
  endif()
  # With a merged /usr, dpkg may know a file by /lib/... or by /usr/lib/....
  string(REGEX REPLACE "^/usr/" "/" twin "${path}")
  if(twin STREQUAL path)
    set(twin "/usr${path}")
  endif()
  foreach(candidate "${path}" "${twin}")
    execute_process(COMMAND ${HEPTAPOD_DPKG_QUERY} -S "${candidate}" RESULT_VARIABLE rc
                    OUTPUT_VARIABLE found ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0)
      string(REGEX REPLACE "^([^:, ]+).*" "\\1" package "${found}")  # "package:arch: path"
      set(${out} "${package}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

set(HEPTAPOD_DEB_DEV_PACKAGES)
set(HEPTAPOD_DEB_RUNTIME_PACKAGES)
get_target_property(_heptapod_blas_libs heptapod_blas INTERFACE_LINK_LIBRARIES)
get_target_property(_heptapod_spm_libs heptapod_sentencepiece INTERFACE_LINK_LIBRARIES)
set(_heptapod_boost_header ${Boost_INCLUDE_DIRS}/boost/version.hpp)
foreach(file IN LISTS _heptapod_blas_libs _heptapod_spm_libs UTF8PROC_LIBRARY PCRE2_LIBRARY _heptapod_boost_header OpenMP_gomp_LIBRARY)
  heptapod_debian_owner(package "${file}")
  if(package)
    list(APPEND HEPTAPOD_DEB_DEV_PACKAGES ${package})
  elseif(IS_ABSOLUTE "${file}")
    message(WARNING "Heptapod packaging: no Debian package owns ${file}; it is left out of heptapod-dev's Depends")
  endif()
endforeach()
heptapod_debian_owner(package "${nlohmann_json_DIR}/nlohmann_jsonConfig.cmake")
list(APPEND HEPTAPOD_DEB_DEV_PACKAGES ${package})
list(REMOVE_DUPLICATES HEPTAPOD_DEB_DEV_PACKAGES)
get_filename_component(_heptapod_blas_real "${HEPTAPOD_BLAS_LIBRARY}" REALPATH)
heptapod_debian_owner(package "${_heptapod_blas_real}")
if(package)
  list(APPEND HEPTAPOD_DEB_RUNTIME_PACKAGES ${package})
else()
  message(WARNING "Heptapod packaging: no Debian package owns ${_heptapod_blas_real}; "
                  "it is left out of heptapod's Depends")
endif()
list(JOIN HEPTAPOD_DEB_DEV_PACKAGES " " HEPTAPOD_DEB_DEV_PACKAGES_TEXT)

# heptapod::blas and heptapod::sentencepiece carry the absolute paths of Debian's libraries found at configure
# time (cmake/Dependencies.cmake), exported as they are: the static libraries were built against exactly those
# (the OpenMP build of OpenBLAS, sharing our OpenMP runtime). The config checks that they still exist and names
# the packages to install if not, instead of leaving the consumer with a link error.
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/heptapodConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/heptapodConfig.cmake
                              INSTALL_DESTINATION ${HEPTAPOD_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so 0.1 accepts 0.1.y only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/heptapodConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/heptapodConfig.cmake ${PROJECT_BINARY_DIR}/heptapodConfigVersion.cmake
        DESTINATION ${HEPTAPOD_INSTALL_CMAKEDIR} COMPONENT development)
