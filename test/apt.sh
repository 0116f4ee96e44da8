# Sourced: apt_ensure COMMAND:PACKAGE ... installs, with apt-get, the Debian package of each command
# that is missing from PATH (and /usr/sbin), once; as root only (CI and the developer machines run as
# root), otherwise it names what to install and fails. Needs the caller's log function.
apt_ensure() {
  local want=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || [[ -x "/usr/sbin/${pair%%:*}" ]] || want+=("${pair#*:}")
  done
  [[ ${#want[@]} -eq 0 ]] && return 0
  if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
    log "missing Debian packages: ${want[*]} (install them: apt-get install ${want[*]})"
    return 1
  fi
  log "apt-get install ${want[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${want[@]}" >&2
}
