//! Classic pcap files (little-endian, Ethernet link type), as DPDK's `net_pcap` reads and writes
//! them on this machine.

use std::path::Path;

/// Writes `frames` to `path` (microsecond timestamps: frame `i` at 1 s + `i` µs).
pub fn write(path: &Path, frames: &[Vec<u8>]) {
    let mut b = Vec::new();
    b.extend(0xa1b2_c3d4u32.to_le_bytes());
    b.extend(2u16.to_le_bytes());
    b.extend(4u16.to_le_bytes());
    // thiszone, sigfigs, snaplen, link type (1: Ethernet)
    for v in [0u32, 0, 65535, 1] {
        b.extend(v.to_le_bytes());
    }
    for (i, f) in frames.iter().enumerate() {
        for v in [1u32, i as u32, f.len() as u32, f.len() as u32] {
            b.extend(v.to_le_bytes());
        }
        b.extend(f);
    }
    std::fs::write(path, b).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}

/// The frames of the pcap file at `path` (micro- or nanosecond timestamps). Panics on a file
/// that is not a little-endian classic pcap or whose last record is cut short.
pub fn read(path: &Path) -> Vec<Vec<u8>> {
    let (frames, cut) = records(path);
    if let Some(o) = cut {
        panic!("{}: record at {o} cut short", path.display());
    }
    frames
}

/// The whole records of the pcap file at `path`, and the offset of a last record cut short.
fn records(path: &Path) -> (Vec<Vec<u8>>, Option<usize>) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    assert!(
        b.len() >= 24 && (u32_at(0) == 0xa1b2_c3d4 || u32_at(0) == 0xa1b2_3c4d),
        "not a little-endian pcap: {} ({} bytes: {:02x?})",
        path.display(),
        b.len(),
        &b[..b.len().min(8)]
    );
    let mut out = Vec::new();
    let mut o = 24;
    while o < b.len() {
        if o + 16 > b.len() || o + 16 + u32_at(o + 8) as usize > b.len() {
            return (out, Some(o));
        }
        let n = u32_at(o + 8) as usize;
        out.push(b[o + 16..o + 16 + n].to_vec());
        o += 16 + n;
    }
    (out, None)
}

/// The frames a pcap port has written to `path` so far, while it may still be writing: none while
/// the file is shorter than its 24-byte header (before the first burst the file may not exist or
/// hold its header yet), and not a last record cut short. DPDK's `net_pcap` flushes after each
/// burst, but libpcap writes through a stdio buffer that may reach the file in the middle of a
/// record while a burst is being written.
pub fn written(path: &Path) -> Vec<Vec<u8>> {
    if std::fs::metadata(path).is_ok_and(|m| m.len() >= 24) {
        records(path).0
    } else {
        vec![]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let d = crate::scratch_dir("pcap-round-trip");
        let frames = vec![vec![1u8, 2, 3], vec![], vec![0xff; 70]];
        let p = d.join("x.pcap");
        super::write(&p, &frames);
        assert_eq!(super::read(&p), frames);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn written_holds_whole_records_only() {
        let d = crate::scratch_dir("pcap-written");
        let p = d.join("out.pcap");
        assert!(super::written(&p).is_empty(), "no file yet");
        std::fs::write(&p, [0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0]).expect("write");
        assert!(super::written(&p).is_empty(), "a header cut short");
        let frames = vec![vec![7u8; 60], vec![8u8; 64]];
        super::write(&p, &frames);
        assert_eq!(super::written(&p), frames);
        let whole = std::fs::read(&p).expect("read");
        for cut in [whole.len() - 1, whole.len() - 64, whole.len() - 70, whole.len() - 80] {
            std::fs::write(&p, &whole[..cut]).expect("write");
            assert_eq!(super::written(&p), frames[..1], "cut at {cut}");
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
