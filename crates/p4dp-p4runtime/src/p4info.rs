//! P4Info as a message: cgen writes it in protobuf text format; the server parses that text
//! with the descriptors of the official protos (prost-reflect) and re-encodes it as the prost
//! message, so both sides of SetForwardingPipelineConfig can be compared as messages.

use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage};

use crate::proto::p4::config::v1::P4Info;

#[derive(Debug, thiserror::Error)]
pub enum P4InfoError {
    #[error("the P4Runtime descriptors are unusable: {0}")]
    Descriptors(String),
    #[error("P4Info text format: {0}")]
    Text(String),
    #[error("P4Info: {0}")]
    Decode(String),
}

/// Parses P4Info in protobuf text format.
pub fn parse_text(text: &str) -> Result<P4Info, P4InfoError> {
    let pool = DescriptorPool::decode(crate::proto::FILE_DESCRIPTOR_SET)
        .map_err(|e| P4InfoError::Descriptors(e.to_string()))?;
    let desc = pool
        .get_message_by_name("p4.config.v1.P4Info")
        .ok_or_else(|| P4InfoError::Descriptors("no message p4.config.v1.P4Info".into()))?;
    let dynamic = DynamicMessage::parse_text_format(desc, text).map_err(|e| P4InfoError::Text(e.to_string()))?;
    P4Info::decode(dynamic.encode_to_vec().as_slice()).map_err(|e| P4InfoError::Decode(e.to_string()))
}

/// Does the P4Info a client sent describe the same program as the switch's own? Everything but
/// `pkg_info` (documentation, and names of the build) must be equal.
pub fn same_program(a: &P4Info, b: &P4Info) -> bool {
    let strip = |p: &P4Info| P4Info {
        pkg_info: None,
        ..p.clone()
    };
    strip(a) == strip(b)
}
