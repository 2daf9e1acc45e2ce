//! Checks on the files of pcap ports, made before any of them is opened: no output may be an
//! input or another output (net_pcap truncates its output files when it opens them), and every
//! input must be an Ethernet capture whose records can be read (what can be read is counted, to
//! tell afterwards whether a port received all of it).

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use thiserror::Error;

/// libpcap refuses records that claim more captured bytes than this (its MAXIMUM_SNAPLEN).
const PCAP_MAX_RECORD: u32 = 262_144;
/// LINKTYPE_ETHERNET, the only link type p4dp's ports carry.
const LINKTYPE_ETHERNET: u32 = 1;

#[derive(Debug, Error)]
pub enum PortFileError {
    #[error("{spec}: the output {path} is also the input of port {input_port}: refusing to overwrite an input")]
    OutputIsInput {
        spec: String,
        path: String,
        input_port: u32,
    },
    #[error("{spec}: the output {path} is also the output of port {other_port}: two ports cannot write one file")]
    OutputTwice {
        spec: String,
        path: String,
        other_port: u32,
    },
    #[error("{spec}: cannot read the input {path}: {source}")]
    Read {
        spec: String,
        path: String,
        source: std::io::Error,
    },
    #[error("{spec}: {path} is not a pcap file ({why})")]
    NotPcap { spec: String, path: String, why: String },
    #[error("{spec}: {path} has link type {linktype}{name}, not Ethernet (1): p4dp ports carry Ethernet frames only")]
    NotEthernet {
        spec: String,
        path: String,
        linktype: u32,
        name: &'static str,
    },
}

/// A pcap file a port reads or writes, as the user named it.
pub struct PortFile {
    /// The option as given (for messages): `--port 0=in.pcap:out.pcap`.
    pub spec: String,
    pub port: u32,
    pub path: String,
    pub output: bool,
}

/// What identifies a file: device and inode once it exists, else its absolute, normalized path
/// (an output to be created).
#[derive(PartialEq, Eq, Hash, Clone, Debug)]
enum FileKey {
    Inode(u64, u64),
    Path(PathBuf),
}

fn file_key(path: &str) -> Option<FileKey> {
    let p = Path::new(path);
    match std::fs::metadata(p) {
        // two writers on a device or pipe (/dev/null) are not a corrupted file
        Ok(m) if !m.is_file() => None,
        Ok(m) => Some(FileKey::Inode(m.dev(), m.ino())),
        Err(_) => {
            let name = p.file_name()?;
            let parent = match p.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let dir = std::fs::canonicalize(&parent).unwrap_or(parent);
            Some(FileKey::Path(dir.join(name)))
        }
    }
}

/// Refuses outputs that are an input or another port's output.
pub fn check_overlaps(files: &[PortFile]) -> Result<(), PortFileError> {
    let mut inputs: HashMap<FileKey, u32> = HashMap::new();
    for f in files.iter().filter(|f| !f.output) {
        if let Some(k) = file_key(&f.path) {
            inputs.entry(k).or_insert(f.port);
        }
    }
    let mut outputs: HashMap<FileKey, u32> = HashMap::new();
    for f in files.iter().filter(|f| f.output) {
        let Some(k) = file_key(&f.path) else { continue };
        if let Some(&p) = inputs.get(&k) {
            return Err(PortFileError::OutputIsInput {
                spec: f.spec.clone(),
                path: f.path.clone(),
                input_port: p,
            });
        }
        if let Some(&p) = outputs.get(&k) {
            return Err(PortFileError::OutputTwice {
                spec: f.spec.clone(),
                path: f.path.clone(),
                other_port: p,
            });
        }
        outputs.insert(k, f.port);
    }
    Ok(())
}

/// What reading an input capture will give.
#[derive(Debug, PartialEq, Eq)]
pub struct Capture {
    /// Records that can be read in full; `None` for pcapng (not counted: its port's input ends
    /// when it has been idle).
    pub packets: Option<u64>,
    /// Why reading stops before the end of the file, if it does.
    pub cut: Option<String>,
}

fn linktype_name(t: u32) -> &'static str {
    match t {
        0 => " (NULL, BSD loopback)",
        101 => " (RAW, IP without a link header)",
        105 => " (IEEE 802.11)",
        113 => " (Linux cooked capture)",
        228 => " (IPv4)",
        229 => " (IPv6)",
        276 => " (Linux cooked capture v2)",
        _ => "",
    }
}

/// Reads an input capture's header and walks its records (classic pcap: each record's 16-byte
/// header is read, its data skipped) or finds its first interface's link type (pcapng).
pub fn check_input(spec: &str, path: &str) -> Result<Capture, PortFileError> {
    let read_err = |source| PortFileError::Read {
        spec: spec.into(),
        path: path.into(),
        source,
    };
    let not_pcap = |why: String| PortFileError::NotPcap {
        spec: spec.into(),
        path: path.into(),
        why,
    };
    let not_ethernet = |linktype: u32| PortFileError::NotEthernet {
        spec: spec.into(),
        path: path.into(),
        linktype,
        name: linktype_name(linktype),
    };
    // a FIFO or device would block the check (and the run would never know its input's end)
    let meta = std::fs::metadata(path).map_err(read_err)?;
    if !meta.is_file() {
        return Err(not_pcap("not a regular file".into()));
    }
    let f = File::open(path).map_err(read_err)?;
    let size = f.metadata().map_err(read_err)?.len();
    let mut r = BufReader::new(f);
    let mut head = [0u8; 24];
    if size < 24 {
        return Err(not_pcap(format!("{size} bytes, shorter than a pcap file header")));
    }
    r.read_exact(&mut head).map_err(read_err)?;
    let big = match u32::from_le_bytes([head[0], head[1], head[2], head[3]]) {
        0xa1b2_c3d4 | 0xa1b2_3c4d => false,
        0xd4c3_b2a1 | 0x4d3c_b2a1 => true,
        0x0a0d_0d0a => {
            let mut first = vec![0u8; size.min(1 << 16) as usize];
            r.seek(SeekFrom::Start(0)).map_err(read_err)?;
            r.read_exact(&mut first).map_err(read_err)?;
            return match check_pcapng(&first).map_err(not_pcap)? {
                Some(lt) => Err(not_ethernet(lt)),
                None => Ok(Capture {
                    packets: None,
                    cut: None,
                }),
            };
        }
        m => return Err(not_pcap(format!("magic number 0x{m:08x}"))),
    };
    let word = |b: &[u8], at: usize| {
        let w = [b[at], b[at + 1], b[at + 2], b[at + 3]];
        if big {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    // the link type is the low 16 bits of the last header word (the upper bits carry FCS flags)
    let linktype = word(&head, 20) & 0xffff;
    if linktype != LINKTYPE_ETHERNET {
        return Err(not_ethernet(linktype));
    }
    let mut at = 24u64;
    let mut n = 0u64;
    let mut cut = None;
    let mut rec = [0u8; 16];
    while at < size {
        if size - at < 16 {
            cut = Some(format!(
                "record {} (at byte {at}) is cut short: {} of its 16 header bytes",
                n + 1,
                size - at
            ));
            break;
        }
        r.read_exact(&mut rec).map_err(read_err)?;
        let incl = word(&rec, 8);
        if incl > PCAP_MAX_RECORD {
            cut = Some(format!(
                "record {} (at byte {at}) claims {incl} captured bytes, more than the {PCAP_MAX_RECORD} a pcap record may hold",
                n + 1
            ));
            break;
        }
        let left = size - at - 16;
        if u64::from(incl) > left {
            cut = Some(format!(
                "record {} (at byte {at}) is cut short: {left} of its {incl} bytes",
                n + 1
            ));
            break;
        }
        r.seek_relative(i64::from(incl)).map_err(read_err)?;
        at += 16 + u64::from(incl);
        n += 1;
    }
    Ok(Capture { packets: Some(n), cut })
}

/// The link type of a pcapng file's first interface description block, if it is not Ethernet.
fn check_pcapng(data: &[u8]) -> Result<Option<u32>, String> {
    // section header block: type, length, byte-order magic 0x1a2b3c4d (in the file's order)
    let big = match data.get(8..12) {
        Some([0x1a, 0x2b, 0x3c, 0x4d]) => true,
        Some([0x4d, 0x3c, 0x2b, 0x1a]) => false,
        _ => return Err("a pcapng section header without its byte-order magic".into()),
    };
    let word = |at: usize| -> Option<u32> {
        let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    };
    let mut at = 0usize;
    while let (Some(ty), Some(len)) = (word(at), word(at + 4)) {
        if len < 12 || len % 4 != 0 {
            return Err(format!("a pcapng block of length {len} at byte {at}"));
        }
        if ty == 1 {
            // interface description block: link type (16 bits), reserved (16 bits)
            let b: [u8; 2] = data
                .get(at + 8..at + 10)
                .and_then(|s| s.try_into().ok())
                .ok_or("a cut-short pcapng interface block")?;
            let lt = u32::from(if big {
                u16::from_be_bytes(b)
            } else {
                u16::from_le_bytes(b)
            });
            return Ok((lt != LINKTYPE_ETHERNET).then_some(lt));
        }
        at = at.saturating_add(len as usize);
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        // one per test (they run in parallel), removed by the test when it passes
        let t = std::thread::current().name().unwrap_or("t").replace("::", "-");
        let d = std::env::temp_dir().join(format!("p4dp-portfiles-{}-{t}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A classic little-endian pcap with the given link type and records of the given lengths.
    fn pcap(linktype: u32, records: &[u32]) -> Vec<u8> {
        let mut v = vec![
            0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0,
        ];
        v.extend(linktype.to_le_bytes());
        for &n in records {
            v.extend([0u8; 8]);
            v.extend(n.to_le_bytes());
            v.extend(n.to_le_bytes());
            v.extend(std::iter::repeat(0xab).take(n as usize));
        }
        v
    }

    fn check(name: &str, data: &[u8]) -> Result<Capture, PortFileError> {
        let p = dir().join(name);
        std::fs::write(&p, data).unwrap();
        check_input("--port 0", p.to_str().unwrap())
    }

    #[test]
    fn counts_only_records_that_can_be_read() {
        let full = pcap(1, &[60, 64, 70]);
        assert_eq!(
            check("full.pcap", &full).unwrap(),
            Capture {
                packets: Some(3),
                cut: None
            }
        );
        let cut = check("cut.pcap", &full[..full.len() - 10]).unwrap();
        assert_eq!(cut.packets, Some(2));
        assert!(cut
            .cut
            .unwrap()
            .contains("record 3 (at byte 180) is cut short: 60 of its 70 bytes"));
        let mut huge = pcap(1, &[60, 64]);
        let at = 24 + 16 + 60 + 8;
        huge[at..at + 4].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
        let h = check("huge.pcap", &huge).unwrap();
        assert_eq!(h.packets, Some(1));
        assert!(h.cut.unwrap().contains("claims 2147483647 captured bytes"));
        let head = check("head.pcap", &full[..24 + 7]).unwrap();
        assert_eq!(head.packets, Some(0));
        assert!(head.cut.unwrap().contains("7 of its 16 header bytes"));
        let _ = std::fs::remove_dir_all(dir());
    }

    #[test]
    fn refuses_other_link_types_and_non_pcap_files() {
        let e = check("raw.pcap", &pcap(101, &[20])).unwrap_err().to_string();
        assert!(
            e.contains("link type 101 (RAW, IP without a link header), not Ethernet (1)"),
            "{e}"
        );
        let e = check("short.pcap", b"garbage").unwrap_err().to_string();
        assert!(e.contains("is not a pcap file (7 bytes"), "{e}");
        let e = check("magic.pcap", &[0u8; 40]).unwrap_err().to_string();
        assert!(e.contains("magic number 0x00000000"), "{e}");
        let e = check_input("--port 0", dir().to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let _ = std::fs::remove_dir_all(dir());
    }

    #[test]
    fn outputs_may_not_be_inputs_or_shared() {
        let d = dir();
        let input = d.join("in.pcap");
        std::fs::write(&input, pcap(1, &[60])).unwrap();
        let link = d.join("link.pcap");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&input, &link).unwrap();
        let f = |port, path: &Path, output| PortFile {
            spec: format!("port {port}"),
            port,
            path: path.display().to_string(),
            output,
        };
        let new_out = d.join("new.pcap");
        let _ = std::fs::remove_file(&new_out);
        assert!(check_overlaps(&[f(0, &input, false), f(0, &new_out, true)]).is_ok());
        let e = check_overlaps(&[f(0, &input, false), f(0, &input, true)]).unwrap_err();
        assert!(matches!(e, PortFileError::OutputIsInput { input_port: 0, .. }));
        let e = check_overlaps(&[f(0, &input, false), f(2, &link, true)]).unwrap_err();
        assert!(matches!(e, PortFileError::OutputIsInput { input_port: 0, .. }));
        // an output that does not exist yet, named two ways
        let other = d.join(".").join("new.pcap");
        let e = check_overlaps(&[f(1, &new_out, true), f(2, &other, true)]).unwrap_err();
        assert!(matches!(e, PortFileError::OutputTwice { other_port: 1, .. }));
        // two ports discarding their output into /dev/null is fine
        let null = Path::new("/dev/null");
        assert!(check_overlaps(&[f(1, null, true), f(2, null, true)]).is_ok());
        let _ = std::fs::remove_dir_all(d);
    }
}
