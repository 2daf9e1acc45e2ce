//! The gRPC codec of the generated P4Runtime service and client: prost's encoding, and prost's
//! decoding run over the message's bytes as one slice.
//!
//! perf: tonic hands a decoder the message as a `DecodeBuf` over its receive buffer; prost
//! decoding through it pays that wrapper's (and `BytesMut`'s) bookkeeping on every field it
//! reads, a tenth of a large Write's decoding time. The message is contiguous in that buffer, so
//! it is decoded from `chunk()` as a `&[u8]` (the same prost decoding: the same messages, the same
//! errors), then consumed. A WriteRequest's updates vector is sized before its decoding
//! ([`count_updates`]).

use std::marker::PhantomData;

use prost::bytes::Buf;
use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::Status;
use tonic_prost::ProstEncoder;

/// [`tonic_prost::ProstCodec`] with a decoder that reads the message as one slice.
#[derive(Debug, Clone)]
pub struct SliceCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for SliceCodec<T, U> {
    fn default() -> Self {
        SliceCodec { _pd: PhantomData }
    }
}

impl<T, U> Codec for SliceCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = SliceDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        SliceDecoder { _pd: PhantomData }
    }
}

/// Decodes a `U` from the message's bytes as one slice (see the module documentation).
#[derive(Debug, Clone)]
pub struct SliceDecoder<U> {
    _pd: PhantomData<U>,
}

impl<U: Message + Default + 'static> Decoder for SliceDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        decode_contiguous(buf).map(Some)
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// A `U` from all of `buf`'s bytes: from one slice when they are contiguous, else through `buf`.
fn decode_contiguous<U: Message + Default + 'static>(buf: &mut impl Buf) -> Result<U, Status> {
    let n = buf.remaining();
    let chunk = buf.chunk();
    let msg = if chunk.len() == n {
        let m = decode_slice::<U>(chunk);
        buf.advance(n);
        m
    } else {
        // not contiguous (tonic's receive buffer is, so this is only a safeguard)
        U::decode(&mut *buf)
    };
    // as tonic-prost: a message that does not parse is INTERNAL (gRPC's status code guide)
    msg.map_err(|e| Status::internal(e.to_string()))
}

/// A `U` from `b`. perf: a WriteRequest's updates vector gets its length before decoding
/// (counted by [`count_updates`]): grown one Update (about 400 bytes) at a time, it was copied
/// to twice its final size per Write.
fn decode_slice<U: Message + Default + 'static>(b: &[u8]) -> Result<U, prost::DecodeError> {
    use crate::proto::p4::v1::WriteRequest;
    if std::any::TypeId::of::<U>() != std::any::TypeId::of::<WriteRequest>() {
        return U::decode(b);
    }
    let mut w = WriteRequest {
        updates: Vec::with_capacity(count_updates(b).min(crate::server::MAX_UPDATES_PER_WRITE + 1)),
        ..Default::default()
    };
    w.merge(b)?;
    let any: Box<dyn std::any::Any> = Box::new(w);
    Ok(*any.downcast::<U>().expect("U is WriteRequest"))
}

/// How many `updates` fields (field 4, length-delimited) the top level of an encoded
/// WriteRequest has; counting stops at anything malformed (prost's decoding then reports it).
fn count_updates(mut b: &[u8]) -> usize {
    use prost::encoding::{decode_varint, WireType};
    let mut n = 0;
    while !b.is_empty() {
        let Ok(key) = decode_varint(&mut b) else { break };
        let skip = match WireType::try_from(key & 7) {
            Ok(WireType::Varint) => decode_varint(&mut b).map(|_| 0).ok(),
            Ok(WireType::SixtyFourBit) => Some(8),
            Ok(WireType::ThirtyTwoBit) => Some(4),
            Ok(WireType::LengthDelimited) => decode_varint(&mut b).ok().and_then(|l| usize::try_from(l).ok()),
            _ => None,
        };
        match skip {
            Some(s) if s <= b.len() => b = &b[s..],
            _ => break,
        }
        if key == (4 << 3) | WireType::LengthDelimited as u64 {
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::p4::v1::{entity, Entity, TableEntry, Update, WriteRequest};
    use prost::bytes::{Bytes, BytesMut};

    /// Decodes what prost encodes, contiguous or not, consuming all of it; refuses what prost
    /// refuses, with prost's message.
    #[test]
    fn decodes_as_prost() {
        let w = WriteRequest {
            device_id: 3,
            updates: (0..5)
                .map(|i| Update {
                    r#type: 1,
                    entity: Some(Entity {
                        entity: Some(entity::Entity::TableEntry(TableEntry {
                            table_id: 7 + i,
                            metadata: vec![i as u8; 3],
                            ..Default::default()
                        })),
                    }),
                })
                .collect(),
            ..Default::default()
        };
        let bytes = w.encode_to_vec();
        let mut one = BytesMut::from(&bytes[..]);
        assert_eq!(decode_contiguous::<WriteRequest>(&mut one).unwrap(), w);
        assert_eq!(one.remaining(), 0);
        let mut two = Bytes::copy_from_slice(&bytes[..9]).chain(Bytes::copy_from_slice(&bytes[9..]));
        assert_eq!(decode_contiguous::<WriteRequest>(&mut two).unwrap(), w);
        assert_eq!(two.remaining(), 0);
        let short = &bytes[..bytes.len() - 2];
        let want = WriteRequest::decode(short).unwrap_err().to_string();
        let got = decode_contiguous::<WriteRequest>(&mut BytesMut::from(short)).unwrap_err();
        assert_eq!(got.code(), tonic::Code::Internal);
        assert_eq!(got.message(), want);
        assert_eq!(count_updates(&bytes), 5);
        assert_eq!(count_updates(short), 4);
        // another message type decodes as prost decodes it
        let u = &w.updates[2];
        let ub = u.encode_to_vec();
        assert_eq!(decode_contiguous::<Update>(&mut BytesMut::from(&ub[..])).unwrap(), *u);
    }
}
