//! What the sweeps of `p4dp bench` run (docs/bench.md): generated P4 programs, entry sets for
//! each match kind and traffic that hits the installed entries.
//!
//! Every generated program is v1model: Ethernet, IPv4 (destination at bytes 30..34), then at byte
//! 34 either the transport ports (`sport`, `dport`) or a 16-byte key header for the key
//! segmentation experiment. Its tables are applied one after the other; every action forwards
//! to port 0, and so does every table's default action, so a miss never loses a packet (misses
//! are counted and reported).
//!
//! Traffic is a trace of records, each the packet bytes 23..50 ([`REC_OFFSET`], [`REC_SIZE`]):
//! the IPv4 protocol, the template's IPv4 checksum, source and destination, then 16 bytes from
//! byte 34 on (the ports, or the segmentation key).

use std::collections::HashSet;
use std::fmt::Write as _;

use p4dp_rt::MatchField;

/// Where a trace record goes in the packet, and its size (bytes 23..50).
pub const REC_OFFSET: u32 = 23;
pub const REC_SIZE: u32 = 27;

/// SplitMix64: small, seeded, good enough to draw keys.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5eed_ba5e_0ddc_0ffe)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in 0..n (n >= 1; the bias of the multiply-shift is below 2^-32 for n < 2^32).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Index into `weights` drawn with probability proportional to its weight.
    fn pick(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = self.below(u64::from(total)) as u32;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }
}

/// The match kinds the table-kinds sweep measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableKind {
    Exact,
    Lpm,
    Ternary,
    Range,
    Optional,
}

impl TableKind {
    pub const ALL: [TableKind; 5] = [
        TableKind::Exact,
        TableKind::Lpm,
        TableKind::Ternary,
        TableKind::Range,
        TableKind::Optional,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TableKind::Exact => "exact",
            TableKind::Lpm => "lpm",
            TableKind::Ternary => "ternary",
            TableKind::Range => "range",
            TableKind::Optional => "optional",
        }
    }

    pub fn parse(s: &str) -> Option<TableKind> {
        TableKind::ALL.into_iter().find(|k| k.name() == s)
    }

    /// The key of its table: (P4 expression, width, P4 match kind) per field.
    fn key(self) -> Vec<(&'static str, u32, &'static str)> {
        let five = |a: &'static str, p: &'static str| {
            vec![
                ("hdr.ipv4.srcAddr", 32, a),
                ("hdr.ipv4.dstAddr", 32, a),
                ("hdr.ipv4.protocol", 8, a),
                ("hdr.l4.sport", 16, p),
                ("hdr.l4.dport", 16, p),
            ]
        };
        match self {
            TableKind::Exact => vec![("hdr.ipv4.dstAddr", 32, "exact")],
            TableKind::Lpm => vec![("hdr.ipv4.dstAddr", 32, "lpm")],
            TableKind::Ternary => five("ternary", "ternary"),
            TableKind::Range => five("ternary", "range"),
            TableKind::Optional => five("optional", "optional"),
        }
    }

    /// Entries need a priority (ternary, range and optional tables).
    pub fn prioritized(self) -> bool {
        !matches!(self, TableKind::Exact | TableKind::Lpm)
    }
}

/// What follows IPv4 in a generated program's parser (at byte 34).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum L4 {
    /// `hdr.l4`: source and destination port.
    Ports,
    /// `hdr.seg.k`: one 128-bit key field.
    Seg1x16,
    /// `hdr.seg.k0` .. `k3`: four 32-bit key fields.
    Seg4x4,
}

/// One table of a generated program.
#[derive(Clone, Debug)]
pub struct TableSpec {
    /// (P4 expression, width, P4 match kind) per key field.
    pub key: Vec<(String, u32, String)>,
    pub size: u64,
}

/// Extern calls the action `fwd` makes besides forwarding (`p4dp calibrate`'s primitives).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Externs {
    /// `c.count(port)` on a v1model `counter` of 1,024 cells.
    pub counter: bool,
    /// `r.read(v, port); r.write(port, v + 1)` on a v1model `register<bit<32>>` of 1,024 cells.
    pub register: bool,
}

/// A generated program: tables applied in order, each with the action `fwd`.
#[derive(Clone, Debug)]
pub struct ProgSpec {
    pub l4: L4,
    pub tables: Vec<TableSpec>,
    /// Bytes of action data besides the port (a multiple of 8): `fwd` takes that many extra
    /// bytes as 64-bit parameters and folds each into the Ethernet source address.
    pub data_bytes: u32,
    pub externs: Externs,
    /// 4-byte headers parsed (and deparsed) after the L4 header (`p4dp calibrate`'s parse cost).
    pub extra_headers: u32,
}

impl ProgSpec {
    /// One table of `kind` with room for `size` entries.
    pub fn kind(kind: TableKind, size: u64) -> ProgSpec {
        ProgSpec {
            l4: L4::Ports,
            tables: vec![TableSpec {
                key: kind
                    .key()
                    .into_iter()
                    .map(|(e, w, k)| (e.to_string(), w, k.to_string()))
                    .collect(),
                size,
            }],
            data_bytes: 0,
            externs: Externs::default(),
            extra_headers: 0,
        }
    }

    /// `n` exact tables on the IPv4 destination.
    pub fn exact_chain(n: u32, size: u64, data_bytes: u32) -> ProgSpec {
        let t = TableSpec {
            key: vec![("hdr.ipv4.dstAddr".into(), 32, "exact".into())],
            size,
        };
        ProgSpec {
            l4: L4::Ports,
            tables: vec![t; n as usize],
            data_bytes,
            externs: Externs::default(),
            extra_headers: 0,
        }
    }

    /// One exact table on the 16-byte key, as one field or four.
    pub fn segmented(l4: L4, size: u64) -> ProgSpec {
        let key = match l4 {
            L4::Seg1x16 => vec![("hdr.seg.k".to_string(), 128, "exact".to_string())],
            _ => (0..4)
                .map(|i| (format!("hdr.seg.k{i}"), 32, "exact".to_string()))
                .collect(),
        };
        ProgSpec {
            l4,
            tables: vec![TableSpec { key, size }],
            data_bytes: 0,
            externs: Externs::default(),
            extra_headers: 0,
        }
    }

    /// The P4 source.
    pub fn source(&self) -> String {
        let mut s = String::new();
        s.push_str(
            "// generated by p4dp bench (docs/bench.md)\n#include <core.p4>\n#include <v1model.p4>\n\n\
             header ethernet_t { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }\n\
             header ipv4_t { bit<4> version; bit<4> ihl; bit<8> diffserv; bit<16> totalLen; bit<16> identification;\n\
             \x20   bit<3> flags; bit<13> fragOffset; bit<8> ttl; bit<8> protocol; bit<16> hdrChecksum;\n\
             \x20   bit<32> srcAddr; bit<32> dstAddr; }\n",
        );
        let (l4_hdr, l4_name) = match self.l4 {
            L4::Ports => ("header l4_t { bit<16> sport; bit<16> dport; }\n", "l4_t l4;"),
            L4::Seg1x16 => ("header seg_t { bit<128> k; }\n", "seg_t seg;"),
            L4::Seg4x4 => (
                "header seg_t { bit<32> k0; bit<32> k1; bit<32> k2; bit<32> k3; }\n",
                "seg_t seg;",
            ),
        };
        let l4_field = if self.l4 == L4::Ports { "l4" } else { "seg" };
        s.push_str(l4_hdr);
        let mut extra_decl = String::new();
        let mut extra_parse = String::new();
        let mut extra_emit = String::new();
        if self.extra_headers > 0 {
            s.push_str("header x_t { bit<32> v; }\n");
        }
        for i in 0..self.extra_headers {
            let _ = write!(extra_decl, " x_t x{i};");
            let _ = write!(extra_parse, " pkt.extract(hdr.x{i});");
            let _ = write!(extra_emit, " pkt.emit(hdr.x{i});");
        }
        let _ = writeln!(
            s,
            "struct headers_t {{ ethernet_t ethernet; ipv4_t ipv4; {l4_name}{extra_decl} }}\nstruct meta_t {{ }}\n"
        );
        let _ = writeln!(
            s,
            "parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{\n\
             \x20   state start {{ pkt.extract(hdr.ethernet); transition select(hdr.ethernet.etherType) {{ 0x0800: ipv4; default: accept; }} }}\n\
             \x20   state ipv4 {{ pkt.extract(hdr.ipv4); pkt.extract(hdr.{l4_field});{extra_parse} transition accept; }}\n}}\n\
             control V(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}\n\
             control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{"
        );
        let extra = self.data_bytes / 8;
        let mut params = String::from("bit<9> port");
        let mut body = String::from("sm.egress_spec = port;");
        for i in 0..extra {
            let _ = write!(params, ", bit<64> d{i}");
            let _ = write!(body, " hdr.ethernet.srcAddr = hdr.ethernet.srcAddr ^ d{i}[47:0];");
        }
        if self.externs.counter {
            s.push_str("    counter(1024, CounterType.packets) c;\n");
            body.push_str(" c.count((bit<32>)port);");
        }
        if self.externs.register {
            s.push_str("    register<bit<32>>(1024) r;\n");
            body.push_str(" bit<32> v; r.read(v, (bit<32>)port); r.write((bit<32>)port, v + 1);");
        }
        let _ = writeln!(s, "    action fwd({params}) {{ {body} }}");
        let zeros = ", 0".repeat(extra as usize);
        for (i, t) in self.tables.iter().enumerate() {
            let keys: Vec<String> = t.key.iter().map(|(e, _, k)| format!("{e} : {k};")).collect();
            let _ = writeln!(
                s,
                "    table t{i} {{ key = {{ {} }} actions = {{ fwd; }} default_action = fwd(0{zeros}); size = {}; }}",
                keys.join(" "),
                t.size.max(1)
            );
        }
        s.push_str("    apply {\n        if (hdr.ipv4.isValid()) {\n");
        for i in 0..self.tables.len() {
            let _ = writeln!(s, "            t{i}.apply();");
        }
        let _ = writeln!(
            s,
            "        }} else {{ sm.egress_spec = 0; }}\n    }}\n}}\n\
             control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}\n\
             control C(inout headers_t hdr, inout meta_t meta) {{ apply {{ }} }}\n\
             control D(packet_out pkt, in headers_t hdr) {{ apply {{ pkt.emit(hdr.ethernet); pkt.emit(hdr.ipv4); pkt.emit(hdr.{l4_field});{extra_emit} }} }}\n\
             V1Switch(P(), V(), I(), E(), C(), D()) main;"
        );
        s
    }
}

/// How one field of a rule matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldMatch {
    /// value, prefix length (0 = any value)
    Prefix(u64, u32),
    /// low, high (inclusive)
    Range(u64, u64),
}

/// A rule: one match per key field, in the key's order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rule(pub Vec<FieldMatch>);

fn prefix_mask(width: u32, len: u32) -> u64 {
    if len == 0 {
        0
    } else {
        let all = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
        let low = (1u64 << (width - len)) - 1; // width - len < 64: len >= 1
        all & !low
    }
}

fn be(v: u64, width: u32) -> Vec<u8> {
    let n = width.div_ceil(8) as usize;
    v.to_be_bytes()[8 - n..].to_vec()
}

impl Rule {
    /// A value of each field that the rule matches.
    pub fn sample(&self, widths: &[u32], rng: &mut Rng) -> Vec<u64> {
        self.0
            .iter()
            .zip(widths)
            .map(|(m, &w)| match *m {
                FieldMatch::Prefix(v, l) => v | (rng.next_u64() & !prefix_mask(w, l) & prefix_mask(w, w)),
                FieldMatch::Range(lo, hi) => lo + rng.below(hi - lo + 1),
            })
            .collect()
    }

    /// The rule as control-plane match fields of a `kind` table (a prefix on a range field is
    /// given as the range it covers).
    pub fn matches(&self, kind: TableKind) -> Vec<MatchField> {
        self.0
            .iter()
            .zip(kind.key())
            .map(|(m, (_, w, fk))| match (*m, kind, fk) {
                (FieldMatch::Prefix(v, _), TableKind::Exact, _) => MatchField::Exact(be(v, w)),
                (FieldMatch::Prefix(v, l), TableKind::Lpm, _) => MatchField::Lpm(be(v, w), l),
                (FieldMatch::Prefix(_, 0), TableKind::Optional, _) => MatchField::Optional(None),
                (FieldMatch::Prefix(v, _), TableKind::Optional, _) => MatchField::Optional(Some(be(v, w))),
                (FieldMatch::Prefix(v, l), _, "range") => {
                    MatchField::Range(be(v, w), be(v | (prefix_mask(w, w) & !prefix_mask(w, l)), w))
                }
                (FieldMatch::Prefix(v, l), _, _) => MatchField::Ternary(be(v, w), be(prefix_mask(w, l), w)),
                (FieldMatch::Range(lo, hi), _, _) => MatchField::Range(be(lo, w), be(hi, w)),
            })
            .collect()
    }
}

/// Widths of the key fields of a `kind` table.
pub fn widths(kind: TableKind) -> Vec<u32> {
    kind.key().iter().map(|k| k.1).collect()
}

/// Well-known destination ports of the ACL generator.
const PORTS: [u64; 12] = [22, 25, 53, 80, 123, 161, 179, 443, 993, 3306, 5432, 8080];

/// One random ACL field of `width` bits that is a wildcard with weight `any`, else an address
/// prefix of one of `lens` (with their weights), or for `exact_only` kinds a full value.
fn acl_prefix(rng: &mut Rng, width: u32, lens: &[(u32, u32)], exact_only: bool) -> FieldMatch {
    let w: Vec<u32> = lens.iter().map(|l| l.1).collect();
    let mut len = lens[rng.pick(&w)].0;
    if exact_only && len != 0 {
        len = width;
    }
    let v = rng.next_u64() & prefix_mask(width, len);
    FieldMatch::Prefix(v, len)
}

/// A port match: wildcard, a well-known port, or a range (an arbitrary range for `range`
/// tables, an aligned power-of-two block as a prefix for ternary, a single port for optional).
fn acl_port(rng: &mut Rng, kind: TableKind, weights: [u32; 3]) -> FieldMatch {
    match rng.pick(&weights) {
        0 => FieldMatch::Prefix(0, 0),
        1 => FieldMatch::Prefix(PORTS[rng.below(PORTS.len() as u64) as usize], 16),
        _ => match kind {
            TableKind::Range => {
                if rng.below(2) == 0 {
                    FieldMatch::Range(1024, 65535)
                } else {
                    let lo = rng.below(65000);
                    FieldMatch::Range(lo, lo + 1 + rng.below(500))
                }
            }
            TableKind::Optional => FieldMatch::Prefix(1024 + rng.below(64512), 16),
            _ => {
                let len = 6 + rng.below(9) as u32; // blocks of 2^10 .. 2^2 ports
                FieldMatch::Prefix(rng.below(65536) & prefix_mask(16, len), len)
            }
        },
    }
}

/// `n` distinct rules for a `kind` table (seeded). exact: random destinations; lpm: random
/// prefixes of length 16..32 (uniform); ternary / range / optional: ACL-like 5-tuple rules
/// (docs/bench.md, "Entry sets").
pub fn rules(kind: TableKind, n: u64, seed: u64) -> Vec<Rule> {
    let mut rng = Rng::new(seed);
    let mut seen: HashSet<Rule> = HashSet::with_capacity(n as usize);
    let mut out = Vec::with_capacity(n as usize);
    let mut tries = 0u64;
    while (out.len() as u64) < n {
        tries += 1;
        if tries > 64 * n + 1024 {
            break; // the space is exhausted (tiny widths); the caller reports the count
        }
        let r = match kind {
            TableKind::Exact => Rule(vec![FieldMatch::Prefix(rng.next_u64() & 0xffff_ffff, 32)]),
            TableKind::Lpm => {
                let len = 16 + rng.below(17) as u32;
                Rule(vec![FieldMatch::Prefix(rng.next_u64() & prefix_mask(32, len), len)])
            }
            _ => {
                let exact_only = kind == TableKind::Optional;
                let src = acl_prefix(
                    &mut rng,
                    32,
                    &[(0, 40), (8, 5), (16, 15), (24, 25), (32, 15)],
                    exact_only,
                );
                let dst = acl_prefix(&mut rng, 32, &[(0, 10), (16, 15), (24, 40), (32, 35)], exact_only);
                let proto = match rng.pick(&[30, 50, 20]) {
                    0 => FieldMatch::Prefix(0, 0),
                    1 => FieldMatch::Prefix(6, 8),
                    _ => FieldMatch::Prefix(17, 8),
                };
                let sport = acl_port(&mut rng, kind, [80, 5, 15]);
                let dport = acl_port(&mut rng, kind, [20, 50, 30]);
                Rule(vec![src, dst, proto, sport, dport])
            }
        };
        if seen.insert(r.clone()) {
            out.push(r);
        }
    }
    out
}

/// A record (packet bytes 23..50) with these 5-tuple fields; `csum` is the template's IPv4
/// checksum (bytes 24..26), kept so the header reads as the template's.
pub fn record(csum: [u8; 2], src: u32, dst: u32, proto: u8, sport: u16, dport: u16) -> [u8; REC_SIZE as usize] {
    let mut r = [0u8; REC_SIZE as usize];
    r[0] = proto;
    r[1..3].copy_from_slice(&csum);
    r[3..7].copy_from_slice(&src.to_be_bytes());
    r[7..11].copy_from_slice(&dst.to_be_bytes());
    r[11..13].copy_from_slice(&sport.to_be_bytes());
    r[13..15].copy_from_slice(&dport.to_be_bytes());
    r
}

/// A record carrying key `v` of a `kind` table (a rule's sample, `Rule::sample`): the 5-tuple's
/// fields, or (exact and lpm) the destination, the other fields fixed.
pub fn key_record(kind: TableKind, v: &[u64], csum: [u8; 2]) -> [u8; REC_SIZE as usize] {
    if kind.prioritized() {
        record(csum, v[0] as u32, v[1] as u32, v[2] as u8, v[3] as u16, v[4] as u16)
    } else {
        record(csum, 0x0a01_0001, v[0] as u32, 17, 1234, 5678)
    }
}

/// A record carrying the 16-byte segmentation key `k` at bytes 34..50.
pub fn seg_record(csum: [u8; 2], k: u128) -> [u8; REC_SIZE as usize] {
    let mut r = record(csum, 0x0a01_0001, 0x0a00_0001, 17, 0, 0);
    r[11..27].copy_from_slice(&k.to_be_bytes());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_match_their_rule() {
        for kind in TableKind::ALL {
            let w = widths(kind);
            let rs = rules(kind, 500, 7);
            assert_eq!(rs.len(), 500, "{kind:?}");
            let mut rng = Rng::new(3);
            for r in &rs {
                let v = r.sample(&w, &mut rng);
                for ((m, &x), &wd) in r.0.iter().zip(&v).zip(&w) {
                    match *m {
                        FieldMatch::Prefix(p, l) => assert_eq!(x & prefix_mask(wd, l), p, "{kind:?} {r:?}"),
                        FieldMatch::Range(lo, hi) => assert!(lo <= x && x <= hi),
                    }
                    assert!(wd == 64 || x >> wd == 0);
                }
            }
        }
    }

    #[test]
    fn acl_rules_mix_wildcards_and_ranges() {
        let rs = rules(TableKind::Range, 2000, 1);
        let any = rs.iter().filter(|r| r.0[0] == FieldMatch::Prefix(0, 0)).count();
        let ranges = rs.iter().filter(|r| matches!(r.0[4], FieldMatch::Range(..))).count();
        assert!(any > 400 && any < 1200, "{any} wildcard sources");
        assert!(ranges > 300, "{ranges} port ranges");
    }

    #[test]
    fn program_text_has_one_apply_per_table() {
        let s = ProgSpec::exact_chain(3, 16, 16).source();
        assert_eq!(s.matches(".apply();").count(), 3);
        assert!(s.contains("bit<64> d1"));
        assert!(ProgSpec::segmented(L4::Seg1x16, 4).source().contains("bit<128> k;"));
    }
}
