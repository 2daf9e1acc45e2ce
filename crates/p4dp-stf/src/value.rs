//! Turning STF number literals into control-plane values (docs/stf.md, "What p4dp decides", key values).
//!
//! Values are computed as bit vectors (least significant bit first) of any
//! length, then checked against the field width and packed into
//! `ceil(width/8)` big-endian bytes.
//!
//! Rules, by match kind:
//! * **exact** (and action arguments, register values): the number itself;
//!   `*` and `/len` are errors.
//! * **ternary**: hex or binary only. Value = digits with `*` as 0; mask = 1
//!   for every bit of a written digit that is not `*`, 0 elsewhere. So bits
//!   above the written digits are don't-care (`0x1` on a 32-bit key tests the
//!   low nibble only). A lone `*` is the full wildcard.
//! * **lpm**: the prefix length is the key width minus the bits covered by the
//!   trailing `*` digits: `0x0a01****` on a 32-bit key is `/16`, and
//!   `0x0a010065` is `/32` (the prefix counts from the first written digit at
//!   full key width; for a value written at full width this equals 4 × the
//!   non-`*` hex digits). A value with `*` must be written at least at the key
//!   width (anything shorter is ambiguous and rejected). `*` is only allowed
//!   as a suffix. `value/len` gives the length explicitly; a value without `*`
//!   or `/len` (decimal included) is a full-length prefix. Bits after the
//!   prefix are cleared.
//! * **range** (p4dp extension): `lo..hi`, a single value `v` (= `v..v`), or
//!   `*` (the whole range).
//! * **optional** (p4dp extension): a value (exact) or `*` (wildcard).
//!
//! A value that does not fit the width is an error naming the field.

use crate::ast::{KeyValue, Num, Radix};
use crate::schema::{KeyFieldSchema, MatchKind};
use crate::target::FieldMatch;

/// A number as bits, least significant first; `care[i]` is false where the
/// user wrote `*`. `written` is the number of bits the digits cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bits {
    pub value: Vec<bool>,
    pub care: Vec<bool>,
}

impl Bits {
    /// Bits of a literal. Decimal numbers have no don't-care bits and cover
    /// exactly their significant bits.
    pub fn of(num: &Num) -> Bits {
        match num.radix {
            Radix::Hex | Radix::Bin => {
                let per = if num.radix == Radix::Hex { 4 } else { 1 };
                let mut value = Vec::with_capacity(num.digits.len() * per);
                let mut care = Vec::with_capacity(num.digits.len() * per);
                for c in num.digits.chars().rev() {
                    let (v, k) = match c.to_digit(16) {
                        Some(d) => (d, true),
                        None => (0, false),
                    };
                    for b in 0..per {
                        value.push((v >> b) & 1 == 1);
                        care.push(k);
                    }
                }
                Bits { value, care }
            }
            Radix::Dec => {
                let value = decimal_bits(&num.digits);
                let care = vec![true; value.len()];
                Bits { value, care }
            }
        }
    }

    /// Number of significant bits of the value (position of the highest 1,
    /// plus one).
    pub fn bit_len(&self) -> usize {
        self.value.iter().rposition(|&b| b).map_or(0, |p| p + 1)
    }
}

/// Decimal digits → bits (LSB first), through base-2^32 limbs.
fn decimal_bits(digits: &str) -> Vec<bool> {
    let mut limbs: Vec<u32> = Vec::new(); // little-endian
    for c in digits.chars() {
        let mut carry = u64::from(c.to_digit(10).unwrap_or(0));
        for l in limbs.iter_mut() {
            let v = u64::from(*l) * 10 + carry;
            *l = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            limbs.push(carry as u32);
        }
    }
    let mut bits = Vec::with_capacity(limbs.len() * 32);
    for l in limbs {
        for b in 0..32 {
            bits.push((l >> b) & 1 == 1);
        }
    }
    bits
}

/// Pack the low `width` bits of `bits` (LSB first) into `ceil(width/8)`
/// big-endian bytes.
pub(crate) fn pack(bits: &[bool], width: u32) -> Vec<u8> {
    let nbytes = (width as usize).div_ceil(8);
    let mut out = vec![0u8; nbytes];
    for (i, &b) in bits.iter().enumerate().take(width as usize) {
        if b {
            out[nbytes - 1 - i / 8] |= 1 << (i % 8);
        }
    }
    out
}

/// All-ones value of `width` bits, packed.
fn ones(width: u32) -> Vec<u8> {
    pack(&vec![true; width as usize], width)
}

/// An encoding error; the message names the field or parameter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EncodeError {
    pub message: String,
    pub note: Option<String>,
}

fn err(message: String) -> EncodeError {
    EncodeError { message, note: None }
}

/// Encode a plain value (exact key, action argument, register value) of
/// `width` bits. `what` describes the destination, e.g. "8-bit parameter
/// `port` of action `fwd`".
pub(crate) fn encode_plain(num: &Num, width: u32, what: &str) -> Result<Vec<u8>, EncodeError> {
    if num.has_wildcards() {
        return Err(err(format!("`*` is not allowed in the value of {what}")));
    }
    let bits = Bits::of(num);
    if bits.bit_len() > width as usize {
        return Err(err(format!("value {} does not fit in {what}", num.text())));
    }
    Ok(pack(&bits.value, width))
}

/// The default match for a key the script left out (docs/stf.md, "What p4dp decides"): exact 0,
/// ternary `0 &&& 0`, lpm `0/0`, and (extensions) range = everything,
/// optional = wildcard.
pub(crate) fn default_match(key: &KeyFieldSchema) -> FieldMatch {
    let zero = vec![0u8; (key.width as usize).div_ceil(8)];
    match key.match_kind {
        MatchKind::Exact => FieldMatch::Exact(zero),
        MatchKind::Ternary => FieldMatch::Ternary {
            value: zero.clone(),
            mask: zero,
        },
        MatchKind::Lpm => FieldMatch::Lpm {
            value: zero,
            prefix_len: 0,
        },
        MatchKind::Range => FieldMatch::Range {
            lo: zero,
            hi: ones(key.width),
        },
        MatchKind::Optional => FieldMatch::Optional(None),
    }
}

/// Encode the value written for key field `key` (docs/stf.md, key values, and the p4dp
/// extensions for range and optional).
pub(crate) fn encode_key(value: &KeyValue, key: &KeyFieldSchema) -> Result<FieldMatch, EncodeError> {
    let w = key.width;
    let kind = key.match_kind.name();
    let what = format!("{w}-bit {kind} key `{}`", key.name);
    match (key.match_kind, value) {
        (MatchKind::Exact, KeyValue::Wildcard(_)) => Err(EncodeError {
            message: format!("`*` is not allowed for {what}"),
            note: Some("an exact key must be given a value (0 if it is left out)".into()),
        }),
        (MatchKind::Ternary, KeyValue::Wildcard(_)) => Ok(default_match(key)),
        (MatchKind::Lpm, KeyValue::Wildcard(_)) => Ok(default_match(key)),
        (MatchKind::Range, KeyValue::Wildcard(_)) => Ok(default_match(key)),
        (MatchKind::Optional, KeyValue::Wildcard(_)) => Ok(FieldMatch::Optional(None)),
        (mk, KeyValue::Range { lo, hi }) => {
            if mk != MatchKind::Range {
                return Err(EncodeError {
                    message: format!("a `lo..hi` range is only allowed for range keys, not for {what}"),
                    note: None,
                });
            }
            let l = encode_plain(lo, w, &what)?;
            let h = encode_plain(hi, w, &what)?;
            // Same length, big-endian: byte order is numeric order.
            if l > h {
                return Err(err(format!(
                    "empty range {}..{} for {what}: the lower bound is above the upper bound",
                    lo.text(),
                    hi.text()
                )));
            }
            Ok(FieldMatch::Range { lo: l, hi: h })
        }
        (
            mk,
            KeyValue::Num {
                prefix_len: Some(len),
                num,
            },
        ) => {
            if mk != MatchKind::Lpm {
                return Err(err(format!(
                    "a `/{}` prefix length is only allowed for lpm keys, not for {what}",
                    len.value
                )));
            }
            if num.has_wildcards() {
                return Err(err(format!(
                    "lpm value {} for {what} uses both `*` and `/len`; use one",
                    num.text()
                )));
            }
            if len.value > u64::from(w) {
                return Err(err(format!("prefix length /{} is longer than {what}", len.value)));
            }
            let bits = Bits::of(num);
            if bits.bit_len() > w as usize {
                return Err(err(format!("value {} does not fit in {what}", num.text())));
            }
            Ok(lpm(&bits.value, w, len.value as u32))
        }
        (MatchKind::Exact, KeyValue::Num { num, .. }) => Ok(FieldMatch::Exact(encode_plain(num, w, &what)?)),
        (MatchKind::Optional, KeyValue::Num { num, .. }) => {
            Ok(FieldMatch::Optional(Some(encode_plain(num, w, &what)?)))
        }
        (MatchKind::Range, KeyValue::Num { num, .. }) => {
            let v = encode_plain(num, w, &what)?;
            Ok(FieldMatch::Range { lo: v.clone(), hi: v })
        }
        (MatchKind::Ternary, KeyValue::Num { num, .. }) => {
            if num.radix == Radix::Dec {
                return Err(EncodeError {
                    message: format!(
                        "decimal value {} for {what}: ternary values must be hex or binary",
                        num.text()
                    ),
                    note: Some(
                        "the mask covers exactly the written digits, e.g. `0x0a0b` has mask 0xffff; \
                         write `0x...` or `0b...`"
                            .into(),
                    ),
                });
            }
            let bits = Bits::of(num);
            if bits.bit_len() > w as usize {
                return Err(err(format!("value {} does not fit in {what}", num.text())));
            }
            Ok(FieldMatch::Ternary {
                value: pack(&bits.value, w),
                mask: pack(&bits.care, w),
            })
        }
        (MatchKind::Lpm, KeyValue::Num { num, .. }) => {
            let bits = Bits::of(num);
            if bits.bit_len() > w as usize {
                return Err(err(format!("value {} does not fit in {what}", num.text())));
            }
            let written = bits.care.len();
            let stars = bits.care.iter().take_while(|&&c| !c).count();
            if bits.care[stars..].iter().any(|&c| !c) {
                return Err(err(format!(
                    "lpm value {} for {what} has `*` before a digit; `*` may only end an lpm value",
                    num.text()
                )));
            }
            if stars == 0 {
                return Ok(lpm(&bits.value, w, w));
            }
            if written < w as usize {
                let digits = if num.radix == Radix::Hex { w.div_ceil(4) } else { w };
                return Err(EncodeError {
                    message: format!(
                        "lpm value {} for {what} is shorter than the key; its prefix length would be ambiguous",
                        num.text()
                    ),
                    note: Some(format!(
                        "write it with {digits} {} digits, or as `value/len`",
                        if num.radix == Radix::Hex { "hex" } else { "binary" }
                    )),
                });
            }
            let len = (w as usize).saturating_sub(stars) as u32;
            Ok(lpm(&bits.value, w, len))
        }
    }
}

/// An lpm match with the bits after the prefix cleared.
fn lpm(value: &[bool], width: u32, prefix_len: u32) -> FieldMatch {
    let keep_from = (width - prefix_len) as usize; // bits below this are cleared
    let v: Vec<bool> = value.iter().enumerate().map(|(i, &b)| b && i >= keep_from).collect();
    FieldMatch::Lpm {
        value: pack(&v, width),
        prefix_len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Int;
    use crate::diag::Span;

    fn num(text: &str) -> Num {
        let (radix, digits) = if let Some(d) = text.strip_prefix("0x") {
            (Radix::Hex, d)
        } else if let Some(d) = text.strip_prefix("0b") {
            (Radix::Bin, d)
        } else {
            (Radix::Dec, text)
        };
        Num {
            radix,
            digits: digits.into(),
            span: Span::default(),
        }
    }

    fn key(kind: MatchKind, width: u32) -> KeyFieldSchema {
        KeyFieldSchema {
            name: "k".into(),
            match_kind: kind,
            width,
        }
    }

    fn v(text: &str) -> KeyValue {
        KeyValue::Num {
            num: num(text),
            prefix_len: None,
        }
    }

    #[test]
    fn decimal_bignum() {
        let n = num("340282366920938463463374607431768211455"); // 2^128 - 1
        let b = Bits::of(&n);
        assert_eq!(b.bit_len(), 128);
        assert_eq!(encode_plain(&n, 128, "x").unwrap(), vec![0xff; 16]);
        assert!(encode_plain(&n, 127, "x").is_err());
        assert_eq!(encode_plain(&num("258"), 16, "x").unwrap(), vec![1, 2]);
        assert_eq!(encode_plain(&num("0"), 9, "x").unwrap(), vec![0, 0]);
    }

    #[test]
    fn plain_width_check_names_field() {
        let e = encode_plain(&num("0x1ff"), 8, "8-bit parameter `port` of action `fwd`").unwrap_err();
        assert_eq!(
            e.message,
            "value 0x1ff does not fit in 8-bit parameter `port` of action `fwd`"
        );
        // Leading zeros are fine.
        assert_eq!(encode_plain(&num("0x00ff"), 8, "x").unwrap(), vec![0xff]);
        assert_eq!(encode_plain(&num("0b101"), 3, "x").unwrap(), vec![5]);
        assert_eq!(encode_plain(&num("511"), 9, "x").unwrap(), vec![1, 0xff]);
    }

    #[test]
    fn ternary_mask_is_written_digits() {
        // docs/stf.md, key values: 0x****0101 → value 0x00000101, mask 0x0000FFFF.
        let m = encode_key(&v("0x****0101"), &key(MatchKind::Ternary, 32)).unwrap();
        assert_eq!(
            m,
            FieldMatch::Ternary {
                value: vec![0, 0, 1, 1],
                mask: vec![0, 0, 0xff, 0xff]
            }
        );
        // 0x1 on a 32-bit key tests only the low nibble.
        let m = encode_key(&v("0x1"), &key(MatchKind::Ternary, 32)).unwrap();
        assert_eq!(
            m,
            FieldMatch::Ternary {
                value: vec![0, 0, 0, 1],
                mask: vec![0, 0, 0, 0x0f]
            }
        );
        // 0x25** on 16 bits.
        let m = encode_key(&v("0x25**"), &key(MatchKind::Ternary, 16)).unwrap();
        assert_eq!(
            m,
            FieldMatch::Ternary {
                value: vec![0x25, 0],
                mask: vec![0xff, 0]
            }
        );
        // binary: one mask bit per digit.
        let m = encode_key(&v("0b1*0"), &key(MatchKind::Ternary, 8)).unwrap();
        assert_eq!(
            m,
            FieldMatch::Ternary {
                value: vec![0b100],
                mask: vec![0b101]
            }
        );
        // mask bits above the width are dropped
        let m = encode_key(&v("0x0fff"), &key(MatchKind::Ternary, 12)).unwrap();
        assert_eq!(
            m,
            FieldMatch::Ternary {
                value: vec![0x0f, 0xff],
                mask: vec![0x0f, 0xff]
            }
        );
    }

    #[test]
    fn ternary_errors() {
        let e = encode_key(&v("5"), &key(MatchKind::Ternary, 8)).unwrap_err();
        assert!(
            e.message.contains("ternary values must be hex or binary"),
            "{}",
            e.message
        );
        let e = encode_key(&v("0x1ff"), &key(MatchKind::Ternary, 8)).unwrap_err();
        assert_eq!(e.message, "value 0x1ff does not fit in 8-bit ternary key `k`");
        let m = encode_key(&KeyValue::Wildcard(Span::default()), &key(MatchKind::Ternary, 8)).unwrap();
        assert_eq!(
            m,
            FieldMatch::Ternary {
                value: vec![0],
                mask: vec![0]
            }
        );
    }

    #[test]
    fn lpm_prefix_from_digits() {
        let k = key(MatchKind::Lpm, 32);
        assert_eq!(
            encode_key(&v("0x0a01****"), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![10, 1, 0, 0],
                prefix_len: 16
            }
        );
        assert_eq!(
            encode_key(&v("0x0a010065"), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![10, 1, 0, 0x65],
                prefix_len: 32
            }
        );
        assert_eq!(
            encode_key(&v("0x********"), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![0; 4],
                prefix_len: 0
            }
        );
        // decimal: full length
        assert_eq!(
            encode_key(&v("167772161"), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![10, 0, 0, 1],
                prefix_len: 32
            }
        );
        // binary on 8 bits
        let k8 = key(MatchKind::Lpm, 8);
        assert_eq!(
            encode_key(&v("0b101*****"), &k8).unwrap(),
            FieldMatch::Lpm {
                value: vec![0xa0],
                prefix_len: 3
            }
        );
        // 10-bit key written with 3 hex digits: the top 2 written bits are outside the key.
        let k10 = key(MatchKind::Lpm, 10);
        assert_eq!(
            encode_key(&v("0x3f*"), &k10).unwrap(),
            FieldMatch::Lpm {
                value: vec![0x03, 0xf0],
                prefix_len: 6
            }
        );
    }

    #[test]
    fn lpm_slash_len() {
        let k = key(MatchKind::Lpm, 32);
        let val = |n: &str, l: u64| KeyValue::Num {
            num: num(n),
            prefix_len: Some(Int {
                value: l,
                span: Span::default(),
            }),
        };
        assert_eq!(
            encode_key(&val("0x0a010000", 16), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![10, 1, 0, 0],
                prefix_len: 16
            }
        );
        // bits after the prefix are cleared
        assert_eq!(
            encode_key(&val("0x0a0100ff", 16), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![10, 1, 0, 0],
                prefix_len: 16
            }
        );
        assert_eq!(
            encode_key(&val("10", 0), &k).unwrap(),
            FieldMatch::Lpm {
                value: vec![0; 4],
                prefix_len: 0
            }
        );
        assert!(encode_key(&val("0x0a", 33), &k)
            .unwrap_err()
            .message
            .contains("longer than"));
        assert!(encode_key(&val("0x0a**", 8), &k)
            .unwrap_err()
            .message
            .contains("both `*` and `/len`"));
        let e = encode_key(&val("1", 8), &key(MatchKind::Exact, 8)).unwrap_err();
        assert_eq!(
            e.message,
            "a `/8` prefix length is only allowed for lpm keys, not for 8-bit exact key `k`"
        );
    }

    #[test]
    fn lpm_errors() {
        let k = key(MatchKind::Lpm, 32);
        assert!(encode_key(&v("0x0a**0001"), &k)
            .unwrap_err()
            .message
            .contains("`*` may only end"));
        let e = encode_key(&v("0xa01****"), &k).unwrap_err();
        assert!(e.message.contains("shorter than the key"), "{}", e.message);
        assert_eq!(e.note.as_deref(), Some("write it with 8 hex digits, or as `value/len`"));
        assert!(encode_key(&v("0x1ffffffff"), &k)
            .unwrap_err()
            .message
            .contains("does not fit"));
    }

    #[test]
    fn exact_range_optional() {
        assert_eq!(
            encode_key(&v("0x0800"), &key(MatchKind::Exact, 16)).unwrap(),
            FieldMatch::Exact(vec![8, 0])
        );
        let e = encode_key(&v("0x08**"), &key(MatchKind::Exact, 16)).unwrap_err();
        assert_eq!(e.message, "`*` is not allowed in the value of 16-bit exact key `k`");
        assert!(encode_key(&KeyValue::Wildcard(Span::default()), &key(MatchKind::Exact, 16)).is_err());
        let r = key(MatchKind::Range, 16);
        let range = KeyValue::Range {
            lo: num("10"),
            hi: num("0x20"),
        };
        assert_eq!(
            encode_key(&range, &r).unwrap(),
            FieldMatch::Range {
                lo: vec![0, 10],
                hi: vec![0, 0x20]
            }
        );
        let bad = KeyValue::Range {
            lo: num("0x21"),
            hi: num("0x20"),
        };
        assert!(encode_key(&bad, &r).unwrap_err().message.contains("empty range"));
        assert_eq!(
            encode_key(&v("7"), &r).unwrap(),
            FieldMatch::Range {
                lo: vec![0, 7],
                hi: vec![0, 7]
            }
        );
        assert_eq!(
            encode_key(&KeyValue::Wildcard(Span::default()), &r).unwrap(),
            FieldMatch::Range {
                lo: vec![0, 0],
                hi: vec![0xff, 0xff]
            }
        );
        assert!(encode_key(&range, &key(MatchKind::Ternary, 16))
            .unwrap_err()
            .message
            .contains("only allowed for range"));
        let o = key(MatchKind::Optional, 9);
        assert_eq!(
            encode_key(&v("300"), &o).unwrap(),
            FieldMatch::Optional(Some(vec![1, 44]))
        );
        assert_eq!(
            encode_key(&KeyValue::Wildcard(Span::default()), &o).unwrap(),
            FieldMatch::Optional(None)
        );
        assert!(encode_key(&v("0x3**"), &o).is_err());
    }

    #[test]
    fn defaults() {
        assert_eq!(default_match(&key(MatchKind::Exact, 9)), FieldMatch::Exact(vec![0, 0]));
        assert_eq!(
            default_match(&key(MatchKind::Lpm, 8)),
            FieldMatch::Lpm {
                value: vec![0],
                prefix_len: 0
            }
        );
        assert_eq!(
            default_match(&key(MatchKind::Ternary, 8)),
            FieldMatch::Ternary {
                value: vec![0],
                mask: vec![0]
            }
        );
        assert_eq!(
            default_match(&key(MatchKind::Range, 9)),
            FieldMatch::Range {
                lo: vec![0, 0],
                hi: vec![1, 0xff]
            }
        );
        assert_eq!(default_match(&key(MatchKind::Optional, 8)), FieldMatch::Optional(None));
    }
}
