# The shared start of the test toolchain scripts (test/kube, test/capi and test/monitoring toolchain.sh),
# each of which builds Go binaries once into a cache outside the repository. Sourced, with the script's
# arguments, once the caller has set
#   LOG_TAG  the prefix of progress lines
#   BIN_DIR  where the binaries go
#   BUILT    the file whose presence means nothing is left to build (named in messages)
#   JOBS     compile jobs
# It reads the mode (build, --print-bin-dir, --check), returns at once when BUILT exists (printing the
# bin dir for --print-bin-dir), fails --check otherwise, holds a lock for the build, and sets up Go for a build: the module proxy
# only, no toolchain switching, no cgo, at most $JOBS cores. The caller ends with toolchain_done.

mode=build
case "${1:-}" in
  --print-bin-dir) mode=print ;;
  --check) mode=check ;;
  "") ;;
  *) echo "usage: $0 [--print-bin-dir|--check]" >&2; exit 2 ;;
esac

log() { echo "[$LOG_TAG] $*" >&2; }

if [[ -f "$BUILT" ]]; then
  [[ "$mode" == print ]] && echo "$BIN_DIR"
  [[ "$mode" == build ]] && log "up to date: $BIN_DIR"
  exit 0
fi
if [[ "$mode" == check ]]; then
  log "missing: $BUILT (run $0)"
  exit 1
fi

# One build at a time per bin dir (two worktrees, or npm test beside a hand-run script): a second caller
# waits for the first, then finds the work done.
mkdir -p "$BIN_DIR"
exec 9>"$BIN_DIR/.lock"
if ! flock -n 9; then
  log "waiting for another build of $BIN_DIR"
  flock 9
fi
if [[ -f "$BUILT" ]]; then
  [[ "$mode" == print ]] && echo "$BIN_DIR"
  exit 0
fi

command -v go >/dev/null 2>&1 || PATH="/usr/local/go/bin:$PATH"
command -v go >/dev/null 2>&1 || { log "go not found (need Go >= 1.26 on PATH or in /usr/local/go)"; exit 1; }
export GOTOOLCHAIN=local CGO_ENABLED=0 GOMAXPROCS="$JOBS"

# go_build NAME DIR PACKAGE LDFLAGS: builds PACKAGE, a main package of the module in DIR, into $BIN_DIR/NAME,
# through NAME.tmp so that a killed build never leaves a binary that looks finished.
go_build() {
  local name="$1" dir="$2" pkg="$3" ldflags="$4" out="$BIN_DIR/$1"
  log "$name: building $pkg (-p $JOBS); this can take a while"
  local start=$SECONDS
  (cd "$dir" && go build -p "$JOBS" -trimpath -ldflags "$ldflags" -o "$out.tmp" "$pkg")
  mv "$out.tmp" "$out"
  log "$name: built in $((SECONDS - start)) s -> $out"
}

# The end of a successful build: --print-bin-dir prints where the binaries are.
toolchain_done() {
  [[ "$mode" == print ]] && echo "$BIN_DIR"
  exit 0
}
