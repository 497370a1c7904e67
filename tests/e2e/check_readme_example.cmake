# SPDX-License-Identifier: BSD-3-Clause
# Fails when README.md does not contain the example program ${EXAMPLE} verbatim in a ```c block.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
# The README shows the program without its license line.
string(REGEX REPLACE "^// SPDX-License-Identifier: [^\n]*\n" "" example "${example}")
string(FIND "${readme}" "```c\n${example}```" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "README.md does not hold ${EXAMPLE} verbatim in a ```c block")
endif()
message(STATUS "README example matches ${EXAMPLE}")
