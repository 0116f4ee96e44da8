#!/usr/bin/env bash
# Builds the real Cluster API controllers the cluster API tier runs (core manager (core/) and the kubeadm bootstrap
# provider) and clusterctl from the sigs.k8s.io/cluster-api Go module, once, and caches them
# outside the repository beside their CRDs and kustomize config (both ship in the module), like
# test/kube/toolchain.sh. Idempotent.
#
#   test/capi/toolchain.sh                 build (or reuse)
#   test/capi/toolchain.sh --print-bin-dir print the bin dir (builds first if needed)
#   test/capi/toolchain.sh --check         exit 0 if everything is built, 1 otherwise
#
# Environment: ZVM_CAPI_CACHE (default $HOME/.cache/zvm-operator/capi), ZVM_CAPI_JOBS (compile jobs,
# default 2). Needs Go (>= 1.26, the module's `go` line) and the Go module proxy; no Cluster API source
# enters the repository.
set -euo pipefail

CAPI_VERSION=v1.14.2

CACHE_ROOT="${ZVM_CAPI_CACHE:-${HOME}/.cache/zvm-operator/capi}"
PIN_DIR="${CACHE_ROOT}/${CAPI_VERSION}"
BIN_DIR="${PIN_DIR}/bin"
WORK="${PIN_DIR}/src"
JOBS="${ZVM_CAPI_JOBS:-2}"

BUILT="${BIN_DIR}/.complete"
LOG_TAG=capi-toolchain
source "$(dirname "${BASH_SOURCE[0]}")/../toolchain-common.sh"

export GOFLAGS="-mod=mod -buildvcs=false"
mkdir -p "$BIN_DIR" "$WORK"

# The module's go.mod replaces sigs.k8s.io/cluster-api/api with its own ./api folder; Go ignores a
# dependency's replace directives, so the wrapper re-states it as the published api module of the same
# release (the k8s.io modules are ordinary requirements: no staging replacements are needed).
cat >"$WORK/go.mod" <<GOMOD
module zvm-operator.local/capi-toolchain

go 1.26.0

replace sigs.k8s.io/cluster-api/api => sigs.k8s.io/cluster-api/api ${CAPI_VERSION}

require sigs.k8s.io/cluster-api ${CAPI_VERSION}
GOMOD
rm -f "$WORK/go.sum"

vpkg=sigs.k8s.io/cluster-api/version
minor="${CAPI_VERSION#v1.}"; minor="${minor%%.*}"
ldflags="-s -w -X ${vpkg}.gitVersion=${CAPI_VERSION} -X ${vpkg}.gitMajor=1 -X ${vpkg}.gitMinor=${minor}"
ldflags+=" -X ${vpkg}.gitTreeState=clean -X ${vpkg}.buildDate=1970-01-01T00:00:00Z"

# build NAME PACKAGE: one wrapper module for all four, so they share Go's build cache.
build() {
  if [[ -x "$BIN_DIR/$1" ]]; then log "$1: already built"; return 0; fi
  go_build "$1" "$WORK" "$2" "$ldflags"
}

total_start=$SECONDS
log "cache: $PIN_DIR"
build clusterctl sigs.k8s.io/cluster-api/cmd/clusterctl
build capi-manager sigs.k8s.io/cluster-api/core
build capi-kubeadm-bootstrap-manager sigs.k8s.io/cluster-api/bootstrap/kubeadm
# not built: no test runs KubeadmControlPlane (it needs a real control plane's etcd and static pods; the e2e
# uses a Machine-based control plane), and a fresh machine's CI pays each build; its CRDs still come from config/

# The CRDs and kustomize config the tests install, copied out of the module (read-only in Go's cache).
moddir="$(cd "$WORK" && go list -m -f '{{.Dir}}' sigs.k8s.io/cluster-api)"
rm -rf "$PIN_DIR/config"
for part in core bootstrap/kubeadm controlplane/kubeadm cmd/clusterctl; do
  mkdir -p "$PIN_DIR/config/$part"
  cp -r "$moddir/$part/config/." "$PIN_DIR/config/$part/"
done
chmod -R u+w "$PIN_DIR/config"

"$BIN_DIR/clusterctl" version >&2
echo "cluster-api=${CAPI_VERSION}" >"$BUILT"
log "done in $((SECONDS - total_start)) s; $(du -sh "$BIN_DIR" | cut -f1) in $BIN_DIR"
toolchain_done
