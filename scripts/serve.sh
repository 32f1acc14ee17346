#!/usr/bin/env bash
# Serves the built page (www/) on localhost. Its headers (the CSP and the other privacy
# headers) come from www/serve.json, which `serve` reads from the folder it serves (the
# build copies it there from web/public/serve.json), so plain `npx serve www` sends them too.
#   scripts/serve.sh [--build] [PORT]      (PORT defaults to $PORT or 8080)
# `npm start` = build, then serve.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--build" ]; then
  shift
  npm run build
fi
port="${1:-${PORT:-8080}}"
if [ ! -f www/index.html ]; then
  echo "serve: www/ is not built yet (npm run build)" >&2
  exit 1
fi
echo "heapscope: http://localhost:$port/"
export NO_UPDATE_CHECK=1
exec npx --no-install serve www --listen "tcp://127.0.0.1:$port" --no-clipboard --no-port-switching
