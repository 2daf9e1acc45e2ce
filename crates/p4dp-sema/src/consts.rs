//! Compile-time values: infinite-precision arithmetic, fitting `int` values into `bit<W>`/`int<W>`,
//! and folding of IR operators on constants.

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{One, Signed, ToPrimitive, Zero};

use p4dp_ir::{BinOp, Type, TypeTable, UnOp, Value};

/// `2^w` as a `BigInt`.
pub(crate) fn pow2(w: u32) -> BigInt {
    BigInt::one() << (w as usize)
}

/// Does the infinite-precision value `v` fit a `bit<W>` (`signed = false`) or `int<W>`?
/// For `bit<W>`, negative values down to `-2^W + 1` are accepted (they wrap, as p4c does);
/// for `int<W>`, the two's complement range.
pub fn fits(v: &BigInt, width: u32, signed: bool) -> bool {
    if signed {
        if width == 0 {
            return v.is_zero();
        }
        let h = pow2(width - 1);
        *v >= -h.clone() && *v < h
    } else {
        let m = pow2(width);
        *v < m && *v > -m
    }
}

/// The two's complement representation of `v` in `width` bits (wrapping).
pub fn wrap_to(v: &BigInt, width: u32) -> BigUint {
    let m = pow2(width);
    let r = ((v % &m) + &m) % &m;
    r.to_biguint().unwrap_or_default()
}

/// A `Value::Bits` for `v` wrapped to `width`.
pub(crate) fn bits(v: &BigInt, width: u32, signed: bool) -> Value {
    Value::Bits {
        width,
        signed,
        bits: wrap_to(v, width),
    }
}

/// The integer a `Value::Bits` stands for (signed interpretation for `int<W>`).
pub(crate) fn to_int(v: &Value) -> Option<BigInt> {
    match v {
        Value::Bits { width, signed, bits } => {
            let b = BigInt::from_biguint(Sign::Plus, bits.clone());
            if *signed && *width > 0 && b >= pow2(width - 1) {
                Some(b - pow2(*width))
            } else {
                Some(b)
            }
        }
        Value::Bool(b) => Some(BigInt::from(*b as u8)),
        _ => None,
    }
}

/// `(width, signed)` of a `bit`/`int` type (serializable enums by their underlying type).
pub(crate) fn int_shape(t: &TypeTable, ty: p4dp_ir::TypeId) -> Option<(u32, bool)> {
    match t.get(ty) {
        Type::Bit(w) => Some((*w, false)),
        Type::Int(w) => Some((*w, true)),
        Type::SerEnum { underlying, .. } => int_shape(t, *underlying),
        _ => None,
    }
}

/// Folds an infinite-precision binary operation. `Err` carries a message (division by zero, ...).
pub(crate) fn int_binop(op: BinOp, a: &BigInt, b: &BigInt) -> Result<IntOrBool, String> {
    use IntOrBool::*;
    Ok(match op {
        BinOp::Add => I(a + b),
        BinOp::Sub => I(a - b),
        BinOp::Mul => I(a * b),
        BinOp::Div | BinOp::Mod => {
            if b.is_zero() {
                return Err("division by zero".into());
            }
            if a.is_negative() || b.is_negative() {
                return Err("`/` and `%` on `int` need non-negative operands".into());
            }
            if op == BinOp::Div {
                I(a / b)
            } else {
                I(a % b)
            }
        }
        BinOp::Shl | BinOp::Shr => {
            let n = b.to_usize().ok_or("shift amount must be a small non-negative number")?;
            if n > 1 << 20 {
                return Err("shift amount too large".into());
            }
            if op == BinOp::Shl {
                I(a << n)
            } else {
                // arithmetic shift (floor division by 2^n)
                I(a >> n)
            }
        }
        BinOp::BitAnd => I(a & b),
        BinOp::BitOr => I(a | b),
        BinOp::BitXor => I(a ^ b),
        BinOp::Eq => B(a == b),
        BinOp::Ne => B(a != b),
        BinOp::Lt => B(a < b),
        BinOp::Le => B(a <= b),
        BinOp::Gt => B(a > b),
        BinOp::Ge => B(a >= b),
        BinOp::AddSat | BinOp::SubSat => return Err("saturating operators need a fixed-width type".into()),
        BinOp::And | BinOp::Or => return Err("`&&`/`||` need `bool` operands".into()),
    })
}

pub(crate) enum IntOrBool {
    I(BigInt),
    B(bool),
}

/// Folds a binary operator on two constants of IR type `operand` (both operands have it, except
/// shifts). Returns `None` if the operation cannot be folded (then it stays an expression).
pub(crate) fn fold_binary(op: BinOp, a: &Value, b: &Value, shape: Option<(u32, bool)>) -> Option<Value> {
    if let (Value::Bool(x), Value::Bool(y)) = (a, b) {
        return match op {
            BinOp::And => Some(Value::Bool(*x && *y)),
            BinOp::Or => Some(Value::Bool(*x || *y)),
            BinOp::Eq => Some(Value::Bool(x == y)),
            BinOp::Ne => Some(Value::Bool(x != y)),
            _ => None,
        };
    }
    let (w, s) = shape?;
    let x = to_int(a)?;
    let y = to_int(b)?;
    let r = match op {
        BinOp::AddSat | BinOp::SubSat => {
            let r = if op == BinOp::AddSat { &x + &y } else { &x - &y };
            let (lo, hi) = if s {
                (-pow2(w.saturating_sub(1)), pow2(w.saturating_sub(1)) - 1)
            } else {
                (BigInt::zero(), pow2(w) - 1)
            };
            IntOrBool::I(r.clamp(lo, hi))
        }
        BinOp::Shl | BinOp::Shr => {
            let n = y.to_u64()?;
            if n >= w as u64 {
                IntOrBool::I(if op == BinOp::Shr && x.is_negative() {
                    BigInt::from(-1)
                } else {
                    BigInt::zero()
                })
            } else if op == BinOp::Shl {
                IntOrBool::I(x << n as usize)
            } else {
                IntOrBool::I(x >> n as usize)
            }
        }
        BinOp::Div | BinOp::Mod if y.is_zero() => return None,
        _ => int_binop(op, &x, &y).ok()?,
    };
    Some(match r {
        IntOrBool::I(v) => bits(&v, w, s),
        IntOrBool::B(b) => Value::Bool(b),
    })
}

pub(crate) fn fold_unary(op: UnOp, a: &Value, shape: Option<(u32, bool)>) -> Option<Value> {
    match (op, a) {
        (UnOp::Not, Value::Bool(b)) => Some(Value::Bool(!b)),
        (UnOp::Neg, Value::Bits { .. }) => {
            let (w, s) = shape?;
            Some(bits(&-to_int(a)?, w, s))
        }
        (UnOp::BitNot, Value::Bits { .. }) => {
            let (w, s) = shape?;
            Some(bits(&(-to_int(a)? - 1), w, s))
        }
        _ => None,
    }
}

/// Folds a cast of constant `v` to a type of shape `to` (`None` = bool).
pub(crate) fn fold_cast(v: &Value, to: Option<(u32, bool)>) -> Option<Value> {
    match to {
        None => match v {
            Value::Bits { bits, .. } => Some(Value::Bool(!bits.is_zero())),
            Value::Bool(b) => Some(Value::Bool(*b)),
            _ => None,
        },
        Some((w, s)) => {
            let x = match v {
                // bit<W> -> wider int<W2>: zero-extend (value as unsigned); int -> anything: sign-extend
                Value::Bits { .. } | Value::Bool(_) => to_int(v)?,
                _ => return None,
            };
            Some(bits(&x, w, s))
        }
    }
}

pub(crate) fn fold_slice(v: &Value, hi: u32, lo: u32) -> Option<Value> {
    let Value::Bits { bits: b, .. } = v else { return None };
    let w = hi - lo + 1;
    let r = (b >> lo as usize) & (wrap_to(&(pow2(w) - 1), w + 1));
    Some(Value::Bits {
        width: w,
        signed: false,
        bits: r,
    })
}

pub(crate) fn fold_concat(a: &Value, b: &Value, signed: bool) -> Option<Value> {
    let (
        Value::Bits {
            width: wa, bits: ba, ..
        },
        Value::Bits {
            width: wb, bits: bb, ..
        },
    ) = (a, b)
    else {
        return None;
    };
    Some(Value::Bits {
        width: wa + wb,
        signed,
        bits: (ba << *wb as usize) | bb,
    })
}

/// The all-zero value of a type (used for compile-time defaults).
pub(crate) fn zero_value(t: &TypeTable, ty: p4dp_ir::TypeId) -> Value {
    match t.get(ty) {
        Type::Bool => Value::Bool(false),
        Type::Bit(w) | Type::Varbit(w) => Value::Bits {
            width: *w,
            signed: false,
            bits: BigUint::zero(),
        },
        Type::Int(w) => Value::Bits {
            width: *w,
            signed: true,
            bits: BigUint::zero(),
        },
        Type::SerEnum { underlying, .. } => zero_value(t, *underlying),
        Type::Error => Value::Error(0),
        Type::Enum { .. } => Value::Enum(0),
        Type::String => Value::String(String::new()),
        Type::Header(s) => Value::Aggregate {
            valid: Some(false),
            fields: s.fields.iter().map(|f| zero_value(t, f.ty)).collect(),
        },
        Type::Struct(s) | Type::HeaderUnion(s) => Value::Aggregate {
            valid: None,
            fields: s.fields.iter().map(|f| zero_value(t, f.ty)).collect(),
        },
        Type::Tuple(ts) => Value::Aggregate {
            valid: None,
            fields: ts.iter().map(|x| zero_value(t, *x)).collect(),
        },
        Type::Stack { elem, size } => Value::Aggregate {
            valid: None,
            fields: (0..*size).map(|_| zero_value(t, *elem)).collect(),
        },
        _ => Value::Bool(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_ranges() {
        assert!(fits(&BigInt::from(255), 8, false));
        assert!(!fits(&BigInt::from(256), 8, false));
        assert!(fits(&BigInt::from(-1), 8, false)); // wraps to 255
        assert!(fits(&BigInt::from(127), 8, true));
        assert!(!fits(&BigInt::from(128), 8, true));
        assert!(fits(&BigInt::from(-128), 8, true));
        assert!(!fits(&BigInt::from(-129), 8, true));
    }

    #[test]
    fn wrap_and_fold() {
        assert_eq!(wrap_to(&BigInt::from(-1), 8), BigUint::from(255u32));
        let a = bits(&BigInt::from(200), 8, false);
        let b = bits(&BigInt::from(100), 8, false);
        assert_eq!(
            fold_binary(BinOp::Add, &a, &b, Some((8, false))),
            Some(bits(&BigInt::from(44), 8, false))
        );
        assert_eq!(
            fold_binary(BinOp::AddSat, &a, &b, Some((8, false))),
            Some(bits(&BigInt::from(255), 8, false))
        );
        assert_eq!(
            fold_binary(BinOp::SubSat, &b, &a, Some((8, false))),
            Some(bits(&BigInt::from(0), 8, false))
        );
        let c = bits(&BigInt::from(-100), 8, true);
        let d = bits(&BigInt::from(-100), 8, true);
        assert_eq!(
            fold_binary(BinOp::AddSat, &c, &d, Some((8, true))),
            Some(bits(&BigInt::from(-128), 8, true))
        );
        assert_eq!(fold_binary(BinOp::Lt, &c, &b, Some((8, true))), Some(Value::Bool(true)));
        assert_eq!(
            fold_unary(UnOp::BitNot, &bits(&BigInt::from(0), 4, false), Some((4, false))),
            Some(bits(&BigInt::from(15), 4, false))
        );
        assert_eq!(
            fold_slice(&bits(&BigInt::from(0xABCD), 16, false), 11, 4),
            Some(bits(&BigInt::from(0xBC), 8, false))
        );
        assert_eq!(
            fold_concat(
                &bits(&BigInt::from(0xA), 4, false),
                &bits(&BigInt::from(0x5), 4, false),
                false
            ),
            Some(bits(&BigInt::from(0xA5), 8, false))
        );
        // int<8> -1 cast to bit<16> sign-extends; bit<8> 255 cast to int<16> zero-extends
        assert_eq!(
            fold_cast(&bits(&BigInt::from(-1), 8, true), Some((16, false))),
            Some(bits(&BigInt::from(0xFFFF), 16, false))
        );
        assert_eq!(
            fold_cast(&bits(&BigInt::from(255), 8, false), Some((16, true))),
            Some(bits(&BigInt::from(255), 16, true))
        );
        // shifts by >= width give 0 / sign bits
        assert_eq!(
            fold_binary(BinOp::Shl, &a, &bits(&BigInt::from(9), 8, false), Some((8, false))),
            Some(bits(&BigInt::from(0), 8, false))
        );
    }

    #[test]
    fn int_ops() {
        let r = int_binop(BinOp::Div, &BigInt::from(7), &BigInt::from(0));
        assert!(r.is_err());
        match int_binop(BinOp::Shl, &BigInt::from(1), &BigInt::from(100)).ok() {
            Some(IntOrBool::I(v)) => assert_eq!(v, pow2(100)),
            _ => panic!("expected int"),
        }
    }
}
