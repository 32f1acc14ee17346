#!/usr/bin/env bash
# bench.sh [--reuse DIR] [--sizes "1 4"] [--keep]
#
# Benchmark (not a test) of `heapscope analyze` on the large synthetic dumps that
# ../shared/corpus/make-big.sh describes (1 GB ≈ 22 M objects, 4 GB ≈ 88 M objects).
# They are generated here the way make-big.sh does it, but with the byte target computed
# without awk's %d, which mawk clamps at 2^31 - 1 (make-big.sh 3 and 4 then both give
# 2 GiB dumps).
#
#   --reuse DIR   use DIR/big-<S>g.hprof when present, generate the missing ones there and
#                 keep them (default: generate into a fresh temporary directory on a file
#                 system with enough free space, deleted at the end)
#   --sizes LIST  dump sizes in GiB (default "1 4"; fractions work)
#   --keep        keep the temporary directory and say where it is
#
# Generating needs a JDK, ~1.1 x SIZE of free disk and ~1.15 x SIZE + 1 GiB of RAM for the
# JVM (a 4 GiB dump takes several minutes). Each dump is analysed once, under
# /usr/bin/time -v, with --timings. Printed: per dump the file size, objects, wall time,
# CPU time (user + sys), peak RSS, peak bytes per object and MB of dump per CPU second,
# then each dump's per-phase table. The peak RSS is the largest per-phase peak printed
# by --timings (which resets the kernel's high-water mark at each phase, so the
# "Maximum resident set size" of time -v only covers the last phase).
# The machine may be shared: compare CPU seconds and memory, not wall time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS="$ROOT/../shared/corpus"
REUSE="" SIZES="1 4" KEEP=0
while [ $# -gt 0 ]; do
  case "$1" in
    --reuse) REUSE=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "bench.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

# Bytes of disk the dumps still to generate need (make-big.sh wants SIZE + 10%).
need_bytes() {
  local dir=$1 total=0 s
  for s in $SIZES; do
    if [ -z "$dir" ] || [ ! -s "$dir/big-${s}g.hprof" ]; then
      total=$(awk -v t="$total" -v s="$s" 'BEGIN { printf "%d", t + s * 1.15 * 1073741824 }')
    fi
  done
  echo "$total"
}
free_bytes() { df -Pk "$1" | awk 'NR == 2 { printf "%d", $4 * 1024 }'; }

if [ -n "$REUSE" ]; then
  mkdir -p "$REUSE"
  DIR=$(cd "$REUSE" && pwd)
  NEED=$(need_bytes "$DIR")
  if [ "$(free_bytes "$DIR")" -lt "$NEED" ]; then
    echo "bench.sh: $DIR has $(($(free_bytes "$DIR") >> 20)) MiB free, the missing dumps need $((NEED >> 20)) MiB" >&2
    exit 1
  fi
else
  NEED=$(need_bytes "")
  DIR=""
  for base in "${TMPDIR:-/tmp}" /var/tmp "$ROOT/.." "$HOME"; do
    [ -d "$base" ] && [ -w "$base" ] || continue
    if [ "$(free_bytes "$base")" -ge "$NEED" ]; then
      DIR=$(mktemp -d "$base/heapscope-bench.XXXXXX")
      break
    fi
  done
  if [ -z "$DIR" ]; then
    echo "bench.sh: no writable file system with $((NEED >> 20)) MiB free for the dumps (try --reuse DIR)" >&2
    exit 1
  fi
  if [ "$KEEP" = 1 ]; then
    trap 'echo "bench.sh: dumps kept in $DIR"' EXIT
  else
    trap 'rm -rf "$DIR"' EXIT
  fi
fi

echo "== building heapscope (release)"
(cd "$ROOT" && cargo build --release --quiet -p heapscope --bin heapscope)
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/heapscope"
[ -x "$BIN" ] || { echo "bench.sh: $BIN was not built" >&2; exit 1; }

# make-big.sh's generation (same sources, flags and output name), target in bytes via %.0f.
generate() {
  local size=$1 out="$DIR/big-$1g.hprof" target xmx build start
  target=$(awk -v s="$size" 'BEGIN { printf "%.0f", s * 1073741824 }')
  xmx=$(awk -v s="$size" 'BEGIN { printf "%.0f", s * 1024 * 1.15 + 1024 }')
  build=$(mktemp -d)
  javac -nowarn -d "$build" "$CORPUS"/gen/src/corpus/Dumper.java "$CORPUS"/gen/src/corpus/BigHeap.java
  rm -f "$out"
  start=$SECONDS
  LC_ALL=C TZ=UTC java -XX:+UseParallelGC -Xmx"${xmx}"m -Duser.language=en -Duser.country=US \
    -cp "$build" corpus.BigHeap "$out" "$target" live
  rm -rf "$build"
  echo "$out: $(stat -c %s "$out") bytes in $((SECONDS - start)) s"
}
for s in $SIZES; do
  if [ ! -s "$DIR/big-${s}g.hprof" ]; then
    echo "== generating a ${s} GiB dump in $DIR"
    generate "$s"
  fi
done

echo "== $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo '+changes')"
ROWS=() PHASES=()
for s in $SIZES; do
  dump="$DIR/big-${s}g.hprof"
  echo "== analysing $dump"
  out=$(mktemp) tv=$(mktemp)
  /usr/bin/time -v -o "$tv" "$BIN" analyze "$dump" --timings -o "$out.md" 2> "$out" || {
    cat "$out" "$tv" >&2
    echo "bench.sh: heapscope failed on $dump" >&2
    exit 1
  }
  bytes=$(stat -c %s "$dump")
  objects=$(awk '/^objects in the dump:/ { print $NF }' "$out")
  peak_mib=$(awk '$1 == "total" { print $(NF - 1) }' "$out")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$tv")
  cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f", u + s }' "$tv")
  ROWS+=("$(awk -v f="big-${s}g.hprof" -v b="$bytes" -v o="$objects" -v w="$wall" -v c="$cpu" -v p="$peak_mib" 'BEGIN {
    printf "%-16s %9.0f %12d %8.2f %8.2f %9.1f %8.1f %9.0f", f, b / 1e6, o, w, c, p, p * 1048576 / o, b / 1e6 / c }')")
  PHASES+=("$(printf '%s\n' "-- big-${s}g.hprof" && grep -E '^(phase|pass|dominator|retained|report|total) ' "$out")")
  rm -f "$out" "$out.md" "$tv"
done

echo
printf "%-16s %9s %12s %8s %8s %9s %8s %9s\n" dump "size MB" objects "wall s" "CPU s" "peak MiB" "B/obj" "MB/CPU-s"
printf '%s\n' "${ROWS[@]}"
echo
printf '%s\n\n' "${PHASES[@]}"
