#!/usr/bin/env bash
# Three network namespaces with `scream link` as the bottleneck between them (root):
#
#   scream-tx 10.200.1.2 --veth-- scream-mid (router; TUN device sctun) --veth-- scream-rx 10.200.2.2
#
# The router sends every packet that enters from either side into the TUN device, where
# `scream link --tun sctun --forward-net 10.200.2.0/24 ...` (run in scream-mid) holds it
# for the emulated link and writes it back; the kernel then routes it on. Any traffic
# crosses the bottleneck: UDP from `scream send`, TCP from iperf3, ping.
#
#   scripts/netns-bottleneck.sh up      create (removing an earlier set first)
#   scripts/netns-bottleneck.sh down    remove
#
# Then, for example:
#   ip netns exec scream-mid scream link --tun sctun --forward-net 10.200.2.0/24 --rate 10 --delay 20 &
#   ip netns exec scream-rx  scream recv --listen 10.200.2.2:5000 &
#   ip netns exec scream-tx  scream send --to 10.200.2.2:5000 --ecn l4s
set -euo pipefail

TX=scream-tx MID=scream-mid RX=scream-rx TUN=sctun

down() {
    for ns in "$TX" "$MID" "$RX"; do
        ip netns del "$ns" 2>/dev/null || true
    done
}

up() {
    [ "$(id -u)" = 0 ] || { echo "netns-bottleneck.sh: needs root (ip netns, TUN)" >&2; exit 1; }
    down
    for ns in "$TX" "$MID" "$RX"; do
        ip netns add "$ns"
        ip -n "$ns" link set lo up
    done
    ip link add sc-tx type veth peer name sc-mid-tx
    ip link add sc-rx type veth peer name sc-mid-rx
    ip link set sc-tx netns "$TX"
    ip link set sc-rx netns "$RX"
    ip link set sc-mid-tx netns "$MID"
    ip link set sc-mid-rx netns "$MID"
    ip -n "$TX" addr add 10.200.1.2/24 dev sc-tx
    ip -n "$RX" addr add 10.200.2.2/24 dev sc-rx
    ip -n "$MID" addr add 10.200.1.1/24 dev sc-mid-tx
    ip -n "$MID" addr add 10.200.2.1/24 dev sc-mid-rx
    for l in "$TX:sc-tx" "$RX:sc-rx" "$MID:sc-mid-tx" "$MID:sc-mid-rx"; do
        ip -n "${l%%:*}" link set "${l#*:}" up
    done
    ip -n "$TX" route add default via 10.200.1.1
    ip -n "$RX" route add default via 10.200.2.1
    # Offloads would hand the TUN device 64 KB TCP super-packets, which a link that
    # serializes packets must not see.
    for l in sc-mid-tx sc-mid-rx; do
        ip netns exec "$MID" ethtool -K "$l" gro off gso off tso off >/dev/null 2>&1 || true
    done
    for l in "$TX:sc-tx" "$RX:sc-rx"; do
        ip netns exec "${l%%:*}" ethtool -K "${l#*:}" gso off tso off >/dev/null 2>&1 || true
    done
    # The router: forwarding on, a persistent TUN device that `scream link` attaches to,
    # and policy routing that sends what arrives from either side into it. What the
    # emulator writes back arrives from the TUN device and follows the main table.
    ip netns exec "$MID" sysctl -qw net.ipv4.ip_forward=1
    ip netns exec "$MID" sysctl -qw net.ipv4.conf.all.rp_filter=0
    ip netns exec "$MID" sysctl -qw net.ipv4.conf.default.rp_filter=0
    ip -n "$MID" tuntap add dev "$TUN" mode tun
    ip -n "$MID" link set "$TUN" up
    ip netns exec "$MID" sysctl -qw "net.ipv4.conf.$TUN.rp_filter=0"
    ip netns exec "$MID" sysctl -qw "net.ipv4.conf.$TUN.accept_local=1"
    ip -n "$MID" route add default dev "$TUN" table 100
    ip -n "$MID" rule add iif sc-mid-tx table 100
    ip -n "$MID" rule add iif sc-mid-rx table 100
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
