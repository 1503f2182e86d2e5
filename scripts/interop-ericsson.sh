#!/usr/bin/env bash
# Live interop with the Ericsson SCReAM reference's bandwidth-test tools, through
# `scream link` as a 10 Mbit/s bottleneck in network namespaces (root):
#
#   1. its sender (scream_bw_test_tx) -> our receiver (scream recv), L4S and delay-only
#   2. our sender (scream send) -> its receiver (scream_bw_test_rx), L4S and delay-only
#
#   scripts/interop-ericsson.sh REF_BIN_DIR [OUT]     default OUT: out/interop
#
# REF_BIN_DIR holds scream_bw_test_tx and scream_bw_test_rx, built from
# github.com/EricssonResearch/scream by its own instructions. Each case runs
# SECONDS_PER_CASE (default 20) s; docs/interop.md gives the figures.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
ref="$(realpath "${1:?usage: $0 REF_BIN_DIR [OUT]}")"
out="$(realpath -m "${2:-out/interop}")"
secs="${SECONDS_PER_CASE:-20}"
for b in scream_bw_test_tx scream_bw_test_rx; do
    [ -x "$ref/$b" ] || { echo "interop-ericsson.sh: no $ref/$b" >&2; exit 1; }
done
(cd "$root" && cargo build --release -q -p scream-cli)
scream="$root/target/release/scream"
port=5000
rm -rf "$out"; mkdir -p "$out"
"$here/netns-bottleneck.sh" up
trap '"$here/netns-bottleneck.sh" down' EXIT

# The bottleneck for one case: 10 Mbit/s, 10 ms each way, an L4S ramp or tail drop.
link() { # NAME QUEUE
    ip netns exec scream-mid "$scream" link --tun sctun --forward-net 10.200.2.0/24 \
        --rate 10 --delay 10 --queue "$2" --duration $((secs + 4)) \
        --out "$out/$1/link" > "$out/$1/link.log" 2>&1 &
}

# 1. The reference's sender to our receiver. It reads num_reports as count - 1.
for mode in l4s delay; do
    name="ref-tx-to-our-rx-$mode"; mkdir -p "$out/$name"
    if [ "$mode" = l4s ]; then queue=l4s-ramp; ect=(-ect 1); else queue=tail-drop; ect=(); fi
    link "$name" "$queue"
    ip netns exec scream-rx "$scream" recv --listen "10.200.2.2:$port" --num-reports minus-one \
        --duration $((secs + 3)) --out "$out/$name/recv" > "$out/$name/recv.log" 2>&1 &
    sleep 1
    ip netns exec scream-tx "$ref/scream_bw_test_tx" "${ect[@]}" -maxrate 20000 -time "$secs" \
        -log "$out/$name/ref-tx.csv" "10.200.2.2" "$port" > "$out/$name/ref-tx.log" 2>&1
    wait
done

# 2. Our sender to the reference's receiver, which reports every packet as SSRC 100.
for mode in l4s delay; do
    name="our-tx-to-ref-rx-$mode"; mkdir -p "$out/$name"
    if [ "$mode" = l4s ]; then queue=l4s-ramp; ecn=l4s; else queue=tail-drop; ecn=none; fi
    link "$name" "$queue"
    ip netns exec scream-rx timeout -s TERM $((secs + 3)) "$ref/scream_bw_test_rx" "$port" \
        > "$out/$name/ref-rx.log" 2>&1 &
    sleep 1
    # --faithful: the figures in docs/interop.md compare the pure algorithm with the
    # reference's receiver.
    ip netns exec scream-tx "$scream" send --to "10.200.2.2:$port" --ssrc 100 --ecn "$ecn" \
        --faithful --max-rate 20 --duration "$secs" --out "$out/$name/send" > "$out/$name/send.log" 2>&1
    wait || true
done
echo "outputs in $out"
