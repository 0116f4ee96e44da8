#!/usr/bin/env bash
# Builds promtool (the Prometheus rule checker and rule unit-test runner) from its Go module, once,
# and caches the binary outside the repository, like test/kube/toolchain.sh. Idempotent.
#
#   test/monitoring/toolchain.sh                 build (or reuse)
#   test/monitoring/toolchain.sh --print-bin-dir print the bin dir (builds first if needed)
#   test/monitoring/toolchain.sh --check         exit 0 if promtool is built, 1 otherwise
#
# Environment: ZVM_PROMTOOL_CACHE (default $HOME/.cache/zvm-operator/promtool), ZVM_PROMTOOL_JOBS
# (compile jobs, default 2). Needs Go and the Go module proxy; no Prometheus source enters the repository.
set -euo pipefail

# Prometheus 3.x; its Go module is tagged v0.3MM.P for release 3.MM.P.
PROMETHEUS_MODULE_VERSION=v0.316.0

CACHE_ROOT="${ZVM_PROMTOOL_CACHE:-${HOME}/.cache/zvm-operator/promtool}"
BIN_DIR="${CACHE_ROOT}/${PROMETHEUS_MODULE_VERSION}/bin"
JOBS="${ZVM_PROMTOOL_JOBS:-2}"

BUILT="$BIN_DIR/promtool"
LOG_TAG=promtool
source "$(dirname "${BASH_SOURCE[0]}")/../toolchain-common.sh"

# The module has no replace directives, so `go install module/pkg@version` builds it as released.
# remove_all_sd leaves out the service-discovery plugins (cloud SDKs), which rule checks never use.
export GOFLAGS="-buildvcs=false"
mkdir -p "$BIN_DIR"
log "building github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION (-p $JOBS); this takes a while"
start=$SECONDS
GOBIN="$BIN_DIR.tmp" go install -p "$JOBS" -trimpath -tags remove_all_sd \
  -ldflags "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_MODULE_VERSION}" \
  "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_MODULE_VERSION}"
mv "$BIN_DIR.tmp/promtool" "$BIN_DIR/promtool" && rmdir "$BIN_DIR.tmp"
log "built in $((SECONDS - start)) s -> $BIN_DIR/promtool"
"$BIN_DIR/promtool" --version >&2
toolchain_done
