#!/usr/bin/env bash
# Runs every report form and every query of a heapscope binary over every corpus dump and
# writes each output (stdout, stderr, exit status) to its own file under OUTDIR, so two
# builds can be compared with `diff -r OUTDIR_A OUTDIR_B` (a refactoring must leave it empty).
#
#   bash scripts/capture-outputs.sh BIN OUTDIR [CORPUS]
#
# CORPUS defaults to ../shared/corpus beside the repository. Sequential on purpose (the
# machine is shared): about 25 minutes on an idle 2-core machine. Addresses for `inspect`
# and `paths` come from the binary's own JSON report of each dump (top dominators, the
# first accumulation point, the first thread, a class object), so a change in them shows
# up as a difference too.
#
#   CAPTURE_ONLY=REGEX  run only the outputs whose file name matches (each dump's
#                       analyze.json is always written: the other outputs read it)
#   CAPTURE_RESUME=1    skip outputs already in OUTDIR (to finish a capture cut short)
set -uo pipefail

BIN=$(realpath "$1")
OUT=$2
HERE=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=${3:-$HERE/../shared/corpus}
CORPUS=$(realpath "$CORPUS")
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
# Files written here are passed on by relative names, so two captures in different folders compare equal.
cd "$OUT" || exit 1

# run NAME CMD...: stdout to NAME, stderr to NAME.err (only when not empty), status to NAME.rc (only when not 0).
run() {
    local name=$1
    shift
    if [ -n "${CAPTURE_ONLY:-}" ] && [[ ! "$name" =~ $CAPTURE_ONLY ]] && [[ "$name" != *.analyze.json ]]; then
        return
    fi
    if [ -n "${CAPTURE_RESUME:-}" ] && [ -e "$OUT/$name" ]; then
        return
    fi
    "$@" >"$OUT/$name" 2>"$OUT/$name.err"
    local rc=$?
    [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
    [ "$rc" -eq 0 ] || echo "$rc" >"$OUT/$name.rc"
}

dumps=()
for d in "$CORPUS"/dumps/*.hprof.gz "$CORPUS"/android/*.hprof.gz "$CORPUS"/realapp/dumps/*.hprof.gz \
    "$CORPUS"/layouts/*.hprof.gz; do
    [ -e "$d" ] && dumps+=("$d")
done

# The addresses a query is run on, one per line: from the report's JSON.
addresses() {
    python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
seen = []
def add(a):
    if a and a not in seen:
        seen.append(a)
for d in r.get("top_dominators", [])[:2]:
    add(d.get("address"))
for g in r.get("growth_points", [])[:1]:
    add((g.get("accumulation_point") or {}).get("address"))
for t in r.get("threads", [])[:1]:
    add(t.get("address"))
for h in r.get("histogram", [])[:1]:
    add(h.get("class_address"))
print("\n".join(seen))
EOF
}

# The histogram's first class that is not java.lang.Class (for `classes-up CLASS`).
first_class() {
    python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for h in r.get("histogram", []):
    if h["class_name"] != "java.lang.Class":
        print(h["class_name"]); break
EOF
}

for dump in "${dumps[@]}"; do
    base=$(basename "$dump" .hprof.gz)
    map=""
    [ -e "${dump%.hprof.gz}.map" ] && map="${dump%.hprof.gz}.map"
    zip=""
    for z in "$CORPUS/expected/${base}_Leak_Suspects.zip" "$(dirname "$dump")/../expected/${base}_Leak_Suspects.zip"; do
        [ -e "$z" ] && zip=$(realpath "$z") && break
    done
    echo "capture: $base" >&2
    D=$base
    run "$D.analyze.json" "$BIN" analyze "$dump" -f json -q
    run "$D.analyze.md" "$BIN" analyze "$dump" -f md -q
    run "$D.analyze.md-graphs" "$BIN" analyze "$dump" -f md-graphs -q
    run "$D.analyze.html" "$BIN" analyze "$dump" -f html -q
    run "$D.analyze.minimal.md" "$BIN" analyze "$dump" -f md --detail minimal -q
    run "$D.analyze.max.md" "$BIN" analyze "$dump" -f md --detail max -q
    run "$D.analyze.strength.json" "$BIN" analyze "$dump" -f json --tree strength -q
    run "$D.analyze.strength.md" "$BIN" analyze "$dump" -f md --tree strength -q
    run "$D.analyze.keep.json" "$BIN" analyze "$dump" -f json --keep-unreachable -q
    run "$D.analyze.chk.json" "$BIN" analyze "$dump" -f json --dominators chk -q
    if [ -n "$map" ]; then
        run "$D.analyze.mapped.json" "$BIN" analyze "$dump" -f json --mapping "$map" -q
        run "$D.analyze.mapped.md" "$BIN" analyze "$dump" -f md --mapping "$map" -q
        run "$D.threads.mapped" "$BIN" threads "$dump" --mapping "$map" -q
        run "$D.leaks.mapped.json" "$BIN" leaks "$dump" -f json --mapping "$map" -q
    fi
    json="$D.analyze.json"
    run "$D.render.md" "$BIN" render "$json" -f md -q
    run "$D.render.md-graphs" "$BIN" render "$json" -f md-graphs -q
    run "$D.render.html" "$BIN" render "$json" -f html -q
    run "$D.render.json" "$BIN" render "$json" -f json -q
    run "$D.render.minimal.html" "$BIN" render "$json" -f html --detail minimal -q
    run "$D.render.max.md-graphs" "$BIN" render "$json" -f md-graphs --detail max -q
    run "$D.parity.json" "$BIN" parity "$dump" -o - -q
    run "$D.parity.keep.json" "$BIN" parity "$dump" -o - --keep-unreachable -q
    run "$D.dump-pass1.json" "$BIN" dev dump-pass1 "$dump" -q
    run "$D.threads" "$BIN" threads "$dump" -q
    run "$D.classes-up" "$BIN" classes-up "$dump" -q
    run "$D.classes-up.strength" "$BIN" classes-up "$dump" --tree strength --depth 3 -q
    cls=$(first_class "$json")
    if [ -n "$cls" ]; then
        run "$D.classes-up.class.json" "$BIN" classes-up "$dump" "$cls" --format json -q
    fi
    run "$D.leaks.text" "$BIN" leaks "$dump" -q
    run "$D.leaks.json" "$BIN" leaks "$dump" -f json -q
    run "$D.leaks.md" "$BIN" leaks "$dump" -f md -q
    run "$D.leaks.strength.json" "$BIN" leaks "$dump" -f json --tree strength -q
    i=0
    for addr in $(addresses "$json"); do
        i=$((i + 1))
        run "$D.inspect.$i" "$BIN" inspect "$dump" "$addr" -q
        run "$D.paths.$i" "$BIN" paths "$dump" "$addr" -q
        if [ "$i" -eq 1 ]; then
            run "$D.inspect.$i.strength" "$BIN" inspect "$dump" "$addr" --tree strength -q
            run "$D.paths.$i.strength.json" "$BIN" paths "$dump" "$addr" --format json --tree strength --max 3 -q
        fi
    done
    if [ -n "$zip" ]; then
        mkdir -p "$OUT/mat"
        run "$D.compare-mat.md" "$BIN" compare mat "$zip" "$json" -f md -q
        run "mat/$D.diff.json" "$BIN" compare mat "$zip" "$json" -f json -q
    fi
done
if [ -d "$OUT/mat" ]; then
    run "sweep-aggregate" "$BIN" dev sweep-aggregate mat -q
fi
# compare mat straight from a dump (analyzed first).
run "compare-mat.from-dump.json" "$BIN" compare mat "$CORPUS/expected/s02_static_map_leak_serial_Leak_Suspects.zip" \
    "$CORPUS/dumps/s02_static_map_leak_serial.hprof.gz" -f json -q

# Pairs of the same program: dumps, and their saved reports.
pairs=(
    "dumps/s01_hello_serial_live dumps/s01_hello_serial_all"
    "dumps/s02_static_map_leak_g1 dumps/s02_static_map_leak_serial"
    "dumps/s02_static_map_leak_serial dumps/s02_static_map_leak_nocoops"
    "dumps/s04_references_serial_live dumps/s04_references_serial_all"
    "dumps/s06_linked_list_1m_serial dumps/s06_linked_list_1m_nocoops"
    "dumps/s07_wide_array_serial dumps/s07_wide_array_g1"
    "dumps/s10_garbage_cycles_g1_all dumps/s10_garbage_cycles_serial_all"
    "android/ahat_test_dump_base_8e3b7d7 android/ahat_test_dump_8e3b7d7"
)
for pair in "${pairs[@]}"; do
    set -- $pair
    a=$1
    b=$2
    [ -e "$CORPUS/$a.hprof.gz" ] && [ -e "$CORPUS/$b.hprof.gz" ] || continue
    P="compare.$(basename "$a")--$(basename "$b")"
    echo "capture: $P" >&2
    run "$P.md" "$BIN" compare "$CORPUS/$a.hprof.gz" "$CORPUS/$b.hprof.gz" -q
    run "$P.json" "$BIN" compare "$CORPUS/$a.hprof.gz" "$CORPUS/$b.hprof.gz" -f json -q
    run "$P.html" "$BIN" compare "$CORPUS/$a.hprof.gz" "$CORPUS/$b.hprof.gz" -f html -q
    run "$P.instances.top5.md" "$BIN" compare "$CORPUS/$a.hprof.gz" "$CORPUS/$b.hprof.gz" --sort instances --top 5 -q
    run "$P.keep.json" "$BIN" compare "$CORPUS/$a.hprof.gz" "$CORPUS/$b.hprof.gz" -f json --keep-unreachable -q
    run "$P.reports.md" "$BIN" compare reports "$(basename "$a").analyze.json" "$(basename "$b").analyze.json" -q
    run "$P.mixed.json" "$BIN" compare "$(basename "$a").analyze.json" "$CORPUS/$b.hprof.gz" -f json -q
    if [ -e "$CORPUS/$b.map" ]; then
        run "$P.mapped.md" "$BIN" compare "$CORPUS/$a.hprof.gz" "$CORPUS/$b.hprof.gz" --mapping "$CORPUS/$b.map" -q
    fi
done

for s in "" --queries --paths --classes-up --compare --protocol --leaks; do
    run "schema${s:-.report}" "$BIN" schema $s
done
run "dev.emit-schema" "$BIN" dev emit-schema
echo "capture: done, $(ls "$OUT" | wc -l) files in $OUT" >&2
