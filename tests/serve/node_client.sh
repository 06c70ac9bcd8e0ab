# Sourced by the npm clients' tests (openai/run.sh, libretranslate/run.sh): what every such test does first.
#   node_client_checks ARGC USAGE MIN_NODE WHY   exits 2 with USAGE unless ARGC is 3; skips (exit 77) without
#                                                node MIN_NODE or newer (WHY: what needs it); then clears the
#                                                proxy settings so that all traffic stays on 127.0.0.1.
#   listening_port LOG                           prints the port of `heptapod serve`'s "listening on" line in LOG
#                                                (nothing while there is none, or no LOG yet: a server started in
#                                                the background may not have opened its log when this first runs).
node_client_checks() {
  if [ "$1" -ne 3 ]; then
    echo "usage: $2" >&2
    exit 2
  fi
  command -v node >/dev/null || { echo "skipped: node is not installed" >&2; exit 77; }
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge "$3" ] || { echo "skipped: node $major; $4" >&2; exit 77; }
  unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY NODE_USE_ENV_PROXY
  export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
}

listening_port() {
  [ -f "$1" ] || return 0
  sed -n 's|.*heptapod serve: listening on http://127\.0\.0\.1:\([0-9][0-9]*\).*|\1|p' "$1" | head -n 1
}
