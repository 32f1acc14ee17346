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
# Only cargo-fuzz gets RUSTC_BOOTSTRAP=1: cargo fingerprints it, so setting it for the
# plain builds below would rebuild the whole target directory each time.
fuzz() { RUSTC_BOOTSTRAP=1 cargo fuzz "$@"; }

# Seeds: the first 16 KiB (decompressed) of each corpus dump and the first 4 KiB of each
# .gz as it is (which inflates to tens of KiB); small JSON reports; the small complete
# dumps the robustness tests build. Inputs stay small (MAX_LEN below) because a fuzzer
# finds more per second on small inputs: the formats' structure (records, sub-records,
# gzip members) repeats, and a 64 KiB gzip input can inflate to megabytes per run.
SEEDS="$ROOT/fuzz/seeds"
mkdir -p "$SEEDS"/{hprof,gz,json}
CORPUS="$ROOT/../shared/corpus"
if [ -d "$CORPUS" ]; then
  for f in "$CORPUS"/dumps/*.hprof.gz "$CORPUS"/android/*.hprof.gz; do
    [ -f "$f" ] || continue
    name=$(basename "$f" .hprof.gz)
    (gzip -dc "$f" 2>/dev/null || true) | head -c 16384 > "$SEEDS/hprof/$name.head" || true
    head -c 4096 "$f" > "$SEEDS/gz/$name.gz.head"
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

# The longest input each target is given (libFuzzer truncates longer corpus entries).
max_len_of() {
  case "$1" in
    analyze|records) echo 16384 ;;
    gzip) echo 4096 ;;
    report_json) echo 32768 ;;
  esac
}
# One fuzzing process per core, each for the whole time; their executions are summed.
JOBS="${FUZZ_JOBS:-$(nproc)}"

# No sanitizer: the crate is safe Rust (its one `unsafe` is a prefetch hint), so
# AddressSanitizer would find nothing a panic does not, and its allocator made the
# whole-analysis target 5-10x slower. What the fuzzer looks for here is panics, hangs
# (-timeout) and runaway allocations (-rss_limit_mb; the analysis caps its own
# allocations by the input's size).
SANITIZER=(--sanitizer none)

cd "$ROOT/fuzz"
echo "== building the fuzz targets"
fuzz build "${SANITIZER[@]}" --release >/dev/null
status=0
total=0
summary=()
for t in "${TARGETS[@]}"; do
  mkdir -p "corpus/$t" "artifacts/$t"
  logs="$ROOT/fuzz/artifacts/$t"
  rm -f "$logs"/fuzz-*.log
  echo "== $t: ${SECONDS_EACH} s, $JOBS processes"
  # -timeout: an input taking over 1 s is a finding (a hang); -rss_limit_mb: an
  # allocation sized by an unchecked field is one too. -jobs with
  # -workers: JOBS independent processes sharing the corpus directory, each writing
  # fuzz-N.log in the current directory (hence the cd).
  # shellcheck disable=SC2046
  (cd "$logs" && fuzz run --fuzz-dir "$ROOT/fuzz" "${SANITIZER[@]}" --release "$t" "$ROOT/fuzz/corpus/$t" $(seeds_of "$t") -- \
    -max_total_time="$SECONDS_EACH" -max_len="$(max_len_of "$t")" -timeout=1 -rss_limit_mb=2048 \
    -print_final_stats=1 -jobs="$JOBS" -workers="$JOBS" \
    -artifact_prefix="$ROOT/fuzz/artifacts/$t/" > "$logs/run.log" 2>&1) || status=1
  execs=$( { cat "$logs"/fuzz-*.log 2>/dev/null | grep -a -o 'stat::number_of_executed_units: *[0-9]*' || true; } | awk '{s+=$NF} END {print s+0}')
  findings=$(find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  if [ "$findings" -gt 0 ]; then
    mkdir -p "regressions/$t"
    find "artifacts/$t" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) -exec cp -n {} "regressions/$t/" \;
    status=1
  fi
  total=$((total + execs))
  summary+=("$t: $execs executions, $findings findings (logs: fuzz/artifacts/$t/fuzz-*.log)")
done
echo
echo "== fuzz.sh ${SECONDS_EACH} s per target"
printf '%s\n' "${summary[@]}"
echo "total: $total executions"
exit $status
