#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed programs of fuzz_api (tests/fuzz/fuzz_api.c) into corpus/api/: each byte
string is read by the fuzzer as operations and their arguments, in the order written here."""
import os
import struct

OP = dict(create=0, destroy=1, process=2, imu=4, predict=6, reject=7, query=8, pyramids=9,
          detect=10, track=11, stereo=12, features_or_imu=13)


def word(v):
    return struct.pack("<h", v)


def value(v):  # an ordinary value: a byte below 253, then the word
    return bytes([0]) + word(v)


def image(shape=0, extra=()):  # shape bits: 1 width, 2 height, 4 padding, 8 short stride, 16 NULL
    return bytes([shape, *extra, 7])


def create(scale=0, opt=0, stereo=True, detect_every=2, max_features=60, levels=2, imu=40):
    b = bytes([OP["create"], scale, opt | (1 if stereo else 0)])
    if stereo:
        b += bytes([0])
    return b + bytes([detect_every + 1, max_features, levels - 1, imu])


def process(step_ms=50, left=None, right=None, which=0):
    return (bytes([OP["process"]]) + word(step_ms) + (left or image()) + (right or image()) +
            bytes([which]))


def imu(step_01ms=50):
    return bytes([OP["imu"]]) + word(step_01ms) + (value(100) + value(9000)) * 3


def ids(op, n, which=0):
    return bytes([OP[op], n]) + (bytes([which]) + value(1000) + value(800)) * n + bytes([1])


seeds = {
    "frontend_stereo": create() + imu() * 10 + process() + imu() * 10 + process() +
    ids("predict", 2) + ids("reject", 1) + bytes([OP["query"]]) + imu() * 10 + process() +
    bytes([OP["destroy"]]) + process(),
    "frontend_templates": create(opt=8 | 16, stereo=False) + imu() * 4 + process() +
    process(left=image(1, (40,))) + process(right=image(8, (10,))) + process(which=2) +
    process(step_ms=-5) + process(),
    "stages": bytes([OP["pyramids"], 90, 50, 3]) + image() + bytes([1]) + image() + bytes([2]) +
    bytes([OP["features_or_imu"], 1, 90, 50, 0, 30, 1, 0, 1, 10]) +
    bytes([OP["detect"], 90, 50, 20, 1, 0, 0]) + bytes([0] * 64) + bytes([1]) +
    bytes([OP["track"], 1, 2, 30, 0, 1, 2]) + (value(4000) + value(3000) + bytes([3]) + value(100) +
                                               value(100)) * 2 +
    bytes([OP["stereo"], 0, 10, 8]) + image() + image(),
    "imu_buffer": bytes([OP["features_or_imu"], 0, 20]) + word(10) + value(100) * 3 + word(50) +
    bytes([1, 0]),
}
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api")
os.makedirs(here, exist_ok=True)
for name, data in seeds.items():
    with open(os.path.join(here, name + ".bin"), "wb") as f:
        f.write(data)
