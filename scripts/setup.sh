#!/usr/bin/env bash
# Installs what building and testing heapscope needs, each piece only when missing, so a
# second run takes seconds:
#   - clippy and rustfmt, the Rust target wasm32-unknown-unknown (rustup)
#   - wasm-bindgen-cli at exactly the wasm-bindgen version in Cargo.lock (cargo install;
#     the first time takes several minutes)
#   - Debian's chromium + chromium-driver, for the browser tests (apt-get; sudo unless root;
#     HEAPSCOPE_NO_BROWSER=1 skips it)
#   - the npm packages in package-lock.json (npm ci)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

SECONDS=0
log() { echo "[setup +${SECONDS}s] $*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if cargo clippy --version >/dev/null 2>&1; then
  log "clippy: present"
else
  log "adding clippy"
  rustup component add clippy
fi

if cargo fmt --version >/dev/null 2>&1; then
  log "rustfmt: present"
else
  log "adding rustfmt"
  rustup component add rustfmt
fi

if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "wasm32-unknown-unknown target: present"
else
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The CLI must match the wasm-bindgen crate exactly. No --locked: the CLI's own lockfile
# names crates the registry here lacks.
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" = "$want" ] && command -v wasm-bindgen-test-runner >/dev/null; then
  log "wasm-bindgen-cli $want: present"
else
  log "installing wasm-bindgen-cli $want (found: ${have:-none}); this takes several minutes"
  cargo install wasm-bindgen-cli --version "$want" --force
fi

if [ "${HEAPSCOPE_NO_BROWSER:-}" = 1 ]; then
  log "chromium: skipped (HEAPSCOPE_NO_BROWSER=1)"
elif [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  log "chromium + chromedriver: present"
else
  log "installing Debian's chromium + chromium-driver"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium chromium-driver
fi

if [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] && [ "${CI:-}" != true ]; then
  log "npm packages: present"
else
  log "npm ci"
  npm ci --no-audit --no-fund
fi
log "ready"
