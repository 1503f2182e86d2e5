#!/usr/bin/env bash
# The SCReAM paper's Fig. 3 (and its CS244 reproduction) on real sockets: SCReAM video
# over a 1 Mbit/s bottleneck that a real TCP transfer (iperf3) shares from 16 to 23 s.
# The same setup as the simulated `scream sim cs244-fig3` (docs/cs244-fig3.md):
# 25 ms each way, a 300 ms tail-drop queue, video 0.15-1 Mbit/s from `trace_no_key`.
# Needs root (network namespaces, TUN) and iperf3. Writes OUT/{send,recv,link}/ and
# OUT/iperf3.json (client) and OUT/iperf3-server.json (what arrived), and OUT/plots/ with the link's queue delay and the TCP rate merged
# in (`scream plot`); docs/cs244-real.md shows them.
#
#   scripts/cs244-real.sh [OUT] [GENERATION]    default: out/cs244-real scream-v1
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
out="$(realpath -m "${1:-out/cs244-real}")"
generation="${2:-scream-v1}"
command -v iperf3 >/dev/null || { echo "cs244-real.sh: needs iperf3 (apt-get install iperf3)" >&2; exit 1; }
(cd "$root" && cargo build --release -q -p scream-cli)
scream="$root/target/release/scream"

rm -rf "$out"; mkdir -p "$out"
"$here/netns-bottleneck.sh" up
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    "$here/netns-bottleneck.sh" down
}
trap cleanup EXIT

params=()
# V1's competing-flows compensation (RFC 8298 §4.1.2.1) is what the figure shows.
[ "$generation" = scream-v1 ] && params=(--set competing_flows_compensation=1)

ip netns exec scream-mid "$scream" link --tun sctun --forward-net 10.200.2.0/24 \
    --rate 1 --delay 25 --queue tail-drop --queue-ms 300 --duration 44 \
    --out "$out/link" > "$out/link.log" 2>&1 &
pids+=($!)
ip netns exec scream-rx "$scream" recv --listen 10.200.2.2:5000 --duration 43 \
    --out "$out/recv" > "$out/recv.log" 2>&1 &
pids+=($!)
ip netns exec scream-rx iperf3 -s -1 -B 10.200.2.2 -i 0.5 -J > "$out/iperf3-server.json" 2>&1 &
pids+=($!)
sleep 1
# iperf3 stamps its reports in whole seconds; the start is kept finer for the plots.
(sleep 16; date +%s.%N > "$out/iperf3.start"
 ip netns exec scream-tx iperf3 -c 10.200.2.2 -t 7 -i 0.5 -J > "$out/iperf3.json" 2>&1) &
pids+=($!)
ip netns exec scream-tx "$scream" send --to 10.200.2.2:5000 --generation "$generation" \
    --min-rate 0.15 --start-rate 0.15 --max-rate 1 --video builtin:trace_no_key \
    --duration 40 "${params[@]}" --out "$out/send" | tee "$out/send.log"
wait "${pids[@]}" 2>/dev/null || true
# The figures again, with the link's queue delay and capacity and the TCP rate.
"$scream" plot "$out"
echo "outputs in $out"
