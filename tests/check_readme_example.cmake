# Fails when README.md does not contain examples/vf_minimal.c verbatim (between its ```c fence).
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "```c\n${example}```" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "README.md does not hold examples/vf_minimal.c verbatim in a ```c block")
endif()
message(STATUS "README example matches examples/vf_minimal.c")
