# Sourced by .ci/run: puts Node 22 (the image's major) first on PATH when this machine's node is older,
# so the suite runs on what ships. Node comes from the npm registry (node-linux-<arch>, which holds the
# binary and its headers) and is cached; native modules (better-sqlite3) compile against those headers.
NODE_VERSION=22.23.3
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt "${NODE_VERSION%%.*}" ]; then
  node_dir="$HOME/.cache/zvm-operator/node${NODE_VERSION%%.*}"
  if [ ! -x "$node_dir/bin/node" ] || [ "$("$node_dir/bin/node" --version)" != "v$NODE_VERSION" ]; then
    case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) arch="$(uname -m)" ;; esac
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION" >/dev/null)
    rm -rf "$node_dir" && mkdir -p "$node_dir"
    tar xzf "$tmp"/node-linux-*.tgz -C "$node_dir" --strip-components=1
    rm -rf "$tmp"
  fi
  export PATH="$node_dir/bin:$PATH" npm_config_nodedir="$node_dir"
fi
echo "node $(node --version) ($(command -v node))"
