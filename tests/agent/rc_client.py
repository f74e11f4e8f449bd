#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A tiny rdmachaos protocol client for the agent's tests (docs/PROTOCOL.md).

  rc_client.py call HOST:PORT JSON [--events SECONDS [--until KEY=VALUE]]
      Sends one request (an "id" is added), prints the response as one JSON
      line. With --events it subscribes first and then prints every event that
      arrives for SECONDS, one JSON line each; with --until, only until an
      event whose KEY is VALUE (a string) came. Exit 0 when the response says
      ok, 1 when it does not, 2 on connection or protocol trouble.
  rc_client.py keepalive HOST:PORT FAULT_ID [INJECT_JSON]
      Renews FAULT_ID (and an unknown id, "nope") every 0.5 s on one
      connection, as the coordinator does, printing each response as one JSON
      line, until killed. One process for the whole loop: a client started per
      renewal took seconds on a host busy with two labs, and let the lease lapse.
      With INJECT_JSON, sends that request first on the same connection and
      prints its response: a client that started after the inject once took
      longer than the 8 s lease to renew at all (ci47).
  rc_client.py raw HOST:PORT HEX
      Sends raw bytes and prints "closed" if the agent closes the connection
      within 2 s, else the JSON of whatever frames came back.

TLS (docs/PROTOCOL.md, "Transport security"), as the coordinator does it, when
RDMACHAOS_TLS_DIR names a PKI directory: DIR/ca.crt, DIR/coordinator.crt and
DIR/coordinator.key. RC_TLS_CA, RC_TLS_CERT and RC_TLS_KEY replace one file
each (RC_TLS_CERT set but empty: no client certificate, to test refusals);
RC_TLS_PEER is the name the agent's certificate must carry (default: HOST).
Neither set: plaintext, for an agent run with --insecure-plaintext.
"""
import json
import os
import socket
import ssl
import struct
import sys
import time

MAGIC = 0x52434850
HDR = struct.Struct(">IHHII")


def tls_context():
    """The client TLS context from the environment, or None for plaintext."""
    tdir = os.environ.get("RDMACHAOS_TLS_DIR", "")
    ca = os.environ.get("RC_TLS_CA", os.path.join(tdir, "ca.crt") if tdir else "")
    cert = os.environ.get("RC_TLS_CERT", os.path.join(tdir, "coordinator.crt") if tdir else "")
    key = os.environ.get("RC_TLS_KEY", os.path.join(tdir, "coordinator.key") if tdir else "")
    if not ca:
        return None
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.load_verify_locations(ca)
    if cert:
        ctx.load_cert_chain(cert, key)
    return ctx


class Conn:
    def __init__(self, addr):
        host, port = addr.rsplit(":", 1)
        self.s = socket.create_connection((host, int(port)), timeout=5)
        ctx = tls_context()
        if ctx is not None:
            self.s = ctx.wrap_socket(self.s, server_hostname=os.environ.get("RC_TLS_PEER", host))
        self.seq = 0
        self.buf = b""

    def send(self, msg, mtype=1):
        payload = json.dumps(msg).encode()
        self.seq += 1
        self.s.sendall(HDR.pack(MAGIC, 1, mtype, self.seq, len(payload)) + payload)

    def recv(self, deadline):
        """One (type, message) before deadline, or None on timeout; raises EOFError on close."""
        while True:
            if len(self.buf) >= HDR.size:
                magic, ver, mtype, _seq, plen = HDR.unpack_from(self.buf)
                if magic != MAGIC or ver != 1:
                    raise ValueError("bad frame from the agent")
                if len(self.buf) >= HDR.size + plen:
                    payload = self.buf[HDR.size:HDR.size + plen]
                    self.buf = self.buf[HDR.size + plen:]
                    return mtype, json.loads(payload)
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                data = self.s.recv(65536)
            except socket.timeout:
                return None
            except (ssl.SSLEOFError, ssl.SSLZeroReturnError):
                data = b""  # closed without (or with) close_notify: closed all the same
            if not data:
                raise EOFError
            self.buf += data

    def call(self, req, rid, timeout=10.0, events=None):
        req = dict(req, id=rid)
        self.send(req)
        deadline = time.monotonic() + timeout
        while True:
            got = self.recv(deadline)
            if got is None:
                raise TimeoutError("no response to %s" % req.get("op"))
            mtype, msg = got
            if mtype == 2 and msg.get("id") == rid:
                return msg
            if mtype == 3 and events is not None:
                events.append(msg)


def cmd_call(addr, text, events_s, until=None):
    req = json.loads(text)
    c = Conn(addr)
    events = []
    if events_s is not None:
        sub = c.call({"op": "subscribe"}, 1)
        if not sub.get("ok"):
            print(json.dumps(sub))
            return 1
    resp = c.call(req, 2, events=events)
    print(json.dumps(resp), flush=True)
    if events_s is not None:
        deadline = time.monotonic() + events_s
        try:
            while True:
                got = c.recv(deadline)
                if got is None:
                    break
                if got[0] == 3:
                    events.append(got[1])
                    if until and str(got[1].get(until[0])) == until[1]:
                        break
        except EOFError:
            pass
        for ev in events:
            print(json.dumps(ev), flush=True)
    return 0 if resp.get("ok") else 1


def cmd_keepalive(addr, fault_id, inject=None):
    c = Conn(addr)
    rid = 1
    if inject:
        # the inject on the renewing connection: the lease starts once it is open
        print(json.dumps(c.call(json.loads(inject), rid)), flush=True)
    while True:
        rid += 1
        resp = c.call({"op": "renew", "fault_ids": [fault_id, "nope"]}, rid)
        print(json.dumps(resp), flush=True)
        time.sleep(0.5)


def cmd_raw(addr, hexbytes):
    c = Conn(addr)
    c.s.sendall(bytes.fromhex(hexbytes))
    deadline = time.monotonic() + 2
    out = []
    try:
        while True:
            got = c.recv(deadline)
            if got is None:
                break
            out.append(got[1])
    except (EOFError, ConnectionResetError):
        print("closed")
        return 0
    print(json.dumps(out))
    return 0


def main(argv):
    try:
        if len(argv) >= 4 and argv[1] == "call":
            ev = until = None
            if len(argv) in (6, 8) and argv[4] == "--events":
                ev = float(argv[5])
                if len(argv) == 8:
                    if argv[6] != "--until" or "=" not in argv[7]:
                        raise SystemExit(__doc__)
                    until = argv[7].split("=", 1)
            elif len(argv) != 4:
                raise SystemExit(__doc__)
            return cmd_call(argv[2], argv[3], ev, until)
        if len(argv) in (4, 5) and argv[1] == "keepalive":
            return cmd_keepalive(*argv[2:])
        if len(argv) == 4 and argv[1] == "raw":
            return cmd_raw(argv[2], argv[3])
    except (OSError, ValueError, TimeoutError, EOFError) as e:
        print("rc_client: %s: %s" % (argv[2], e), file=sys.stderr)
        return 2
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
