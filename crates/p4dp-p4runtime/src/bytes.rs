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
    let mut out = Vec::with_capacity(width.div_ceil(8) as usize);
    fit_into(v, width, &mut out).then_some(out)
}

/// [`fit`], appended to `out`; false (and `out` as it was) if it does not fit.
pub fn fit_into(v: &[u8], width: u32, out: &mut Vec<u8>) -> bool {
    if v.is_empty() {
        return false;
    }
    let n = width.div_ceil(8) as usize;
    // the canonical form, borrowed (perf: this is on every write)
    let first = v.iter().position(|&b| b != 0).unwrap_or(v.len());
    let c: &[u8] = if first == v.len() { &[0] } else { &v[first..] };
    if c.len() > n {
        return false;
    }
    let spare = (n * 8) as u32 - width;
    // the first byte of the result: c's own when it has n bytes, else a padding zero
    if spare > 0 && c.len() == n && c[0] >> (8 - spare) != 0 {
        return false;
    }
    out.resize(out.len() + n - c.len(), 0u8);
    out.extend_from_slice(c);
    true
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

/// Whether `v` equals [`ones`]`(width)`.
pub fn is_ones(v: &[u8], width: u32) -> bool {
    let n = width.div_ceil(8) as usize;
    let spare = (n * 8) as u32 - width;
    v.len() == n
        && v.iter()
            .enumerate()
            .all(|(i, &b)| b == if i == 0 { 0xff >> spare } else { 0xff })
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
        assert_eq!(fit(&[0], 0), None);
        assert_eq!(fit(&[1], 0), None);
        assert_eq!(fit(&[0, 0x80], 7), None);
        assert_eq!(fit(&[0x7f], 7), Some(vec![0x7f]));
        for w in [1, 7, 8, 9, 12, 16, 48, 128] {
            assert!(is_ones(&ones(w), w), "{w}");
            assert!(!is_ones(&fit(&[1], w).unwrap(), w) || w == 1, "{w}");
        }
        assert!(!is_ones(&[0xff, 0xff], 12));
    }

    /// fit_into appends what fit returns, and leaves the buffer as it was when the value does
    /// not fit.
    #[test]
    fn fit_into_appends_what_fit_returns() {
        let values: [&[u8]; 7] = [
            &[],
            &[0],
            &[0, 0, 1],
            &[0x01, 0xff],
            &[0x02, 0],
            &[0xff; 17],
            &[0, 0, 0, 0, 0x80],
        ];
        for w in [0, 1, 7, 8, 9, 16, 32, 48, 128, 136] {
            for v in values {
                let mut out = vec![0xaa];
                let ok = fit_into(v, w, &mut out);
                assert_eq!(ok, fit(v, w).is_some(), "{v:?} in {w} bits");
                let want: Vec<u8> = std::iter::once(0xaa).chain(fit(v, w).unwrap_or_default()).collect();
                assert_eq!(out, want, "{v:?} in {w} bits");
            }
        }
    }
}
