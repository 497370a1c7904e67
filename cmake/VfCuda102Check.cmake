# SPDX-License-Identifier: BSD-3-Clause
# The CUDA code must build with CUDA 10.2 (JetPack 4.6, Jetson TX2), which CI cannot install:
# this check rejects, in cuda/**.cu, cuda/**.cuh and src/**.cuh, what newer toolkits accept but 10.2 lacks
# (docs/jetson.md lists it): libcu++ (cuda::std, <cuda/...>), C++17, runtime calls and device
# intrinsics added after 10.2. They may appear only in the first branch of an #if/#elif whose
# condition names CUDART_VERSION, __CUDACC_VER_MAJOR__ or __CUDA_ARCH__ (the new path, with the
# old one in its #else). Included by VfCuda.cmake at configure time, or run alone:
#   cmake -DVF_SOURCE_DIR=. -P cmake/VfCuda102Check.cmake
set(_vf_cuda102_forbidden
  # libcu++ and C++17
  "cuda::" "#include <cuda/" "if constexpr" "inline constexpr" "std::optional" "std::variant"
  "std::string_view" "[[nodiscard]]" "[[maybe_unused]]" "[[fallthrough]]" "template <auto"
  "__has_include" "std::is_same_v" "_v<"
  # runtime API newer than 10.2
  "cudaMallocAsync" "cudaFreeAsync" "cudaMemPool" "cudaLaunchKernelEx" "cudaLaunchAttribute"
  "cudaLaunchConfig_t" "cudaGridDependencySynchronize" "cudaTriggerProgrammaticLaunchCompletion"
  "cudaGraphInstantiateWithFlags" "cudaStreamGetCaptureInfo_v2" "cudaAccessPolicyWindow"
  "cudaStreamAttrValue" "cudaGraphNodeSetEnabled" "cudaGraphUpload"
  # device code newer than 10.2 (CUDA 11+) or needing sm_70+ (no sm_62 fallback)
  "__reduce_add_sync" "__reduce_min_sync" "__reduce_max_sync" "__reduce_and_sync"
  "__reduce_or_sync" "__reduce_xor_sync" "__match_any_sync" "__match_all_sync" "__nanosleep"
  "memcpy_async" "__pipeline_" "cuda_pipeline" "cg::reduce" "cooperative_groups::reduce"
  "invoke_one" "__cvta_generic_to_shared" "__builtin_assume" "__builtin_unreachable"
  "__nv_bfloat16" "cuda_bf16.h" "cuda_fp8.h" "__int128" "__vimax" "__vimin" "__viaddmax"
  "__viaddmin" "__vibmax" "__vibmin")

function(vf_check_cuda102 source_dir)
  file(GLOB_RECURSE _files ${source_dir}/cuda/*.cu ${source_dir}/cuda/*.cuh ${source_dir}/src/*.cuh)
  set(_bad "")
  foreach(_f IN LISTS _files)
    file(STRINGS "${_f}" _lines)
    set(_stack "")  # one entry per open #if: 1 = inside a version guard's new-path branch
    set(_guarded 0)
    set(_n 0)
    foreach(_line IN LISTS _lines)
      math(EXPR _n "${_n} + 1")
      set(_is_guard 0)
      if(_line MATCHES "CUDART_VERSION|__CUDACC_VER_MAJOR__|__CUDA_ARCH__")
        set(_is_guard 1)
      endif()
      if(_line MATCHES "^[ \t]*#[ \t]*if")
        list(APPEND _stack ${_is_guard})
      elseif(_line MATCHES "^[ \t]*#[ \t]*elif")
        list(POP_BACK _stack)
        list(APPEND _stack ${_is_guard})
      elseif(_line MATCHES "^[ \t]*#[ \t]*else")
        list(POP_BACK _stack)
        list(APPEND _stack 0)
      elseif(_line MATCHES "^[ \t]*#[ \t]*endif")
        list(POP_BACK _stack)
      endif()
      list(FIND _stack 1 _in_guard)
      if(_in_guard GREATER -1)
        continue()
      endif()
      string(REGEX REPLACE "//.*$" "" _code "${_line}")
      foreach(_tok IN LISTS _vf_cuda102_forbidden)
        string(FIND "${_code}" "${_tok}" _at)
        if(_at GREATER -1)
          file(RELATIVE_PATH _rel "${source_dir}" "${_f}")
          string(APPEND _bad "  ${_rel}:${_n}: '${_tok}' (not in CUDA 10.2 / sm_62)\n")
        endif()
      endforeach()
    endforeach()
  endforeach()
  if(_bad)
    message(FATAL_ERROR "viofront: CUDA code beyond CUDA 10.2 outside a version guard "
                        "(docs/jetson.md):\n${_bad}")
  endif()
endfunction()

if(CMAKE_SCRIPT_MODE_FILE)
  if(NOT VF_SOURCE_DIR)
    get_filename_component(VF_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
  endif()
  vf_check_cuda102("${VF_SOURCE_DIR}")
  message(STATUS "viofront: CUDA sources stay within CUDA 10.2")
endif()
