#!/usr/bin/env bash
# Rebuilds the page's sample dump, web/public/sample.hprof.gz, from tests/sample/SampleApp.java
# with the machine's JDK (17 or later): compile, run with SerialGC in a 32 MiB heap, let the
# program dump its own heap (HotSpotDiagnosticMXBean.dumpHeap, live objects), gzip -9 -n.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-web/public/sample.hprof.gz}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
javac --release 17 -d "$tmp/classes" tests/sample/SampleApp.java
java -XX:+UseSerialGC -Xmx32m -Xms32m -XX:-UsePerfData -Xshare:auto \
  -cp "$tmp/classes" SampleApp "$tmp/sample.hprof"
gzip -9 -n -c "$tmp/sample.hprof" > "$out.tmp"
mv "$out.tmp" "$out"
echo "make-sample: $(stat -c %s "$tmp/sample.hprof") bytes of HPROF -> $out ($(stat -c %s "$out") bytes)"
