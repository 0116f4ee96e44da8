#!/usr/bin/env bash
# Every set-up step of the README's test command (test/run-all.mjs runs this first), each a no-op once
# done, so a fresh machine needs nothing but `npm test`:
#   1. the Debian packages the tests start (as root, with apt-get; test/apt.sh)
#   2. the Go-built toolchains: every test/*/toolchain.sh, built once into ~/.cache/zvm-operator
#      (a new toolchain plugs in by being there: test/<tier>/toolchain.sh with the same interface)
#   3. the project's Node major (scripts/node.sh)
# On stdout, one line: the dirs the tests want first on PATH (that Node's bin dir, then the kube toolchain's,
# whose kubectl matches the kube-apiserver the e2e tier starts).
# Progress lines go to stderr. ZVM_SKIP_TOOLCHAINS=1 leaves out step 2 (the tiers that need one then fail).
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "[setup] $*" >&2; }
source test/apt.sh

# command:package, for what the tests start: TLS material, the Argo CD health scripts, a real sshd,
# and the image build and its s390x run (image/build.sh, test/image).
apt_ensure openssl:openssl lua5.1:lua5.1 sshd:openssh-server mmdebstrap:mmdebstrap umoci:umoci \
  qemu-s390x:qemu-user || log "going on without them: the tests that start them fail, naming what is missing"

if [[ -z "${ZVM_SKIP_TOOLCHAINS:-}" ]]; then
  for script in test/*/toolchain.sh; do
    start=$SECONDS
    bash "$script" >&2 || { log "$script failed"; exit 1; }
    (( SECONDS - start < 2 )) || log "$script: $((SECONDS - start)) s"
  done
fi

path="$(bash scripts/node.sh)"
if bash test/kube/toolchain.sh --check 2>/dev/null; then path+=":$(bash test/kube/toolchain.sh --print-bin-dir)"; fi
echo "$path"
