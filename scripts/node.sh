#!/usr/bin/env bash
# Prints the bin dir of the Node.js the project runs on (NODE_VERSION's major: the image's Node, the one
# CI tests): the node on PATH when it is that major, else NODE_VERSION from the npm registry (package
# node-linux-<arch>, the official binary), fetched once into ~/.cache/zvm-operator/node<major>.
# Progress goes to stderr. Run by `npm start`, .ci/node.sh and test/setup.sh.
set -euo pipefail

NODE_VERSION=24.21.0 # the nodejs of Debian testing that the image ships (image/build.sh), on every arch
major="${NODE_VERSION%%.*}"
if [[ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" == "$major" ]]; then
  dirname "$(command -v node)"
  exit 0
fi
node_dir="${ZVM_NODE_CACHE:-$HOME/.cache/zvm-operator}/node$major"
if [[ ! -x "$node_dir/bin/node" ]] || [[ "$("$node_dir/bin/node" --version)" != "v$NODE_VERSION" ]]; then
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
  echo "[node] fetching node-linux-$arch@$NODE_VERSION into $node_dir" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null)
  rm -rf "$node_dir" && mkdir -p "$node_dir"
  tar xzf "$tmp"/node-linux-*.tgz -C "$node_dir" --strip-components=1
  rm -rf "$tmp"
fi
echo "$node_dir/bin"
