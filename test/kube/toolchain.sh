#!/usr/bin/env bash
# Builds the Kubernetes test toolchain (kube-apiserver, etcd, helm) from Go modules, once,
# and caches the binaries outside the repository (docs/architecture.md §5). Idempotent: a second run
# finds the marker file and returns at once.
#
#   test/kube/toolchain.sh                 build (or reuse) and print progress
#   test/kube/toolchain.sh --print-bin-dir print the bin dir (builds first if needed)
#   test/kube/toolchain.sh --check         exit 0 if the toolchain is complete, 1 otherwise
#
# Environment: ZVM_KUBE_CACHE (default $HOME/.cache/zvm-operator/kube), ZVM_KUBE_JOBS
# (parallel compile jobs, default 2). Needs Go (>= 1.26) and the Go module proxy; nothing else.
# No Kubernetes source is ever written into the repository: the wrapper modules live in the cache.
set -euo pipefail

K8S_VERSION=v1.36.3    # kube-apiserver; k8s.io/* v0.36 like the Cluster API toolchain, so Go's build cache is shared
ETCD_VERSION=v3.6.8    # the etcd release kube-apiserver 1.36.3's own go.mod requires (its client packages build once)
HELM_VERSION=v4.3.2    # Helm 4 (helm.sh/helm/v4), built against k8s.io/* v0.37

PIN="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_helm-${HELM_VERSION}"
CACHE_ROOT="${ZVM_KUBE_CACHE:-${HOME}/.cache/zvm-operator/kube}"
PIN_DIR="${CACHE_ROOT}/${PIN}"
BIN_DIR="${PIN_DIR}/bin"
SRC_DIR="${PIN_DIR}/src"
MARKER="${BIN_DIR}/.complete"
JOBS="${ZVM_KUBE_JOBS:-2}"

BUILT="$MARKER"
LOG_TAG=toolchain
source "$(dirname "${BASH_SOURCE[0]}")/../toolchain-common.sh"

command -v node >/dev/null 2>&1 || { log "node not found (used to read go.mod JSON)"; exit 1; }
export GOFLAGS="-mod=mod -buildvcs=false"
mkdir -p "$BIN_DIR" "$SRC_DIR"

# Prints the `go`, `godebug`, `replace` and `exclude` directives a wrapper module needs, derived
# from the dependency's own go.mod (given as `go mod edit -json` on stdin). Replace directives of a
# dependency are ignored by Go, so the wrapper re-states them: relative (in-repo) replacements of
# modules required at v0.0.0 — the k8s.io staging modules — become the matching published v0.x
# release; other relative replacements are dropped (the required version then applies); versioned
# replacements are copied as they are.
wrapper_directives() {
  local staging_version="$1"
  node -e '
    const mod = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const staging = process.argv[1];
    const required = new Map((mod.Require ?? []).map((r) => [r.Path, r.Version]));
    const out = [];
    if (mod.Go) out.push(`go ${mod.Go}`);
    for (const g of mod.Godebug ?? []) out.push(`godebug ${g.Key}=${g.Value}`);
    for (const r of mod.Replace ?? []) {
      const from = r.Old.Version ? `${r.Old.Path} ${r.Old.Version}` : r.Old.Path;
      if (r.New.Version) { out.push(`replace ${from} => ${r.New.Path} ${r.New.Version}`); continue; }
      if (required.get(r.Old.Path) === "v0.0.0") {
        if (!staging) throw new Error(`no release known for staging module ${r.Old.Path}`);
        out.push(`replace ${r.Old.Path} => ${r.Old.Path} ${staging}`);
      }
    }
    for (const e of mod.Exclude ?? []) out.push(`exclude ${e.Path} ${e.Version}`);
    console.log(out.join("\n"));
  ' "$staging_version"
}

# build_go_bin NAME MODULE VERSION PACKAGE STAGING_VERSION LDFLAGS
# Writes a wrapper module into $SRC_DIR/NAME requiring MODULE@VERSION (no source of its own) and
# builds PACKAGE, a main package inside MODULE, into $BIN_DIR/NAME.
build_go_bin() {
  local name="$1" module="$2" version="$3" pkg="$4" staging="$5" ldflags="$6"
  local out="$BIN_DIR/$name" work="$SRC_DIR/$name"
  if [[ -x "$out" ]]; then log "$name: already built"; return 0; fi
  log "$name: resolving $module@$version"
  mkdir -p "$work"
  local gomod
  gomod="$(cd "$work" && go mod download -json "$module@$version" | node -e \
    'const j = JSON.parse(require("fs").readFileSync(0, "utf8")); if (j.Error) throw new Error(j.Error); console.log(j.GoMod)')"
  {
    echo "module zvm-operator.local/kube-toolchain/$name"
    echo
    go mod edit -json "$gomod" | wrapper_directives "$staging"
    echo
    echo "require $module $version"
  } >"$work/go.mod"
  rm -f "$work/go.sum" "$work/main.go"
  go_build "$name" "$work" "$pkg" "-s -w $ldflags"
}

total_start=$SECONDS
log "cache: $PIN_DIR"

# etcd's `etcd` command is the root package of its server module (server/main.go), built
# exactly as upstream does (`cd server && go build .`), with the server module's own requirements.
build_go_bin etcd go.etcd.io/etcd/server/v3 "$ETCD_VERSION" go.etcd.io/etcd/server/v3 "" ""

k8s_minor_patch="${K8S_VERSION#v1.}"
k8s_major_minor="${k8s_minor_patch%%.*}"
vpkg=k8s.io/component-base/version
k8s_ldflags="-X ${vpkg}.gitVersion=${K8S_VERSION} -X ${vpkg}.gitMajor=1 -X ${vpkg}.gitMinor=${k8s_major_minor}"
k8s_ldflags+=" -X ${vpkg}.gitTreeState=clean -X ${vpkg}.buildDate=1970-01-01T00:00:00Z"
build_go_bin kube-apiserver k8s.io/kubernetes "$K8S_VERSION" k8s.io/kubernetes/cmd/kube-apiserver \
  "v0.${k8s_minor_patch}" "$k8s_ldflags"
# kubectl of the same release (the tests put this bin dir first on PATH): the one the kube e2e talks with,
# within kubectl's version skew; it shares nearly every package with kube-apiserver in Go's build cache.
# (`kubectl version` reads client-go's version package, so that one gets the same stamps too)
build_go_bin kubectl k8s.io/kubernetes "$K8S_VERSION" k8s.io/kubernetes/cmd/kubectl \
  "v0.${k8s_minor_patch}" "$k8s_ldflags ${k8s_ldflags//component-base\/version/client-go\/pkg\/version}"

helm_major="${HELM_VERSION%%.*}"
build_go_bin helm "helm.sh/helm/$helm_major" "$HELM_VERSION" "helm.sh/helm/$helm_major/cmd/helm" "" \
  "-X helm.sh/helm/$helm_major/internal/version.version=${HELM_VERSION} -X helm.sh/helm/$helm_major/internal/version.gitTreeState=clean"

"$BIN_DIR/kube-apiserver" --version >&2
"$BIN_DIR/kubectl" version --client >&2
"$BIN_DIR/etcd" --version >&2
"$BIN_DIR/helm" version --short >&2
printf 'k8s=%s\netcd=%s\nhelm=%s\n' "$K8S_VERSION" "$ETCD_VERSION" "$HELM_VERSION" >"$MARKER"
log "done in $((SECONDS - total_start)) s; $(du -sh "$BIN_DIR" | cut -f1) in $BIN_DIR"
toolchain_done
