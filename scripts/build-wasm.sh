#!/usr/bin/env bash
# Builds the wasm module the page's worker loads: web/pkg/heapscope.js + heapscope_bg.wasm.
#   cargo (wasm32, release) -> wasm-bindgen --target web -> wasm-opt -O3 (npm binaryen)
# Needs: rustup target wasm32-unknown-unknown, wasm-bindgen-cli at the version in Cargo.lock.
set -euo pipefail
cd "$(dirname "$0")/.."

want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/"/, "", $3); print $3; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "build-wasm: wasm-bindgen-cli $want is needed (found: ${have:-none})." >&2
  echo "  cargo install wasm-bindgen-cli --version $want" >&2
  exit 1
fi

# CARGO_TARGET_DIR is honoured (a separate one avoids waiting on a native build's lock).
target_dir="${CARGO_TARGET_DIR:-target}"
cargo build -p heapscope --lib --target wasm32-unknown-unknown --release
rm -rf web/pkg
# wasm-bindgen drops the DWARF sections that the release profile's debug line tables add.
wasm-bindgen --target web --out-dir web/pkg "$target_dir/wasm32-unknown-unknown/release/heapscope.wasm"

wasm=web/pkg/heapscope_bg.wasm
if [ -x node_modules/.bin/wasm-opt ]; then
  before=$(stat -c %s "$wasm")
  # -ocimfs: binaryen inlines a function with a single caller whatever its size, which
  # folded the passes (the record walks, pass 2, the analysis) into one 137 KB function,
  # Session::open, that V8 compiles with its optimizing compiler in one piece; called once
  # per dump, it ran to the end in baseline code (no on-stack replacement for wasm) when
  # that compilation had not finished as the dump arrived. Up to 2000 binaryen nodes now:
  # the largest function is 47 KB, the walks' segment loops stay apart (pass 2's is 21 KB,
  # its instance visitor inlined); on the 1 GB dump pass 2 took 2.3 worker CPU-s against
  # 2.6 with 500 (3 alternating pairs).
  node_modules/.bin/wasm-opt -O3 --one-caller-inline-max-function-size 2000 --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-simd --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$wasm" -o "$wasm.opt"
  mv "$wasm.opt" "$wasm"
  echo "build-wasm: wasm-opt -O3: $before -> $(stat -c %s "$wasm") bytes"
else
  echo "build-wasm: node_modules/.bin/wasm-opt not found (run npm ci): skipping wasm-opt" >&2
fi
ls -l web/pkg
