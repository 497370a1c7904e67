# SPDX-License-Identifier: BSD-3-Clause
# Third-party dependencies, all from Debian packages. Each is found through pkg-config when it
# is there, else through plain find_path/find_library, and a missing one stops configure with
# the name of the package to install.
find_package(Threads REQUIRED)
find_package(PkgConfig QUIET)

function(vf_find_dependency pc_name header lib debian_pkg)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(_vf_${pc_name} QUIET ${pc_name})
  endif()
  find_path(_vf_inc_${pc_name} ${header} HINTS ${_vf_${pc_name}_INCLUDE_DIRS})
  if(lib)
    find_library(_vf_lib_${pc_name} NAMES ${lib} HINTS ${_vf_${pc_name}_LIBRARY_DIRS})
  endif()
  if(NOT _vf_inc_${pc_name} OR (lib AND NOT _vf_lib_${pc_name}))
    message(FATAL_ERROR "viofront needs ${pc_name} (header ${header}). Install it with: "
                        "sudo apt-get install ${debian_pkg}")
  endif()
  # Plain paths (not imported targets) so that a static viofront's exported link interface
  # stays usable by consumers.
  set(VF_DEP_INCLUDE_DIRS ${VF_DEP_INCLUDE_DIRS} "${_vf_inc_${pc_name}}" PARENT_SCOPE)
  if(lib)
    set(VF_DEP_LIBRARIES ${VF_DEP_LIBRARIES} "${_vf_lib_${pc_name}}" PARENT_SCOPE)
  endif()
  message(STATUS "viofront: ${pc_name} found (${_vf_inc_${pc_name}})")
endfunction()

set(VF_DEP_INCLUDE_DIRS "")
set(VF_DEP_LIBRARIES "")
vf_find_dependency(yaml-0.1 yaml.h yaml libyaml-dev)
vf_find_dependency(libpng png.h "png16;png" libpng-dev)
# cglm is used header-only (inline API), so no library is linked.
vf_find_dependency(cglm cglm/cglm.h "" libcglm-dev)
