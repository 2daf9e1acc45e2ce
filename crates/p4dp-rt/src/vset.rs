//! Parser value sets (rt.h "p4dp_runtime_value_set_set"): each set's members replaced as a whole,
//! and read back.

use crate::ffi;
use crate::{check, Error, Result, Runtime};

/// One member of a value set: per field of the element type, a value and its mask (native
/// integers within the field's width; an exact field's mask is all ones of its width).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueSetMember {
    pub fields: Vec<(u64, u64)>,
}

impl Runtime {
    fn value_set_fields(&self, vs: u32) -> Result<usize> {
        self.program()
            .value_sets
            .get(vs as usize)
            .map(|v| v.widths.len())
            .ok_or_else(|| Error::Invalid(format!("no value set with index {vs}")))
    }

    /// Replace the members of value set `vs` (its index in `Program::value_sets`); on error the
    /// set is unchanged (errno EINVAL: a field count, width or mask that does not fit; ENOSPC:
    /// more members than its size).
    pub fn value_set_set(&self, vs: u32, members: &[ValueSetMember]) -> Result<()> {
        let nf = self.value_set_fields(vs)?;
        let mut values = Vec::with_capacity(members.len() * nf);
        let mut masks = Vec::with_capacity(members.len() * nf);
        for (i, m) in members.iter().enumerate() {
            if m.fields.len() != nf {
                return Err(Error::Invalid(format!(
                    "value set member {i}: {} fields, the value set has {nf}",
                    m.fields.len()
                )));
            }
            for &(v, k) in &m.fields {
                values.push(v);
                masks.push(k);
            }
        }
        let n = u32::try_from(members.len()).map_err(|_| Error::Invalid("too many value set members".into()))?;
        // SAFETY: both arrays hold n * n_fields elements.
        check("value set set", unsafe {
            ffi::p4dp_runtime_value_set_set(self.p(), vs, values.as_ptr(), masks.as_ptr(), n)
        })
        .map(|_| ())
    }

    /// The members of value set `vs`, in the order they were set.
    pub fn value_set_get(&self, vs: u32) -> Result<Vec<ValueSetMember>> {
        let nf = self.value_set_fields(vs)?;
        let mut n = 0u32;
        // SAFETY: max 0 writes no member; n is a valid out-pointer.
        check("value set get", unsafe {
            ffi::p4dp_runtime_value_set_get(self.p(), vs, std::ptr::null_mut(), std::ptr::null_mut(), 0, &mut n)
        })?;
        // another control thread may set the value set in between: read again until it fits
        loop {
            let cap = n;
            let mut values = vec![0u64; cap as usize * nf];
            let mut masks = vec![0u64; cap as usize * nf];
            // SAFETY: both arrays hold cap * n_fields elements.
            check("value set get", unsafe {
                ffi::p4dp_runtime_value_set_get(self.p(), vs, values.as_mut_ptr(), masks.as_mut_ptr(), cap, &mut n)
            })?;
            if n <= cap {
                return Ok((0..n as usize)
                    .map(|i| ValueSetMember {
                        fields: (0..nf).map(|f| (values[i * nf + f], masks[i * nf + f])).collect(),
                    })
                    .collect());
            }
        }
    }
}
