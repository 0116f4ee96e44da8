#!/usr/bin/env bash
# What a user gets from the package: `npm pack`, then `npm install -g` of the tarball into a fresh
# prefix; kubectl must find the plugin (`kubectl plugin list`) and `kubectl zvm --help` list the verbs.
# Usage: bash test/kubectl-zvm/pack-install.sh [--no-build]   (needs npm, kubectl and the registry or npm's cache)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/kubectl-zvm-pack-XXXXXX")"
trap 'rm -rf "$work"' EXIT
fail() { echo "pack-install: FAIL: $*" >&2; exit 1; }

cd "$repo"
if [ "${1:-}" != "--no-build" ]; then npm run build >/dev/null; fi
# the tarball carries the compiled program (dist/ is built above, so pack's own prepare is skipped)
tarball="$(npm pack --ignore-scripts --silent --pack-destination "$work" | tail -n 1)"
contents="$(tar -tzf "$work/$tarball")"
grep -qx 'package/dist/cmd/main.js' <<<"$contents" || fail "$tarball has no dist/cmd/main.js"
grep -qx 'package/dist/cmd/kubectl-zvm/program.js' <<<"$contents" || fail "$tarball has no compiled plugin"

prefix="$work/prefix"
npm install -g --prefix "$prefix" "$work/$tarball" --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null
for bin in zvm-operator kubectl-zvm; do [ -x "$prefix/bin/$bin" ] || fail "npm install -g put no $bin on PATH"; done

export PATH="$prefix/bin:$PATH"
plugins="$(kubectl plugin list 2>/dev/null || true)"
grep -qx "$prefix/bin/kubectl-zvm" <<<"$plugins" || fail "kubectl plugin list does not show $prefix/bin/kubectl-zvm: $plugins"
help="$(kubectl zvm --help)"
for verb in start stop softstop pause unpause restart reboot console migrate capture deploy image-upload guests completion; do
  grep -Eq "^  $verb " <<<"$help" || fail "kubectl zvm --help does not list $verb"
done
zvm-operator --help | grep -q '^  standalone ' || fail 'zvm-operator --help does not list standalone'
[ "$(kubectl_complete-zvm ima)" = "$(printf 'image-upload\n:4')" ] || fail 'kubectl_complete-zvm does not complete verbs'
echo "pack-install: OK ($tarball installed into a fresh prefix; kubectl plugin list finds kubectl-zvm; every verb in --help)"
