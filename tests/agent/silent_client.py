#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A client that connects to 127.0.0.1:PORT, sends nothing, and prints how many seconds passed
until the server closed the connection (30 s at most). Connecting is retried for 10 s, so it
may start before the server listens."""
import socket
import sys
import time

port = int(sys.argv[1])
for _ in range(100):
    try:
        s = socket.create_connection(("127.0.0.1", port))
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("cannot connect to 127.0.0.1:%d" % port)
t0 = time.monotonic()
s.settimeout(30)
try:
    while s.recv(4096):
        pass
except OSError:
    pass
print("%.1f" % (time.monotonic() - t0))
