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

use prost::bytes::{Buf, Bytes};
use prost::Message;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder};
use tonic::codegen::http;
use tonic::Status;
use tonic_prost::ProstEncoder;

use crate::proto::p4::v1::p4_runtime_server::P4RuntimeServer;
use crate::proto::p4::v1::WriteResponse;
use crate::server::{Service, WriteBody};

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

/// A WriteRequest decoded by prost from its encoding `b`, with the error tonic-prost's codec
/// gives for a message that does not parse (INTERNAL).
pub fn decode_write(b: &[u8]) -> Result<crate::proto::p4::v1::WriteRequest, Status> {
    decode_slice(b).map_err(|e| Status::internal(e.to_string()))
}

/// How many `updates` fields (field 4, length-delimited) the top level of an encoded
/// WriteRequest has; counting stops at anything malformed (prost's decoding then reports it).
pub fn count_updates(mut b: &[u8]) -> usize {
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

/// The codec of the Write route ([`WriteRoute`]): the request's bytes as they came (the handler
/// reads them: crate::fastwrite, else prost), the response encoded by prost.
#[derive(Debug, Clone, Default)]
pub struct WriteCodec;

impl Codec for WriteCodec {
    type Encode = WriteResponse;
    type Decode = Bytes;
    type Encoder = ProstEncoder<WriteResponse>;
    type Decoder = BytesDecoder;

    fn encoder(&mut self) -> Self::Encoder {
        ProstEncoder::new(BufferSettings::default())
    }

    fn decoder(&mut self) -> Self::Decoder {
        BytesDecoder
    }
}

/// A message's bytes, undecoded.
#[derive(Debug, Clone, Default)]
pub struct BytesDecoder;

impl Decoder for BytesDecoder {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        let n = buf.remaining();
        Ok(Some(buf.copy_to_bytes(n)))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// The P4Runtime service as served: its Write method takes the request's bytes
/// ([`WriteCodec`], [`Service::write_body`]) so that table-entry updates are read from them
/// without prost's messages (crate::fastwrite); every other method is the generated server's.
#[derive(Clone)]
pub struct WriteRoute {
    inner: P4RuntimeServer<Service>,
    svc: Service,
    max_message: usize,
}

impl WriteRoute {
    pub fn new(svc: Service, max_message: usize) -> WriteRoute {
        WriteRoute {
            inner: P4RuntimeServer::new(svc.clone())
                .max_decoding_message_size(max_message)
                .max_encoding_message_size(max_message),
            svc,
            max_message,
        }
    }
}

const WRITE_PATH: &str = "/p4.v1.P4Runtime/Write";

impl<B> tonic::codegen::Service<http::Request<B>> for WriteRoute
where
    B: tonic::codegen::Body + Send + 'static,
    B::Error: Into<tonic::codegen::StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = tonic::codegen::BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, _cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if req.uri().path() != WRITE_PATH {
            return self.inner.call(req);
        }
        let svc = self.svc.clone();
        let max = self.max_message;
        Box::pin(async move {
            let mut grpc = tonic::server::Grpc::new(WriteCodec).apply_max_message_size_config(Some(max), Some(max));
            Ok(grpc.unary(WriteBytes(svc), req).await)
        })
    }
}

impl tonic::server::NamedService for WriteRoute {
    const NAME: &'static str = "p4.v1.P4Runtime";
}

/// The Write method of [`WriteRoute`].
struct WriteBytes(Service);

impl tonic::server::UnaryService<Bytes> for WriteBytes {
    type Response = WriteResponse;
    type Future = tonic::codegen::BoxFuture<tonic::Response<WriteResponse>, Status>;

    fn call(&mut self, req: tonic::Request<Bytes>) -> Self::Future {
        let svc = self.0.clone();
        Box::pin(async move { svc.write_body(req.map(WriteBody::Encoded)).await })
    }
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
