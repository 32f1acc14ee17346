#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 600), seeded with the heads of
# the corpus dumps, and reports executions and findings per target.
#
#   bash scripts/fuzz.sh [SECONDS]
#
# Targets (fuzz/fuzz_targets/, bodies in crate/src/fuzzing.rs): analyze (the whole
# analysis on arbitrary bytes), records (the record walker), gzip (the gzip reader),
# report_json (the saved-report reader). Stable toolchain: RUSTC_BOOTSTRAP=1 lets it take
# cargo-fuzz's -Z flags. Installs cargo-fuzz from crates.io when missing.
#
# Each finding (crash, timeout > 1 s, out of memory) is copied to
# fuzz/regressions/TARGET/, which `cargo test --release --test fuzz_regressions` replays;
# the script exits 1 when there was any. Not part of CI (its time); CI only checks that
# the targets build.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export PATH="$HOME/.cargo/bin:$PATH"
SECONDS_EACH="${1:-600}"
TARGETS=(analyze records gzip report_json)

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "== installing cargo-fuzz (cargo install cargo-fuzz)"
  cargo install cargo-fuzz
fi
export RUSTC_BOOTSTRAP=1

# Seeds: the first 64 KiB (decompressed) of each corpus dump and the first 64 KiB of
# each .gz as it is; small JSON reports; the dumps the robustness tests build.
SEEDS="$ROOT/fuzz/seeds"
mkdir -p "$SEEDS"/{hprof,gz,json}
CORPUS="$ROOT/../shared/corpus"
if [ -d "$CORPUS" ]; then
  for f in "$CORPUS"/dumps/*.hprof.gz "$CORPUS"/android/*.hprof.gz; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .hprof.gz)
    (gzip -dc "$f" 2>/dev/null || true) | head -c 65536 > "$SEEDS/hprof/$name.head" || true
    head -c 65536 "$f" > "$SEEDS/gz/$name.gz.head"
  done
else
  echo "fuzz.sh: no corpus at $CORPUS: seeding with the built-in dumps only" >&2
fi
cargo test --release --quiet --test robustness -- --ignored write_fuzz_seeds >/dev/null 2>&1 || true
cp -f "$SEEDS"/*.hprof "$SEEDS/hprof/" 2>/dev/null || true
cp -f "$SEEDS"/*.gz "$SEEDS/gz/" 2>/dev/null || true
cargo build --release --quiet -p heapscope --bin heapscope
for f in "$SEEDS"/hprof/*; do
  [ "$(stat -c %s "$f")" -lt 4096 ] || continue
  "$ROOT/target/release/heapscope" analyze "$f" --format json -o "$SEEDS/json/$(basename "$f").json" 2>/dev/null || true
done

seeds_of() {
  case "$1" in
    analyze) echo "$SEEDS/hprof $SEEDS/gz" ;;
    records) echo "$SEEDS/hprof" ;;
    gzip) echo "$SEEDS/gz" ;;
    report_json) echo "$SEEDS/json" ;;
  esac
}

cd "$ROOT/fuzz"
echo "== building the fuzz targets"
cargo fuzz build --release >/dev/null
status=0
summary=()
for t in "${TARGETS[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="$ROOT/fuzz/artifacts/$t.log"
  echo "== $t: ${SECONDS_EACH} s"
  # -timeout: an input taking over 1 s is a finding (a hang); -rss_limit_mb /
  # -malloc_limit_mb: an allocation sized by an unchecked field is one too.
  # shellcheck disable=SC2046
  cargo fuzz run --release "$t" "corpus/$t" $(seeds_of "$t") -- \
    -max_total_time="$SECONDS_EACH" -timeout=1 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
    -print_final_stats=1 > "$log" 2>&1 || status=1
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  findings=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ "$findings" -gt 0 ]; then
    mkdir -p "regressions/$t"
    find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) -exec cp -n {} "regressions/$t/" \;
    status=1
  fi
  summary+=("$t: ${execs:-?} executions, $findings findings (log: fuzz/artifacts/$t.log)")
done
echo
echo "== fuzz.sh ${SECONDS_EACH} s per target"
printf '%s\n' "${summary[@]}"
exit $status
