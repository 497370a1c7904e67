# SPDX-License-Identifier: BSD-3-Clause
# install(): headers, library, CMake package config and pkg-config file. Components follow the
# Debian packages (cmake/VfPackage.cmake): lib (the shared library), dev (headers, the .so link,
# CMake and pkg-config files, a static library), tools (the example programs, examples/).
include(CMakePackageConfigHelpers)
install(TARGETS viofront EXPORT viofrontTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/viofront DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
        FILES_MATCHING PATTERN "*.h")
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/include/viofront/vf_version.h"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/viofront COMPONENT dev)
# The Debian packages carry the license as share/doc/<package>/copyright instead.
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/viofront COMPONENT license)
install(EXPORT viofrontTargets NAMESPACE viofront:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/viofront
        COMPONENT dev)

# A static viofront carries its private dependencies into the consumer's link line.
set(VF_STATIC_DEPS "")
set(VF_PC_PRIVATE_LIBS "-lm -lpthread")
if(NOT BUILD_SHARED_LIBS)
  set(VF_STATIC_DEPS "find_dependency(Threads)")
  if(VF_HAVE_CUDA)
    string(APPEND VF_STATIC_DEPS "\nfind_dependency(CUDAToolkit)")
    set(VF_PC_PRIVATE_LIBS "-L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lstdc++ ${VF_PC_PRIVATE_LIBS}")
  endif()
endif()
configure_package_config_file(cmake/viofrontConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/viofrontConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/viofront)
# Before 1.0 a minor release may break the ABI (the versioning rule), so only the same minor
# version satisfies find_package(viofront 0.2); from 1.0 on, the same major.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(_vf_compat SameMinorVersion)
else()
  set(_vf_compat SameMajorVersion)
endif()
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/viofrontConfigVersion.cmake"
  COMPATIBILITY ${_vf_compat})
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/viofrontConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/viofrontConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/viofront COMPONENT dev)
file(RELATIVE_PATH VF_PC_PREFIX_REL "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/viofront.pc.in "${CMAKE_CURRENT_BINARY_DIR}/viofront.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/viofront.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT dev)
