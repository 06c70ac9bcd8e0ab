# Sourced by the npm clients' tests (openai/run.sh, libretranslate/run.sh): what every such test does first.
#   node_client_checks ARGC USAGE MIN_NODE WHY   exits 2 with USAGE unless ARGC is 3; skips (exit 77) without
#                                                node MIN_NODE or newer (WHY: what needs it); then clears the
#                                                proxy settings so that all traffic stays on 127.0.0.1.
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
