#!/usr/bin/env bash
# Installs a browser-based VS Code (code-server, from the npm registry) for the end-to-end
# tests, once, into a cache folder; reruns return at once. VS Code's own download server is
# unreachable on our machines, so @vscode/test-electron cannot be used.
# Route: Node 24 from the npm package `node@24` (code-server 4.139's engines need it), then
# code-server with that Node first on PATH so its postinstall builds the native modules.
# Prints the code-server entry point (a JS file to run with the Node 24 binary) as
# `NODE=...` and `CODE_SERVER=...` lines on stdout; progress goes to stderr.
# `--serve [PORT]`: then packages the extension, installs the .vsix into a scratch profile and
# starts code-server on 127.0.0.1:PORT (default 8080) with this folder open: try the extension
# in a browser without touching your own VS Code.
set -euo pipefail
SERVE=; PORT=8080
if [ "${1:-}" = "--serve" ]; then SERVE=1; PORT=${2:-8080}; fi
CODE_SERVER_VERSION=${CODE_SERVER_VERSION:-4.139.1}
NODE_MAJOR=${NODE_MAJOR:-24}
CACHE=${GPU_RENT_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpu-rent-e2e}
NODE_DIR=$CACHE/node$NODE_MAJOR
CS_DIR=$CACHE/code-server-$CODE_SERVER_VERSION
mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock 9 # two runs at once share one install

log() { echo "[setup-code-server] $*" >&2; }
start=$(date +%s)

find_node() { find "$NODE_DIR/node_modules" -path '*/bin/node' -type f -perm -u+x 2>/dev/null | head -1; }

if [ ! -f "$NODE_DIR/.done" ]; then
  log "installing Node $NODE_MAJOR into $NODE_DIR"
  rm -rf "$NODE_DIR"; mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "node@$NODE_MAJOR" >&2)
  n=$(find_node)
  [ -n "$n" ] && "$n" --version >/dev/null || { log "no working Node $NODE_MAJOR binary under $NODE_DIR"; exit 1; }
  touch "$NODE_DIR/.done"
fi
NODE_BIN=$(find_node)
NODE_BIN_DIR=$(dirname "$NODE_BIN")

if [ ! -f "$CS_DIR/.done" ]; then
  log "installing code-server@$CODE_SERVER_VERSION into $CS_DIR with $("$NODE_BIN" --version) (builds native modules: minutes)"
  rm -rf "$CS_DIR"; mkdir -p "$CS_DIR"
  # Run from `npm test`, the outer npm's settings (npm_config_user_agent says node/v20) would
  # reach the inner install as config, and code-server's postinstall reads its Node version
  # from there: start the inner npm with none of them.
  (cd "$CS_DIR" && clean_env=$(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/-u \1/p' | tr '\n' ' ') \
    && env $clean_env PATH="$NODE_BIN_DIR:$PATH" npm init -y >/dev/null \
    && env $clean_env PATH="$NODE_BIN_DIR:$PATH" npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" >&2)
  entry=$CS_DIR/node_modules/code-server/out/node/entry.js
  [ -f "$entry" ] || { log "code-server entry point missing: $entry"; exit 1; }
  "$NODE_BIN" "$entry" --config "$CS_DIR/config.yaml" --version >/dev/null || { log "code-server does not start"; exit 1; }
  touch "$CS_DIR/.done"
fi
log "ready in $(( $(date +%s) - start )) s"
ENTRY=$CS_DIR/node_modules/code-server/out/node/entry.js
if [ -z "$SERVE" ]; then
  echo "NODE=$NODE_BIN"
  echo "CODE_SERVER=$ENTRY"
  exit 0
fi
exec 9>&- # the install lock is not needed while serving
cd "$(dirname "$0")/.."
npm run -s package </dev/null >&2
TRY=$CACHE/try
mkdir -p "$TRY/user-data/User" "$TRY/extensions"
[ -f "$TRY/user-data/User/settings.json" ] || echo '{ "workbench.startupEditor": "none", "telemetry.telemetryLevel": "off" }' >"$TRY/user-data/User/settings.json"
"$NODE_BIN" "$ENTRY" --config "$TRY/config.yaml" --user-data-dir "$TRY/user-data" --extensions-dir "$TRY/extensions" --force --install-extension dist/gpu-rent.vsix >&2
# A scratch workspace, trusted (it is yours): synced checkpoints and captured environments land
# there, not in this checkout, and the remote commands work without a trust prompt.
mkdir -p "$TRY/workspace"
log "open http://127.0.0.1:$PORT/ in a browser (Ctrl+C stops it); the workspace is $TRY/workspace"
exec "$NODE_BIN" "$ENTRY" --auth none --bind-addr "127.0.0.1:$PORT" --disable-telemetry --disable-update-check --disable-workspace-trust \
  --config "$TRY/config.yaml" --user-data-dir "$TRY/user-data" --extensions-dir "$TRY/extensions" "$TRY/workspace"
