//! `--traffic uniform|zipf:S|FILE.pcap`: which installed entries the sweeps' packets hit, or a
//! capture replayed as the traffic source.

use std::path::{Path, PathBuf};

use p4dp_rt::bench_trace::Trace;
use thiserror::Error;

use super::gen::Rng;

/// The traffic of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub enum Traffic {
    /// Every installed entry equally often.
    Uniform,
    /// The entry of popularity rank k (1-based) with probability proportional to 1/k^s.
    Zipf(f64),
    /// The packets of a pcap file, in order, over and over.
    Pcap(PathBuf),
}

#[derive(Debug, Error)]
pub enum TrafficError {
    #[error("--traffic `{0}`: expected uniform, zipf:S (S > 0, e.g. zipf:0.99) or a .pcap file")]
    Spec(String),
    #[error("{path}: {msg}")]
    Pcap { path: String, msg: String },
}

impl Traffic {
    pub fn parse(s: &str) -> Result<Traffic, TrafficError> {
        if s == "uniform" {
            return Ok(Traffic::Uniform);
        }
        if let Some(x) = s.strip_prefix("zipf:") {
            return match x.parse::<f64>() {
                Ok(v) if v > 0.0 && v <= 10.0 => Ok(Traffic::Zipf(v)),
                _ => Err(TrafficError::Spec(s.into())),
            };
        }
        if s.ends_with(".pcap") || Path::new(s).is_file() {
            return Ok(Traffic::Pcap(PathBuf::from(s)));
        }
        Err(TrafficError::Spec(s.into()))
    }

    /// The name in reports.
    pub fn name(&self) -> String {
        match self {
            Traffic::Uniform => "uniform".into(),
            Traffic::Zipf(s) => format!("zipf:{s}"),
            Traffic::Pcap(p) => p.display().to_string(),
        }
    }
}

/// Draws entry indices 0..n according to the traffic's popularity (uniform or Zipf).
pub struct Popularity {
    /// Zipf: cumulative weights of ranks 1..=n, normalised to 1.
    cdf: Option<Vec<f64>>,
    /// Zipf: rank -> entry (a seeded permutation, so popular entries are spread over the table).
    perm: Vec<u32>,
    n: u64,
}

impl Popularity {
    pub fn new(t: &Traffic, n: u64, rng: &mut Rng) -> Popularity {
        let Traffic::Zipf(s) = t else {
            return Popularity {
                cdf: None,
                perm: Vec::new(),
                n,
            };
        };
        let mut cdf = Vec::with_capacity(n as usize);
        let mut acc = 0.0;
        for k in 1..=n {
            acc += (k as f64).powf(-s);
            cdf.push(acc);
        }
        for c in &mut cdf {
            *c /= acc;
        }
        let mut perm: Vec<u32> = (0..n as u32).collect();
        for i in (1..perm.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            perm.swap(i, j);
        }
        Popularity {
            cdf: Some(cdf),
            perm,
            n,
        }
    }

    /// One entry index.
    pub fn draw(&self, rng: &mut Rng) -> usize {
        match &self.cdf {
            None => rng.below(self.n) as usize,
            Some(cdf) => {
                let u = rng.unit();
                let rank = cdf.partition_point(|&c| c < u).min(cdf.len() - 1);
                self.perm[rank] as usize
            }
        }
    }
}

/// Longest packet the bench can carry; longer captured packets are cut to it.
pub const PCAP_SNAP: usize = p4dp_rt::bench::TEMPLATE_MAX;

/// The packets of a classic pcap file (Ethernet link type) as a whole-packet trace, and the
/// number of packets that were cut to [`PCAP_SNAP`] bytes. Packets shorter than 14 bytes are
/// skipped. At most `max` packets are read.
pub fn pcap_trace(path: &Path, max: usize) -> Result<(Trace, usize), TrafficError> {
    let err = |msg: String| TrafficError::Pcap {
        path: path.display().to_string(),
        msg,
    };
    let data = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    if data.len() < 24 {
        return Err(err("not a pcap file (shorter than its 24-byte header)".into()));
    }
    let magic = u32::from_le_bytes([data[0], data[1], data[2], data[3]]);
    let le = match magic {
        0xa1b2_c3d4 | 0xa1b2_3c4d => true,
        0xd4c3_b2a1 | 0x4d3c_b2a1 => false,
        0x0a0d_0d0a => {
            return Err(err(
                "pcapng is not supported: convert it to pcap (editcap -F pcap)".into()
            ))
        }
        _ => return Err(err(format!("not a pcap file (magic {magic:#010x})"))),
    };
    let u32_at = |o: usize| {
        let b = [data[o], data[o + 1], data[o + 2], data[o + 3]];
        if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        }
    };
    let link = u32_at(20) & 0x0fff_ffff;
    if link != 1 {
        return Err(err(format!(
            "link type {link}: only Ethernet (1) captures can be replayed"
        )));
    }
    let mut recs = Vec::new();
    let mut lens = Vec::new();
    let mut cut = 0;
    let mut o = 24;
    while o + 16 <= data.len() && lens.len() < max {
        let caplen = u32_at(o + 8) as usize;
        o += 16;
        if caplen > data.len() - o {
            return Err(err(format!(
                "packet {} is truncated (record of {caplen} bytes, {} left)",
                lens.len() + 1,
                data.len() - o
            )));
        }
        if caplen >= 14 {
            let n = caplen.min(PCAP_SNAP);
            cut += usize::from(n < caplen);
            let mut r = vec![0u8; PCAP_SNAP];
            r[..n].copy_from_slice(&data[o..o + n]);
            recs.extend_from_slice(&r);
            lens.push(n as u16);
        }
        o += caplen;
    }
    if lens.is_empty() {
        return Err(err("no Ethernet packet of at least 14 bytes".into()));
    }
    // Shrink the record size to the longest packet: less to copy per packet.
    let longest = *lens.iter().max().unwrap_or(&14) as usize;
    let records: Vec<u8> = recs
        .chunks(PCAP_SNAP)
        .flat_map(|c| c[..longest].iter().copied())
        .collect();
    Ok((
        Trace {
            records,
            rec_size: longest as u32,
            lens: Some(lens),
            offset: 0,
            record_after_ms: 0,
        },
        cut,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Write `packets` as a classic pcap file (microsecond timestamps, Ethernet).
    pub fn pcap_write(path: &Path, packets: &[Vec<u8>]) -> std::io::Result<()> {
        let mut b = Vec::new();
        b.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        b.extend_from_slice(&2u16.to_le_bytes());
        b.extend_from_slice(&4u16.to_le_bytes());
        for v in [0u32, 0, 65535, 1] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for (i, p) in packets.iter().enumerate() {
            for v in [i as u32, 0, p.len() as u32, p.len() as u32] {
                b.extend_from_slice(&v.to_le_bytes());
            }
            b.extend_from_slice(p);
        }
        std::fs::write(path, b)
    }

    #[test]
    fn zipf_prefers_the_first_ranks() {
        let mut rng = Rng::new(1);
        let p = Popularity::new(&Traffic::Zipf(1.0), 1000, &mut rng);
        let mut hits = vec![0u32; 1000];
        for _ in 0..100_000 {
            hits[p.draw(&mut rng)] += 1;
        }
        let top = p.perm[0] as usize;
        // rank 1 of Zipf(1) over 1000 ranks has probability 1/H(1000) ~ 0.134
        assert!(hits[top] > 12_000 && hits[top] < 15_000, "{}", hits[top]);
    }

    #[test]
    fn pcap_round_trip_and_bad_files() {
        let dir = std::env::temp_dir().join(format!("p4dp-traffic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("t.pcap");
        pcap_write(&f, &[vec![1u8; 60], vec![2u8; 10], vec![3u8; 100]]).unwrap();
        let (t, cut) = pcap_trace(&f, 100).unwrap();
        assert_eq!((t.len(), cut, t.rec_size), (2, 0, 100));
        assert_eq!(t.lens, Some(vec![60, 100]));
        std::fs::write(&f, b"junk junk junk junk junk junk").unwrap();
        assert!(pcap_trace(&f, 100).unwrap_err().to_string().contains("not a pcap file"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn specs() {
        assert_eq!(Traffic::parse("zipf:1.1").unwrap(), Traffic::Zipf(1.1));
        assert!(Traffic::parse("zipf:-1").is_err());
        assert!(Traffic::parse("poisson").is_err());
    }
}
