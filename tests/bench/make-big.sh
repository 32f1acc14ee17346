#!/usr/bin/env bash
# tests/bench/make-big.sh SIZE_GB OUTDIR — a make-big dump of any size, for the benchmarks.
# The same as ../shared/corpus/make-big.sh (gen/src/corpus/BigHeap.java, live dump to
# OUTDIR/big-<SIZE_GB>g.hprof), except that the byte target is computed with python3:
# make-big.sh computes it with awk's printf "%d", which mawk clamps at 2^31-1, so there
# `make-big.sh 3` and `make-big.sh 4` both give a 2 GiB dump.
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 SIZE_GB OUTDIR" >&2; exit 2; fi
SIZE=$1
OUTDIR=$2
CORPUS="$(cd "$(dirname "$0")/../../.." && pwd)/shared/corpus"
TARGET=$(python3 -c "print(int(float('$SIZE') * 2**30))")
XMX_MB=$(python3 -c "print(int(float('$SIZE') * 1024 * 1.15 + 1024))")
mkdir -p "$OUTDIR"
FREE=$(df -Pk "$OUTDIR" | awk 'NR == 2 { print $4 }')
if [ "$(python3 -c "print(int($FREE * 1024 < $TARGET * 1.1))")" = 1 ]; then
  echo "not enough free disk in $OUTDIR for a ${SIZE} GiB dump" >&2; exit 1
fi
BUILD=$(mktemp -d)
trap 'rm -rf "$BUILD"' EXIT
javac -nowarn -d "$BUILD" "$CORPUS"/gen/src/corpus/Dumper.java "$CORPUS"/gen/src/corpus/BigHeap.java
OUT="$OUTDIR/big-${SIZE}g.hprof"
rm -f "$OUT"
SECONDS=0
LC_ALL=C TZ=UTC java -XX:+UseParallelGC -Xmx${XMX_MB}m -Duser.language=en -Duser.country=US \
  -cp "$BUILD" corpus.BigHeap "$OUT" "$TARGET" live
echo "$OUT: $(stat -c %s "$OUT") bytes in ${SECONDS} s"
