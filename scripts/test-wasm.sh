#!/usr/bin/env bash
# Runs the browser-bindings tests (tests/wasm) in headless Chromium, in a dedicated worker.
# Needs: wasm32-unknown-unknown target, wasm-bindgen-cli (its test runner) at the version in
# Cargo.lock, Debian's chromium + chromium-driver (/usr/bin/chromedriver).
set -euo pipefail
cd "$(dirname "$0")/.."

export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
if [ ! -x "$CHROMEDRIVER" ]; then
  echo "test-wasm: chromedriver not found at $CHROMEDRIVER (apt-get install chromium chromium-driver)" >&2
  exit 1
fi
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/tests/wasm/webdriver.json"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-300}"
# Shares the workspace's target dir (the package itself is outside the workspace).
exec cargo test --manifest-path tests/wasm/Cargo.toml --target wasm32-unknown-unknown \
  --target-dir target "$@"
