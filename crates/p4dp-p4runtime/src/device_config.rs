//! The device config p4dp takes in SetForwardingPipelineConfig (`p4dp build` writes it as
//! `NAME.device.bin`): the program's preprocessed P4 source and a small header, never native code.
//! The switch compiles the source itself (and caches the result by the source's hash), so a
//! client that may push a pipeline cannot make the switch run code it did not build.
//!
//! Format (all text, UTF-8): a header of `key value` lines, an empty line, then the source:
//! ```text
//! p4dp-device-config 1
//! name <program name: the stem used for generated names>
//! source-sha256 <64 hex digits of the source bytes>
//! source-bytes <decimal length of the source>
//!
//! <preprocessed P4 source>
//! ```

use sha2::{Digest, Sha256};

const MAGIC: &str = "p4dp-device-config 1";

/// A decoded device config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceConfig {
    /// Program name (file stem; `[A-Za-z0-9_-]`, 1..=64 characters).
    pub name: String,
    /// The preprocessed P4_16 source.
    pub source: String,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DeviceConfigError {
    #[error(
        "the device config is not a p4dp device config (it must start with `{MAGIC}`; build one with `p4dp build`)"
    )]
    NotDeviceConfig,
    #[error("the device config's header is malformed: {0}")]
    Header(String),
    #[error("the device config's source is {got} bytes, its header says {want}")]
    Length { got: usize, want: usize },
    #[error("the device config's source does not match its sha256")]
    Hash,
}

fn valid_name(n: &str) -> bool {
    !n.is_empty() && n.len() <= 64 && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Hex sha256 of `data`.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data).iter().map(|b| format!("{b:02x}")).collect()
}

impl DeviceConfig {
    /// Encodes the config. `name` must be a valid program name (invalid characters become `_`).
    pub fn encode(&self) -> Vec<u8> {
        let name: String = self
            .name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(64)
            .collect();
        let name = if name.is_empty() { "prog".to_string() } else { name };
        let mut out = format!(
            "{MAGIC}\nname {name}\nsource-sha256 {}\nsource-bytes {}\n\n",
            sha256_hex(self.source.as_bytes()),
            self.source.len()
        )
        .into_bytes();
        out.extend_from_slice(self.source.as_bytes());
        out
    }

    /// Decodes and checks a config (magic, header, length, hash). Never panics.
    pub fn decode(data: &[u8]) -> Result<DeviceConfig, DeviceConfigError> {
        let magic_nl = format!("{MAGIC}\n");
        if !data.starts_with(magic_nl.as_bytes()) {
            return Err(DeviceConfigError::NotDeviceConfig);
        }
        let rest = &data[magic_nl.len()..];
        let end = rest
            .windows(2)
            .position(|w| w == b"\n\n")
            .ok_or_else(|| DeviceConfigError::Header("no empty line after the header".into()))?;
        let header = std::str::from_utf8(&rest[..end]).map_err(|_| DeviceConfigError::Header("not UTF-8".into()))?;
        let body = &rest[end + 2..];
        let (mut name, mut hash, mut len) = (None, None, None);
        for line in header.lines() {
            let (k, v) = line
                .split_once(' ')
                .ok_or_else(|| DeviceConfigError::Header(format!("line `{line}` is not `key value`")))?;
            match k {
                "name" if valid_name(v) => name = Some(v.to_string()),
                "name" => return Err(DeviceConfigError::Header(format!("bad program name `{v}`"))),
                "source-sha256" => hash = Some(v.to_string()),
                "source-bytes" => {
                    len = Some(
                        v.parse::<usize>()
                            .map_err(|_| DeviceConfigError::Header(format!("bad source-bytes `{v}`")))?,
                    )
                }
                // unknown keys are ignored: later versions may add information
                _ => {}
            }
        }
        let name = name.ok_or_else(|| DeviceConfigError::Header("no `name`".into()))?;
        let hash = hash.ok_or_else(|| DeviceConfigError::Header("no `source-sha256`".into()))?;
        let len = len.ok_or_else(|| DeviceConfigError::Header("no `source-bytes`".into()))?;
        if body.len() != len {
            return Err(DeviceConfigError::Length {
                got: body.len(),
                want: len,
            });
        }
        if sha256_hex(body) != hash.to_ascii_lowercase() {
            return Err(DeviceConfigError::Hash);
        }
        let source =
            String::from_utf8(body.to_vec()).map_err(|_| DeviceConfigError::Header("source is not UTF-8".into()))?;
        Ok(DeviceConfig { name, source })
    }

    /// The cache key of the compiled program: sha256 of the name and source.
    pub fn key(&self) -> String {
        sha256_hex(format!("{}\n{}", self.name, self.source).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rejections() {
        let c = DeviceConfig {
            name: "l2".into(),
            source: "control c() { apply {} }\n\n".into(),
        };
        let b = c.encode();
        assert_eq!(DeviceConfig::decode(&b), Ok(c.clone()));
        assert_eq!(
            DeviceConfig::decode(b"\x7fELF..."),
            Err(DeviceConfigError::NotDeviceConfig)
        );
        let mut t = b.clone();
        let last = t.len() - 3;
        t[last] ^= 1;
        assert_eq!(DeviceConfig::decode(&t), Err(DeviceConfigError::Hash));
        let mut s = b.clone();
        s.push(b'x');
        assert!(matches!(
            DeviceConfig::decode(&s),
            Err(DeviceConfigError::Length { .. })
        ));
        for cut in 0..b.len() {
            let _ = DeviceConfig::decode(&b[..cut]);
        }
    }
}
