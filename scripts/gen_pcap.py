#!/usr/bin/env python3
"""Write a pcap file of test traffic for examples/l2l3.p4.

The traffic matches the entries in examples/l2l3.entries: packets that hit
the L2 table, each IPv4 route, miss both tables, are denied or permitted by
the ACL, have TTL 1, are IPv6 (bridged), and one truncated IPv4 packet.
The packet kinds are repeated round-robin until --count packets are written;
each copy differs in its IPv4 identification / payload bytes.

Plain Python 3, no third-party modules. Output: classic libpcap format
(magic 0xa1b2c3d4, version 2.4, microsecond timestamps, LINKTYPE_ETHERNET).

    python3 scripts/gen_pcap.py --count 1000 --out traffic.pcap
"""

import argparse
import struct
import sys

ROUTER_MAC = 0x00000000C0DE   # destination MAC of routed packets
HOST_MAC = 0x000000000001     # source MAC of all packets


def mac(v):
    return v.to_bytes(6, "big")


def ip(a, b, c, d):
    return bytes((a, b, c, d))


def csum16(data):
    """16-bit ones' complement checksum (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    total = 0
    for i in range(0, len(data), 2):
        total += (data[i] << 8) | data[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def ethernet(dst, src, ethertype):
    return mac(dst) + mac(src) + struct.pack("!H", ethertype)


def ipv4(src, dst, proto, payload_len, ttl=64, ident=0):
    """A 20-byte IPv4 header with a correct checksum."""
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + payload_len, ident, 0,
                      ttl, proto, 0, src, dst)
    return hdr[:10] + struct.pack("!H", csum16(hdr)) + hdr[12:]


def ipv6(src, dst, nexthdr, payload_len, hop=64):
    return struct.pack("!IHBB16s16s", 6 << 28, payload_len, nexthdr, hop, src, dst)


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def tcp(sport, dport, payload):
    # data offset 5 words, flags ACK; checksum left 0 (the example does not check it)
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 5 << 4, 0x10, 8192, 0, 0) + payload


def v4_packet(src, dst, l4, ttl=64, ident=0, dst_mac=ROUTER_MAC):
    proto = 6 if l4[0] == "tcp" else 17
    _, sport, dport, payload = l4
    seg = tcp(sport, dport, payload) if proto == 6 else udp(sport, dport, payload)
    return (ethernet(dst_mac, HOST_MAC, 0x0800)
            + ipv4(src, dst, proto, len(seg), ttl=ttl, ident=ident) + seg)


def packet_kinds(i):
    """The packet kinds, as (name, bytes); i varies identification/payload."""
    pl = bytes([i & 0xFF]) * 8 + b"p4dp"
    v6src = bytes.fromhex("20010db8000000000000000000000001")
    v6dst = bytes.fromhex("20010db8000000000000000000000002")
    full = v4_packet(ip(10, 0, 0, 1), ip(10, 1, 2, 7), ("udp", 1000, 53, pl), ident=i)
    return [
        ("l2_hit", ethernet(0xB001, HOST_MAC, 0x88B5) + pl),
        ("l2_miss", ethernet(0xB0FF, HOST_MAC, 0x88B5) + pl),
        ("route_16", v4_packet(ip(10, 0, 0, 1), ip(10, 1, 5, 5), ("udp", 1000, 53, pl), ident=i)),
        ("route_24", v4_packet(ip(10, 0, 0, 1), ip(10, 1, 2, 7), ("tcp", 40000, 80, pl), ident=i)),
        ("route_len16", v4_packet(ip(10, 0, 0, 1), ip(192, 168, 1, 1), ("udp", 1000, 4789, pl), ident=i)),
        ("route_miss", v4_packet(ip(10, 0, 0, 1), ip(172, 16, 0, 1), ("udp", 1000, 53, pl), ident=i)),
        ("acl_deny_net", v4_packet(ip(10, 9, 9, 5), ip(10, 1, 5, 5), ("udp", 1000, 53, pl), ident=i)),
        ("acl_permit_host", v4_packet(ip(10, 9, 9, 1), ip(10, 1, 5, 5), ("udp", 1000, 53, pl), ident=i)),
        ("acl_deny_ssh", v4_packet(ip(10, 0, 0, 1), ip(10, 1, 2, 7), ("tcp", 40000, 22, pl), ident=i)),
        ("ttl_expired", v4_packet(ip(10, 0, 0, 1), ip(10, 1, 5, 5), ("udp", 1000, 53, pl), ttl=1, ident=i)),
        ("ipv6_bridged", ethernet(0xB002, HOST_MAC, 0x86DD)
         + ipv6(v6src, v6dst, 17, 8 + len(pl)) + udp(1000, 53, pl)),
        ("truncated", full[:14 + 10]),
    ]


def write_pcap(path, frames):
    with open(path, "wb") as f:
        # global header: magic, v2.4, thiszone, sigfigs, snaplen, linktype 1
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for n, frame in enumerate(frames):
            ts_sec, ts_usec = 1700000000 + n // 1000, (n % 1000) * 1000
            f.write(struct.pack("<IIII", ts_sec, ts_usec, len(frame), len(frame)))
            f.write(frame)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=len(packet_kinds(0)),
                    help="number of packets to write (default: one of each kind)")
    ap.add_argument("--out", default="l2l3.pcap", help="output pcap file")
    ap.add_argument("--list", action="store_true", help="print the kind of each packet")
    args = ap.parse_args(argv)
    if args.count < 0:
        ap.error("--count must be >= 0")
    frames = []
    nkinds = len(packet_kinds(0))
    for n in range(args.count):
        name, frame = packet_kinds(n // nkinds)[n % nkinds]
        frames.append(frame)
        if args.list:
            print(f"{n}\t{name}\t{len(frame)} bytes")
    try:
        write_pcap(args.out, frames)
    except OSError as e:
        print(f"gen_pcap: cannot write {args.out}: {e}", file=sys.stderr)
        return 1
    print(f"wrote {len(frames)} packets to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
