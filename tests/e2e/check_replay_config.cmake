# SPDX-License-Identifier: BSD-3-Clause
# vf_replay and config files: typos are warned about on stderr with file, line and key (and
# --quiet silences them); a config error stops the program with exit 1 and no summary.
# Run with -DREPLAY=<vf_replay> -DSEQ=<sequence folder> -DWORK=<scratch folder>
# [-DEMULATOR=<qemu-user command for a cross build>].
file(MAKE_DIRECTORY "${WORK}")
file(WRITE "${WORK}/typo.yaml" "detector: {threshold: 25}\nfeatures: {max_featurs: 5}\nplaner:\n  horizon: 10\n")
file(WRITE "${WORK}/bad.yaml" "detector: {threshold: 25}\nfeatures: {max_features: 0}\n")

function(run_replay name)
  execute_process(COMMAND ${EMULATOR} "${REPLAY}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "${name}: exit ${rc}\n--- stdout\n${out}--- stderr\n${err}---")
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect_rc name want)
  if(NOT rc EQUAL want)
    message(FATAL_ERROR "${name}: exit ${rc}, expected ${want}")
  endif()
endfunction()

# text is "out" or "err"; fails when `piece` is absent (has) or present (lacks).
function(expect_has name text piece)
  string(FIND "${${text}}" "${piece}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "${name}: std${text} lacks \"${piece}\"")
  endif()
endfunction()
function(expect_lacks name text piece)
  string(FIND "${${text}}" "${piece}" pos)
  if(NOT pos EQUAL -1)
    message(FATAL_ERROR "${name}: std${text} has \"${piece}\"")
  endif()
endfunction()

# Typos: the replay runs and the library's warnings reach stderr.
run_replay(typo "${SEQ}" --backend cpu --max-frames 2 --config "${WORK}/typo.yaml")
expect_rc(typo 0)
expect_has(typo err "warning: ${WORK}/typo.yaml:2: unknown key 'features.max_featurs' ignored")
expect_has(typo err "warning: ${WORK}/typo.yaml:3: unknown section 'planer' ignored")
expect_has(typo out "frames 2 in")

run_replay(typo_quiet "${SEQ}" --backend cpu --max-frames 2 --config "${WORK}/typo.yaml" --quiet)
expect_rc(typo_quiet 0)
expect_lacks(typo_quiet err "unknown")

# A bad value: the error on stderr, exit 1, nothing on stdout (no summary).
run_replay(bad_value "${SEQ}" --backend cpu --max-frames 2 --config "${WORK}/bad.yaml")
expect_rc(bad_value 1)
expect_has(bad_value err "bad.yaml:2: features.max_features")
expect_lacks(bad_value out "frames")
expect_lacks(bad_value out "vf_replay")

# A missing file is found before the sequence is read (here there is none).
run_replay(missing "${WORK}/no-such-sequence" --backend cpu --config "${WORK}/missing.yaml")
expect_rc(missing 1)
expect_has(missing err "missing.yaml")
expect_lacks(missing err "no-such-sequence")
expect_lacks(missing out "frames")

# A camera-IMU time shift from the config (Kalibr's timeshift_cam_imu): with t_imu = t_cam + 4 ms
# each frame's interval ends 4 ms after its time, and the replay feeds the IMU that far ahead, so
# every frame after the first has its gyroscope seed (no warning). Outside -1..1 s: an error.
file(WRITE "${WORK}/shift.yaml" "frontend: {imu_timeshift_s: 0.004}\n")
run_replay(shift "${SEQ}" --backend cpu --max-frames 4 --config "${WORK}/shift.yaml")
expect_rc(shift 0)
expect_has(shift out "frames 4 in")
expect_lacks(shift err "no gyroscope seeding")
file(WRITE "${WORK}/shift_bad.yaml" "frontend: {imu_timeshift_s: 2}\n")
run_replay(shift_bad "${SEQ}" --backend cpu --max-frames 4 --config "${WORK}/shift_bad.yaml")
expect_rc(shift_bad 1)
expect_has(shift_bad err "shift_bad.yaml:1: frontend.imu_timeshift_s")

# The file's context section: its CPU threads are the replay's; --backend overrides its backend.
file(WRITE "${WORK}/threads.yaml" "context: {backend: cpu, cpu_threads: 3}\n")
run_replay(threads "${SEQ}" --max-frames 2 --config "${WORK}/threads.yaml")
expect_rc(threads 0)
expect_has(threads out "cpu backend (CPU, 3 threads)")
file(WRITE "${WORK}/cuda.yaml" "context: {backend: cuda, cpu_threads: 1}\n")
run_replay(override "${SEQ}" --backend cpu --max-frames 2 --config "${WORK}/cuda.yaml")
expect_rc(override 0)
expect_has(override out "cpu backend (CPU, 1 thread)")
