#!/usr/bin/env bash
# Builds the zvm-operator OCI image, without a container engine, for linux/amd64 and linux/s390x
# (image/README.md). `npm run image -- [--arch amd64|s390x ...] [--out DIR]`.
#
# Per architecture: a Debian root filesystem (mmdebstrap, extract only: no maintainer script runs, so
# a foreign architecture needs no emulation) holding base-files, ca-certificates and Debian's own
# nodejs; then the application layer (/app: package.json, dist/, production node_modules, which are
# plain JavaScript on every architecture). umoci writes both layers and the config into one OCI
# layout whose index lists each architecture's manifest with its platform (a multi-arch index).
# Out: DIR/zvm-operator-VERSION.oci.tar (the layout, tarred) and DIR/zvm-operator-VERSION.cdx.json
# (CycloneDX SBOM: the Debian packages of each architecture and the npm packages of /app).
#
# Environment: ZVM_IMAGE_SUITE (Debian suite, default testing: the suite with Node 24 for s390x),
# ZVM_IMAGE_MIRROR (default http://deb.debian.org/debian). Needs root (mmdebstrap's root mode),
# mmdebstrap and umoci (installed with apt-get when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

archs=()
out=build/image
while [[ $# -gt 0 ]]; do
  case "$1" in
    --arch) IFS=, read -ra more <<<"${2:?--arch needs a value}"; archs+=("${more[@]}"); shift 2 ;;
    --out) out="${2:?--out needs a value}"; shift 2 ;;
    *) echo "usage: $0 [--arch amd64|s390x]... [--out DIR]" >&2; exit 2 ;;
  esac
done
[[ ${#archs[@]} -gt 0 ]] || archs=(amd64 s390x)
for a in "${archs[@]}"; do
  [[ "$a" == amd64 || "$a" == s390x ]] || { echo "image: unsupported arch '$a' (amd64, s390x)" >&2; exit 2; }
done

log() { echo "[image] $*" >&2; }
source test/apt.sh
apt_ensure mmdebstrap:mmdebstrap umoci:umoci

SUITE="${ZVM_IMAGE_SUITE:-testing}"
MIRROR="${ZVM_IMAGE_MIRROR:-http://deb.debian.org/debian}"
VERSION="$(node -p 'require("./package.json").version')"
NAME=zvm-operator
UID_GID=1000:1000 # the chart's runAsUser/runAsGroup; numeric, so the kubelet can check runAsNonRoot
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
created="$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
total_start=$SECONDS

# A reproducible layer tar: sorted names, numeric root ownership, the commit's time.
layer_tar() {
  tar --sort=name --numeric-owner --owner=0 --group=0 --mtime="@$SOURCE_DATE_EPOCH" --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    -C "$1" -cf "$2" .
}

log "app: dist/ compiled afresh, then production node_modules (no install scripts: nothing compiles)"
app="$work/app/app"
mkdir -p "$app"
# into the image's own dist/: never a file that an earlier build of a since-removed source left in ./dist
node node_modules/typescript/bin/tsc -p tsconfig.build.json --outDir "$app/dist" >&2 # a type error stops the image
chmod +x "$app/dist/cmd/main.js"
cp package.json package-lock.json "$app/"
(cd "$app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
# The image's package.json names no dev tools (npm sbom would report them missing)
node -e 'const f=process.argv[1], p=require(f); delete p.devDependencies; delete p.scripts; require("fs").writeFileSync(f, JSON.stringify(p, null, 2) + "\n")' "$app/package.json"
(cd "$app" && npm sbom --omit=dev --sbom-format=cyclonedx --sbom-type=application >"$work/npm.cdx.json")
native="$(find "$app/node_modules" -name '*.node' -print -quit)"
if [[ -n "$native" ]]; then
  log "error: $native is a native addon, built for this machine only; the image holds plain JavaScript"
  exit 1
fi
rm -f "$app/package-lock.json"
# the entrypoint: node, its flags as src/cmd/self-command.ts NODE_FLAGS ships them, main.js ("=": a flag-like value)
mapfile -t node_flags < <(node --input-type=module -e "console.log((await import('$app/dist/cmd/self-command.js')).NODE_FLAGS.join('\n'))")
(( ${#node_flags[@]} > 0 )) || { log "error: no NODE_FLAGS read from $app/dist/cmd/self-command.js"; exit 1; }
entrypoint=(--config.entrypoint=node)
for f in "${node_flags[@]}"; do entrypoint+=("--config.entrypoint=$f"); done
entrypoint+=(--config.entrypoint=/app/dist/cmd/main.js)
chmod -R a+rX,go-w "$work/app"
layer_tar "$work/app" "$work/app.tar"

oci="$work/oci"
umoci init --layout "$oci"
for arch in "${archs[@]}"; do
  start=$SECONDS
  rootfs="$work/rootfs-$arch"
  log "$arch: Debian $SUITE root filesystem (base-files, ca-certificates, nodejs, util-linux)"
  # Check-Valid-Until off: a mirror snapshot older than a week is still the archive it signed.
  mmdebstrap --quiet --variant=extract --architectures="$arch" --include=base-files,ca-certificates,nodejs,util-linux \
    --aptopt='Acquire::Check-Valid-Until "false"' --skip=cleanup/apt/cache \
    "$SUITE" "$rootfs" "$MIRROR" >&2
  # The SBOM's Debian part: the archives mmdebstrap extracted (name_version_arch.deb), then gone.
  ls "$rootfs/var/cache/apt/archives" | grep '\.deb$' >"$work/debs-$arch.txt"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  [[ -x "$rootfs/usr/bin/node" ]] || { log "error: $arch: no /usr/bin/node in the root filesystem"; exit 1; }
  # standalone locks its state directory with util-linux's flock (src/cmd/state-lock.ts)
  [[ -x "$rootfs/usr/bin/flock" ]] || { log "error: $arch: no /usr/bin/flock in the root filesystem"; exit 1; }
  layer_tar "$rootfs" "$work/rootfs-$arch.tar"

  ref="$oci:$arch"
  umoci new --image "$ref"
  umoci raw add-layer --image "$ref" --history.created "$created" --history.created_by "mmdebstrap $SUITE $arch" "$work/rootfs-$arch.tar"
  umoci raw add-layer --image "$ref" --history.created "$created" --history.created_by "zvm-operator $VERSION /app" "$work/app.tar"
  # the Node flags go in the entrypoint (above): NODE_OPTIONS refuses V8's --no-maglev
  umoci config --image "$ref" --created "$created" --os linux --architecture "$arch" \
    --config.user "$UID_GID" --config.workingdir /app \
    --config.env NODE_ENV=production --config.env PATH=/usr/local/bin:/usr/bin:/bin \
    "${entrypoint[@]}" --config.cmd controller \
    --config.exposedports 8080/tcp --config.exposedports 8081/tcp --config.exposedports 8888/tcp \
    --config.label "org.opencontainers.image.version=$VERSION" \
    --config.label "org.opencontainers.image.source=https://github.com/zvm-operator/zvm-operator" \
    --config.label "org.opencontainers.image.title=$NAME"
  log "$arch: done in $((SECONDS - start)) s"
done
umoci gc --layout "$oci"

# umoci tags each architecture; index.mjs adds their platforms, the multi-arch index tagged VERSION
# (what the release pushes, image/README.md), and the SBOM.
node image/index.mjs "$oci" "$VERSION" "$work" "$out/$NAME-$VERSION.cdx.json" "${archs[@]}"
tar --sort=name --numeric-owner --owner=0 --group=0 --mtime="@$SOURCE_DATE_EPOCH" -C "$oci" -cf "$out/$NAME-$VERSION.oci.tar" .
log "wrote $out/$NAME-$VERSION.oci.tar ($(du -h "$out/$NAME-$VERSION.oci.tar" | cut -f1)) and $NAME-$VERSION.cdx.json for ${archs[*]} in $((SECONDS - total_start)) s"
