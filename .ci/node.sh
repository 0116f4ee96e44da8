# Sourced (by people and scripts; the test command does the same itself): puts the project's Node major
# (scripts/node.sh: the image's Node, fetched from the npm registry when this machine's node is another
# major) first on PATH.
PATH="$(bash "$(dirname "${BASH_SOURCE[0]}")/../scripts/node.sh"):$PATH"
export PATH
echo "node $(node --version) ($(command -v node))"
