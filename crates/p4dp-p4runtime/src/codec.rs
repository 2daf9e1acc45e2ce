//! The gRPC codec of the generated P4Runtime service and client: prost's encoding, and prost's
//! decoding run over the message's bytes as one slice.
//!
//! perf: tonic hands a decoder the message as a `DecodeBuf` over its receive buffer; prost
//! decoding through it pays that wrapper's (and `BytesMut`'s) bookkeeping on every field it
//! reads, a tenth of a large Write's decoding time. The message is contiguous in that buffer, so
//! it is decoded from `chunk()` as a `&[u8]` (the same prost decoding: the same messages, the same
//! errors), then consumed.

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

impl<U: Message + Default> Decoder for SliceDecoder<U> {
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
fn decode_contiguous<U: Message + Default>(buf: &mut impl Buf) -> Result<U, Status> {
    let n = buf.remaining();
    let chunk = buf.chunk();
    let msg = if chunk.len() == n {
        let m = U::decode(chunk);
        buf.advance(n);
        m
    } else {
        // not contiguous (tonic's receive buffer is, so this is only a safeguard)
        U::decode(&mut *buf)
    };
    // as tonic-prost: a message that does not parse is INTERNAL (gRPC's status code guide)
    msg.map_err(|e| Status::internal(e.to_string()))
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
    }
}
