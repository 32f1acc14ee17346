#!/usr/bin/env bash
# Everything CI checks, in order, stopping at the first failure (`npm test`):
#   1. the code's format (cargo fmt --check, with the committed rustfmt.toml), native tests
#      (core, the layering check, corpus parity)   cargo test --workspace --release, then
#      cargo clippy --all-targets (warnings are errors)
#   2. browser-bindings tests (wasm, in a dedicated worker in headless Chromium)
#   3. the CLI (the e2e tests compare the page with it), the fuzz targets (checked, not
#      run), the generated TypeScript types
#      (must match schema/), the wasm module, the type check and the site build
#   4. end-to-end tests of the built page   npm run test:e2e
# HEAPSCOPE_TEST_FROM=N starts at step N (e.g. 3 when working on the page only).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

SECONDS=0
from="${HEAPSCOPE_TEST_FROM:-1}"
step() {
  echo
  echo "=== [test-all +${SECONDS}s] $*"
}

if [ "$from" -le 1 ]; then
  step "1/4 format: cargo fmt --check (crate, fuzz targets, wasm tests)"
  cargo fmt --all --check
  cargo fmt --check --manifest-path fuzz/Cargo.toml
  cargo fmt --check --manifest-path tests/wasm/Cargo.toml
  step "1/4 native tests: cargo test --workspace --release"
  cargo test --workspace --release
  cargo clippy --workspace --release --all-targets -- -D warnings
fi

if [ "$from" -le 2 ]; then
  step "2/4 wasm bindings tests: scripts/test-wasm.sh"
  bash scripts/test-wasm.sh
fi

if [ "$from" -le 3 ]; then
  step "3/4 build: CLI, generated types check, wasm module, type check, site"
  cargo build --release -p heapscope --bin heapscope
  # The fuzz targets are checked (not run: scripts/fuzz.sh does) so they cannot rot.
  cargo check --quiet --manifest-path fuzz/Cargo.toml --bins
  node scripts/gen-types.mjs --check
  bash scripts/build-wasm.sh
  npx --no-install tsc --noEmit -p tsconfig.json
  npx --no-install vite build
fi

step "4/4 end-to-end tests: npm run test:e2e"
node --test --test-concurrency=1 tests/e2e/

echo
echo "=== [test-all +${SECONDS}s] all passed"
