# SPDX-License-Identifier: BSD-3-Clause
# Debian packages through CPack (scripts/build_packages.sh): libviofront<ABI> (the shared
# library), libviofront-dev (headers, the .so link, CMake and pkg-config files) and
# viofront-tools (the example programs). Package names follow Debian policy 8.1: the runtime
# package is named after the SONAME (libviofront.so.0.2 -> libviofront0.2). The CUDA backend
# links cudart statically and loads the driver at run time, so no CUDA package is a dependency.
set(VF_DEB_MAINTAINER "viofront developers <viofront@invalid>"
    CACHE STRING "Maintainer field of the Debian packages (Name <address>)")
set(VF_DEB_LIB_PACKAGE "libviofront${VF_SOVERSION}")

# Debian wants the license as share/doc/<package>/copyright in every package, in the
# machine-readable format (DEP-5) with the license text indented by one space.
file(READ "${PROJECT_SOURCE_DIR}/LICENSE" _vf_license)
string(REGEX MATCH "Copyright \\(c\\) [^\n]*" _vf_copyright_line "${_vf_license}")
string(REGEX REPLACE "^Copyright \\(c\\) " "" _vf_copyright_holder "${_vf_copyright_line}")
string(REGEX REPLACE "\n+$" "" _vf_license "${_vf_license}")
string(REPLACE "\n\n" "\n.\n" _vf_license "${_vf_license}")
string(REPLACE "\n" "\n " _vf_license "${_vf_license}")
set(_vf_copyright "${PROJECT_BINARY_DIR}/debian/copyright")
file(WRITE "${_vf_copyright}"
     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
     "Upstream-Name: viofront\n\n"
     "Files: *\nCopyright: ${_vf_copyright_holder}\nLicense: BSD-3-Clause\n ${_vf_license}\n")
foreach(_comp lib dev tools)
  if(_comp STREQUAL "lib")
    set(_pkg "${VF_DEB_LIB_PACKAGE}")
  elseif(_comp STREQUAL "dev")
    set(_pkg libviofront-dev)
  else()
    set(_pkg viofront-tools)
  endif()
  string(TOUPPER "${_comp}" _COMP)
  set(CPACK_DEBIAN_${_COMP}_PACKAGE_NAME "${_pkg}")
  install(FILES "${_vf_copyright}" DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_pkg} COMPONENT ${_comp})
endforeach()

set(CPACK_PACKAGE_NAME viofront)
set(CPACK_PACKAGE_VENDOR "the viofront developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib dev tools)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${VF_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Runtime dependencies come from dpkg-shlibdeps (libc6, libyaml-0-2, libpng16-16, and with CUDA
# libstdc++6 and libgcc-s1 for the static cudart); the library's own package gets a shlibs file.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# The tools need libviofront, which no installed package holds yet: dpkg-shlibdeps finds it in
# the build folder, and the tools name its package themselves (below).
if(CMAKE_LIBRARY_OUTPUT_DIRECTORY)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${CMAKE_LIBRARY_OUTPUT_DIRECTORY}")
else()
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}")
endif()
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(_vf_exact "${VF_DEB_LIB_PACKAGE} (= ${PROJECT_VERSION})")

set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIB_DESCRIPTION
   "GPU visual frontend for visual-inertial odometry - shared library
viofront rectifies stereo frames, builds image pyramids, tracks features with
pyramidal Lucas-Kanade, detects FAST corners and computes SGM disparity, and
hands the features to a VIO backend through callbacks. Every stage runs on
the CPU and, when the library was built with it, on a CUDA GPU.

This package holds the shared library.")

set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The pkg-config file names yaml-0.1 and libpng in Requires.private, which pkg-config resolves
# for every query, so their -dev packages are needed to use it.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "${_vf_exact}, libyaml-dev, libpng-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEV_DESCRIPTION
   "GPU visual frontend for visual-inertial odometry - development files
viofront is a C11 library with an optional CUDA backend: stereo rectification,
pyramids, FAST detection, Lucas-Kanade tracking and SGM disparity, and a
frontend that hands tracked features to a VIO backend through callbacks.

This package holds the headers, the CMake package (find_package(viofront))
and the pkg-config file (viofront.pc).")

set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION science)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "${_vf_exact}")
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
   "GPU visual frontend for visual-inertial odometry - example programs
The programs built on viofront: vf_replay (a EuRoC sequence through the
frontend, CSV and overlays), vf_synth (synthetic sequences with ground
truth), vf_bench (stage benchmarks), vf_stereo (disparity of one pair),
vf_vo (a minimal stereo odometry), vf_soak (long-run resource checks),
vf_faultsoak (a replay with injected faults, each to be reported once),
vf_features (the callback API in one page), vf_drift (tracking drift) and
vf_minimal (a pyramid on the best backend: a check of the installation).")

include(CPack)
