#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Kubernetes manifests (deploy/kubernetes/) pass deploy/k8s-check.sh, and broken copies of
# them fail it, each with its own message (--self-test): a check that passed everything would
# fail here. Skips (77, loudly: tests/report/run.sh prints the last line) when Debian's
# python3-kubernetes or yamllint is missing; `make deps` installs them. A few seconds.
set -u
cd "$(dirname "$0")/../.." || exit 1
bash deploy/k8s-check.sh --self-test
rc=$?
[ "$rc" -eq 77 ] && exit 77 # its SKIP line, last, says what is missing and how to install it
[ "$rc" -eq 0 ] || echo "k8s: FAIL (deploy/k8s-check.sh --self-test exit $rc)"
exit "$rc"
