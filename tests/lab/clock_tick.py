#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sets this (guest) kernel's clock tick with adjtimex(2): makes a clock drift on purpose.

Usage: clock_tick.py USEC   (10000 is the normal tick at USER_HZ 100; 9900 runs 1% slow)
The kernel takes 9000 to 11000; CLOCK_MONOTONIC follows, as it does NTP's corrections.
"""
import ctypes
import os
import sys

ADJ_TICK = 0x4000


class Timex(ctypes.Structure):  # struct timex, <sys/timex.h>, in its x86-64 layout
    _fields_ = [("modes", ctypes.c_uint), ("offset", ctypes.c_long), ("freq", ctypes.c_long),
                ("maxerror", ctypes.c_long), ("esterror", ctypes.c_long),
                ("status", ctypes.c_int), ("constant", ctypes.c_long),
                ("precision", ctypes.c_long), ("tolerance", ctypes.c_long),
                ("time_sec", ctypes.c_long), ("time_usec", ctypes.c_long),
                ("tick", ctypes.c_long), ("rest", ctypes.c_byte * 128)]


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: clock_tick.py USEC (9000-11000; 10000 is normal)")
    t = Timex(modes=ADJ_TICK, tick=int(sys.argv[1]))
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    if libc.adjtimex(ctypes.byref(t)) < 0:
        sys.exit(f"clock_tick.py: adjtimex(tick={sys.argv[1]}): {os.strerror(ctypes.get_errno())}")
    print(f"clock tick {t.tick} us")


main()
