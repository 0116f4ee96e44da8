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

mode=build
case "${1:-}" in
  --print-bin-dir) mode=print ;;
  --check) mode=check ;;
  "") ;;
  *) echo "usage: $0 [--print-bin-dir|--check]" >&2; exit 2 ;;
esac
log() { echo "[promtool] $*" >&2; }

if [[ -x "$BIN_DIR/promtool" ]]; then
  [[ "$mode" == print ]] && echo "$BIN_DIR"
  [[ "$mode" == build ]] && log "up to date: $BIN_DIR/promtool"
  exit 0
fi
if [[ "$mode" == check ]]; then log "missing: $BIN_DIR/promtool (run $0)"; exit 1; fi

command -v go >/dev/null 2>&1 || PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null 2>&1 || { log "go not found"; exit 1; }

# The module has no replace directives, so `go install module/pkg@version` builds it as released.
# remove_all_sd leaves out the service-discovery plugins (cloud SDKs), which rule checks never use.
export GOTOOLCHAIN=local CGO_ENABLED=0 GOMAXPROCS="$JOBS" GOFLAGS="-buildvcs=false"
mkdir -p "$BIN_DIR"
log "building github.com/prometheus/prometheus/cmd/promtool@$PROMETHEUS_MODULE_VERSION (-p $JOBS); this takes a while"
start=$SECONDS
GOBIN="$BIN_DIR.tmp" go install -p "$JOBS" -trimpath -tags remove_all_sd \
  -ldflags "-s -w -X github.com/prometheus/common/version.Version=${PROMETHEUS_MODULE_VERSION}" \
  "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_MODULE_VERSION}"
mv "$BIN_DIR.tmp/promtool" "$BIN_DIR/promtool" && rmdir "$BIN_DIR.tmp"
log "built in $((SECONDS - start)) s -> $BIN_DIR/promtool"
"$BIN_DIR/promtool" --version >&2
[[ "$mode" == print ]] && echo "$BIN_DIR"
exit 0
