#!/usr/bin/env bash
# Throughput and CPU of the real-time tools on loopback, each process timed on its own:
#
#   a. scream send -> scream recv, no bottleneck (the path's RTT is ~0.1 ms)
#   b. scream send -> scream link (unlimited capacity, 5 ms each way) -> scream recv
#
#   scripts/net-bench.sh [SECONDS]      default 12
#
# Prints the rate the receiver got and each process's CPU time per Gbit carried.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
secs="${1:-12}"
[ -x /usr/bin/time ] || { echo "net-bench.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
(cd "$root" && cargo build --release -q -p scream-cli)
scream="$root/target/release/scream"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

timed() { # NAME ARGS...: run scream ARGS, CPU seconds into $tmp/NAME.cpu
    local name="$1"; shift
    /usr/bin/time -f "%U %S" -o "$tmp/$name.time" "$scream" "$@" > "$tmp/$name.log" 2>&1
    awk '{ print $1 + $2 }' "$tmp/$name.time" > "$tmp/$name.cpu"
}

report() { # CASE PROCESSES...
    local case="$1"; shift
    local gbit
    gbit=$(python3 -c "import json; p=json.load(open('$tmp/recv.json'))['peers']; print(sum(x['bytes'] for x in p) * 8 / 1e9)")
    local late
    late=$(python3 -c "
import csv
rows = [r for r in csv.DictReader(open('$tmp/recv.csv')) if $secs / 2 < float(r['t_s']) <= $secs]
print(sum(float(r['rx_mbps']) for r in rows) / max(len(rows), 1))")
    printf '%s: %.0f Mbit/s received over %s s (%.0f Mbit/s in its second half, after the ramp)\n' \
        "$case" "$(python3 -c "print($gbit * 1e3 / $secs)")" "$secs" "$late"
    for p in "$@"; do
        printf '  %-5s %6.2f s CPU, %5.2f s per Gbit\n' "$p" "$(cat "$tmp/$p.cpu")" \
            "$(python3 -c "print($(cat "$tmp/$p.cpu") / max($gbit, 1e-9))")"
    done
}

common=(--duration "$secs" --start-rate 100 --max-rate 5000 --set mss_bytes=1400)

# a. No bottleneck.
timed recv recv --listen 127.0.0.1:5301 --duration $((secs + 2)) --out "$tmp/r" --no-plots &
sleep 0.3
timed send send --to 127.0.0.1:5301 "${common[@]}"
wait
cp "$tmp/r/summary.json" "$tmp/recv.json"; cp "$tmp/r/timeseries.csv" "$tmp/recv.csv"
report "a. send -> recv" send recv

# b. Through the link emulator with 10 ms of RTT.
timed recv recv --listen 127.0.0.1:5302 --duration $((secs + 3)) --out "$tmp/r" --no-plots &
timed link link --listen 127.0.0.1:6302 --forward 127.0.0.1:5302 --delay 5 \
    --duration $((secs + 2)) &
sleep 0.3
timed send send --to 127.0.0.1:6302 "${common[@]}"
wait
cp "$tmp/r/summary.json" "$tmp/recv.json"; cp "$tmp/r/timeseries.csv" "$tmp/recv.csv"
report "b. send -> link (5 ms each way) -> recv" send link recv
