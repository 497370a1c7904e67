# SPDX-License-Identifier: BSD-3-Clause
# Cross-compiling for 64-bit ARM Linux (Jetson's CPU) on a Debian x86-64 host:
#   apt-get install gcc-aarch64-linux-gnu qemu-user, and (dpkg --add-architecture arm64)
#   libyaml-dev:arm64 libpng-dev:arm64 libcglm-dev:arm64 zlib1g-dev:arm64
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# The arm64 libraries come from Debian's multiarch folders; tests and programs run through
# qemu-user (ctest uses CMAKE_CROSSCOMPILING_EMULATOR). scripts/ci_aarch64.sh does it all.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Libraries only from the arm64 folders; headers are shared between architectures (multiarch).
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
find_program(VF_QEMU_AARCH64 qemu-aarch64)
if(VF_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${VF_QEMU_AARCH64}" CACHE FILEPATH "runs arm64 programs")
endif()
# No CUDA toolkit for the target here: the CPU-only library.
set(VF_ENABLE_CUDA OFF CACHE BOOL "" FORCE)
