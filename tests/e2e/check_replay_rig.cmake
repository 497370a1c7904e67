# SPDX-License-Identifier: BSD-3-Clause
# vf_replay --rig on short vf_synth rigs (8 frames, 300 landmarks, no noise): front-back gives
# two pair units, cam0 and cam2 tracked with their right cameras' records (cam1, cam3); ring4
# four mono units without records. Per camera: features, the ground-truth drift median under
# 0.2 px, the CSV's camera column and rig ids; a camera missing one image skips that set's unit
# only; with Kalibr's time shifts no unit goes unseeded; a stereo sequence replayed as a rig gives
# the plain replay's CSV and evaluation. Run with
# -DREPLAY=<vf_replay> -DSYNTH=<vf_synth> -DSEQ=<a vf_synth stereo sequence> -DWORK=<scratch
# folder> [-DEMULATOR=<qemu-user command for a cross build>].
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

function(run name)
  execute_process(COMMAND ${EMULATOR} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "${name}: exit ${rc}\n--- stdout\n${out}--- stderr (tail)\n${err}---")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: exit ${rc}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

# Fails with `name` unless the condition (the further arguments, as if() takes them) holds.
function(expect name)
  if(NOT (${ARGN}))
    message(FATAL_ERROR "${name}")
  endif()
  message(STATUS "ok: ${name}")
endfunction()

# text has (want 1) or lacks (want 0) piece.
function(expect_text name text piece want)
  string(FIND "${text}" "${piece}" pos)
  if((want AND pos EQUAL -1) OR (NOT want AND NOT pos EQUAL -1))
    message(FATAL_ERROR "${name}: \"${piece}\" ${want} expected in\n${text}")
  endif()
  message(STATUS "ok: ${name}")
endfunction()

# Checks entry i of the JSON's cameras: its names, frames, features, records and drift median.
function(check_camera json i cam right frames want_records)
  string(JSON c GET "${json}" cameras ${i} camera)
  string(JSON r GET "${json}" cameras ${i} right)
  string(JSON n GET "${json}" cameras ${i} frames)
  string(JSON f GET "${json}" cameras ${i} features)
  string(JSON rr GET "${json}" cameras ${i} right_records)
  string(JSON d GET "${json}" cameras ${i} eval drift median_px)
  string(JSON dn GET "${json}" cameras ${i} eval drift observations)
  string(JSON ro GET "${json}" cameras ${i} eval camera1 observations)
  message(STATUS "${cam}: right ${r}, ${n} frames, ${f} features, ${rr} camera-1 records, "
                 "drift median ${d} px over ${dn}, ${ro} records with ground truth")
  expect("${cam}: entry ${i} is ${c}" c STREQUAL cam)
  expect("${cam}: right camera ${r}, expected ${right}" r STREQUAL right)
  expect("${cam}: ${n} frames, expected ${frames}" n EQUAL frames)
  expect("${cam}: ${f} features" f GREATER 1000)
  expect("${cam}: drift median ${d} px over ${dn} observations" d LESS 0.2 AND dn GREATER 500)
  if(want_records)
    expect("${cam}: ${rr} camera-1 records, ${ro} compared" rr GREATER 1000 AND ro GREATER 1000)
  else()
    expect("${cam}: ${rr} camera-1 records, none expected" rr EQUAL 0 AND ro EQUAL 0)
  endif()
endfunction()

# Rows of camera `cam` in the CSV and of them rows whose id carries unit bits (>= 2^56: 17 or
# more digits).
function(count_csv csv cam rows tagged)
  file(STRINGS "${csv}" all REGEX "^[0-9]+,[0-9]+,${cam},")
  file(STRINGS "${csv}" big REGEX "^[0-9]+,[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]+,${cam},")
  list(LENGTH all n)
  list(LENGTH big b)
  set(${rows} ${n} PARENT_SCOPE)
  set(${tagged} ${b} PARENT_SCOPE)
endfunction()

set(synth_args --frames 8 --landmarks 300 --noise off --threads 2)

# front-back: pairs (0, 1) and (2, 3).
run(synth_fb "${SYNTH}" --out "${WORK}/fb" --rig front-back ${synth_args})
run(replay_fb "${REPLAY}" "${WORK}/fb" --rig --backend cpu --quiet --csv "${WORK}/fb.csv"
    --json "${WORK}/fb.json")
file(READ "${WORK}/fb.json" json)
string(JSON units LENGTH "${json}" cameras)
expect("front-back: ${units} units" units EQUAL 2)
check_camera("${json}" 0 cam0 cam1 8 1)
check_camera("${json}" 1 cam2 cam3 8 1)
string(JSON all GET "${json}" eval_all drift median_px)
expect("front-back: all cameras' drift median ${all} px" all LESS 0.2)
expect_text("front-back: cam1 records line" "${out}" "\ncam1: ground truth: camera-1 records" 1)
expect_text("front-back: cam3 records line" "${out}" "\ncam3: ground truth: camera-1 records" 1)
expect_text("front-back: no cam0 records line" "${out}" "cam0: ground truth: camera-1" 0)
expect_text("front-back: no cam2 records line" "${out}" "cam2: ground truth: camera-1" 0)
expect_text("front-back: back pair's map" "${out}" "cam2: ground truth: disparity over 8 frames" 1)
expect_text("front-back: all cameras" "${out}" "all cameras: ground truth: tracking drift" 1)
foreach(cam 0 1 2 3)
  count_csv("${WORK}/fb.csv" ${cam} rows tagged)
  message(STATUS "CSV camera ${cam}: ${rows} rows, ${tagged} with unit bits")
  expect("CSV camera ${cam}: ${rows} rows" rows GREATER 1000)
  if(cam LESS 2)
    expect("CSV camera ${cam}: unit 0's ids have no unit bits" tagged EQUAL 0)
  else()
    expect("CSV camera ${cam}: unit 1's ids carry it" tagged EQUAL rows)
  endif()
endforeach()
expect("per-unit rectification files" EXISTS ${WORK}/fb.csv.cam0.rectification.yaml AND EXISTS ${WORK}/fb.csv.cam2.rectification.yaml)

# Kalibr's time shifts, +7.3 ms on the front pair and -2 ms on the back one: the replay gives the
# IMU up to the first sample at or past each set's time plus the largest shift, so every unit's
# window on the IMU's clock is covered (an uncovered one warns on stderr: "no gyroscope seeding").
file(READ "${WORK}/fb/camchain.yaml" chain)
string(REGEX REPLACE "\n(cam[01]):\n" "\n\\1:\n  timeshift_cam_imu: 0.0073\n" chain "${chain}")
string(REGEX REPLACE "\n(cam[23]):\n" "\n\\1:\n  timeshift_cam_imu: -0.002\n" chain "${chain}")
file(WRITE "${WORK}/fb_shifted.yaml" "${chain}")
string(REGEX MATCHALL "timeshift_cam_imu" shifts "${chain}")
list(LENGTH shifts n)
expect("time shifts: ${n} cameras shifted" n EQUAL 4)
run(replay_fb_shifted "${REPLAY}" "${WORK}/fb" --rig "${WORK}/fb_shifted.yaml" --backend cpu
    --no-eval --max-frames 4)
expect_text("time shifts: every unit seeded" "${err}" "no gyroscope seeding" 0)
expect_text("time shifts: 4 sets" "${out}" "cam2: 4 frames" 1)

# ring4: four mono cameras, no records.
run(synth_r4 "${SYNTH}" --out "${WORK}/r4" --rig ring4 ${synth_args})
run(replay_r4 "${REPLAY}" "${WORK}/r4" --rig "${WORK}/r4/camchain.yaml" --backend cpu --quiet
    --json "${WORK}/r4.json")
file(READ "${WORK}/r4.json" json)
string(JSON units LENGTH "${json}" cameras)
expect("ring4: ${units} units" units EQUAL 4)
foreach(i 0 1 2 3)
  check_camera("${json}" ${i} cam${i} "" 8 0)
endforeach()
expect_text("ring4: no records lines" "${out}" "camera-1 records" 0)

# One image of cam1 gone: that set runs without cam1's unit; the others keep all 8 frames.
file(GLOB images "${WORK}/r4/mav0/cam1/data/*.png")
list(SORT images)
list(GET images 3 gone)
file(REMOVE "${gone}")
run(replay_r4_missing "${REPLAY}" "${WORK}/r4" --rig --backend cpu --quiet --no-eval
    --json "${WORK}/r4m.json")
expect_text("ring4 missing: reported" "${out}" "cam1: 1 of 8 listed images are missing" 1)
file(READ "${WORK}/r4m.json" json)
foreach(i 0 1 2 3)
  string(JSON n GET "${json}" cameras ${i} frames)
  string(JSON e GET "${json}" cameras ${i} eval)
  if(i EQUAL 1)
    expect("ring4 missing: cam1 ran ${n} frames, expected 7" n EQUAL 7)
  else()
    expect("ring4 missing: cam${i} ran ${n} frames, expected 8" n EQUAL 8)
  endif()
  expect("ring4 missing: --no-eval gives no evaluation (null)" "x${e}" STREQUAL x)
endforeach()

# A stereo sequence's rig is one unit, the vf_frontend of the plain replay: the same CSV, byte for
# byte, and the same evaluation lines under the camera's name.
run(replay_stereo "${REPLAY}" "${SEQ}" --backend cpu --quiet --max-frames 8 --csv "${WORK}/s.csv")
string(REGEX MATCH "ground truth: tracking drift \\(from[^\n]*" plain "${out}")
run(replay_stereo_rig "${REPLAY}" "${SEQ}" --rig --backend cpu --quiet --max-frames 8
    --csv "${WORK}/s_rig.csv")
expect_text("stereo as a rig: the plain replay's drift line" "${out}" "cam0: ${plain}" 1)
file(SHA256 "${WORK}/s.csv" plain_csv)
file(SHA256 "${WORK}/s_rig.csv" rig_csv)
expect("stereo as a rig: the plain replay's CSV" plain_csv STREQUAL rig_csv)
