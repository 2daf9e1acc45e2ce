//! P4Runtime bytestrings: big-endian, any length accepted on input (leading zero bytes are
//! ignored), the shortest form (at least one byte) returned. A value with a bit set at or above
//! the field's bitwidth is rejected (INVALID_ARGUMENT, spec section "Bytestrings").

/// The canonical (shortest) form of `v`: leading zero bytes dropped, `[0]` for zero.
pub fn canonical(v: &[u8]) -> Vec<u8> {
    let first = v.iter().position(|&b| b != 0).unwrap_or(v.len());
    if first == v.len() {
        vec![0]
    } else {
        v[first..].to_vec()
    }
}

/// `v` as exactly ceil(`width`/8) bytes, or `None` if its value does not fit in `width` bits
/// (or `v` is empty: P4Runtime requires at least one byte).
pub fn fit(v: &[u8], width: u32) -> Option<Vec<u8>> {
    if v.is_empty() {
        return None;
    }
    let n = width.div_ceil(8) as usize;
    // the canonical form, borrowed (perf: one allocation per value, this is on every write)
    let first = v.iter().position(|&b| b != 0).unwrap_or(v.len());
    let c: &[u8] = if first == v.len() { &[0] } else { &v[first..] };
    if c.len() > n {
        return None;
    }
    let mut out = Vec::with_capacity(n);
    out.resize(n - c.len(), 0u8);
    out.extend_from_slice(c);
    let spare = (n * 8) as u32 - width;
    if spare > 0 && n > 0 && out[0] >> (8 - spare) != 0 {
        return None;
    }
    if n == 0 && c != [0] {
        return None;
    }
    Some(out)
}

/// All-ones mask of `width` bits in ceil(width/8) bytes.
pub fn ones(width: u32) -> Vec<u8> {
    let n = width.div_ceil(8) as usize;
    let mut out = vec![0xffu8; n];
    let spare = (n * 8) as u32 - width;
    if n > 0 {
        out[0] >>= spare;
    }
    out
}

pub fn is_zero(v: &[u8]) -> bool {
    v.iter().all(|&b| b == 0)
}

/// Big-endian bytes to u64 (None if it does not fit).
pub fn to_u64(v: &[u8]) -> Option<u64> {
    let c = canonical(v);
    if c.len() > 8 {
        return None;
    }
    Some(c.iter().fold(0u64, |a, &b| (a << 8) | b as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_and_fit() {
        assert_eq!(canonical(&[0, 0, 1, 2]), vec![1, 2]);
        assert_eq!(canonical(&[0, 0]), vec![0]);
        assert_eq!(fit(&[0, 0, 0, 0x0a], 9), Some(vec![0, 0x0a]));
        assert_eq!(fit(&[0x01, 0xff], 9), Some(vec![0x01, 0xff]));
        assert_eq!(fit(&[0x02, 0x00], 9), None);
        assert_eq!(fit(&[], 8), None);
        assert_eq!(fit(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 48), Some(vec![0, 0, 0, 0, 0, 1]));
        assert_eq!(ones(12), vec![0x0f, 0xff]);
        assert_eq!(to_u64(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 5]), Some(5));
    }
}
