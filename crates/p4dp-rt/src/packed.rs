//! Table entries packed into a few shared buffers: a run of inserts written one entry after the
//! other and handed to the runtime in one call ([`Runtime::entries_add`]), with no allocation
//! per entry.
//!
//! perf: a [`TableEntry`] owns a vector of match fields, one of parameters and one per value: four
//! allocations and four frees for an entry with one exact field and one parameter. malloc and
//! free took 27 % of the switch's CPU time for a batched P4Runtime insert with them, 17 % with
//! these buffers.

use crate::ffi;
use crate::runtime::{MatchField, Runtime, TableEntry};

/// A value of a [`PackedEntries`]: a range of its byte buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    off: u32,
    len: u32,
}

/// A match field of a packed entry: [`MatchField`] with its values as [`Span`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PackedKey {
    Exact(Span),
    /// value, prefix length
    Lpm(Span, u32),
    /// value, mask
    Ternary(Span, Span),
    /// low, high (inclusive)
    Range(Span, Span),
    /// `None` = wildcard
    Optional(Option<Span>),
    DontCare,
}

/// Where an entry's keys and parameters are in the buffers, and its priority and action.
#[derive(Clone, Copy, Debug)]
struct Packed {
    keys: (u32, u32),
    params: (u32, u32),
    priority: i32,
    action: u32,
}

/// The start of the entry being written: what [`PackedEntries::abandon`] truncates to.
#[derive(Clone, Copy, Debug)]
struct Open {
    bytes: usize,
    keys: usize,
    params: usize,
}

/// Entries of one table in shared buffers. An entry is written in three steps: [`begin`]
/// (its match fields, all don't-care), values ([`value`]) set as keys ([`set_key`]) and
/// parameters ([`begin_params`], [`set_param`]), then [`finish`]; or [`abandon`], which leaves
/// the finished entries as they were.
///
/// [`begin`]: PackedEntries::begin
/// [`value`]: PackedEntries::value
/// [`set_key`]: PackedEntries::set_key
/// [`begin_params`]: PackedEntries::begin_params
/// [`set_param`]: PackedEntries::set_param
/// [`finish`]: PackedEntries::finish
/// [`abandon`]: PackedEntries::abandon
#[derive(Debug, Default)]
pub struct PackedEntries {
    bytes: Vec<u8>,
    keys: Vec<PackedKey>,
    params: Vec<Span>,
    entries: Vec<Packed>,
    open: Option<Open>,
}

impl PackedEntries {
    pub fn new() -> PackedEntries {
        PackedEntries::default()
    }

    /// Finished entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every entry; the buffers keep their capacity.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.keys.clear();
        self.params.clear();
        self.entries.clear();
        self.open = None;
    }

    /// Starts an entry of `n_keys` match fields, all [`PackedKey::DontCare`] (an entry begun
    /// and not finished is abandoned first).
    pub fn begin(&mut self, n_keys: usize) {
        self.abandon();
        self.open = Some(Open {
            bytes: self.bytes.len(),
            keys: self.keys.len(),
            params: self.params.len(),
        });
        self.keys.resize(self.keys.len() + n_keys, PackedKey::DontCare);
    }

    /// Appends a value written by `write` (which gets the buffer and appends to it; false: no
    /// value, and nothing it appended is kept). Panics past 4 GiB of values.
    pub fn value(&mut self, write: impl FnOnce(&mut Vec<u8>) -> bool) -> Option<Span> {
        let off = self.bytes.len();
        if !write(&mut self.bytes) {
            self.bytes.truncate(off);
            return None;
        }
        let len = self.bytes.len() - off;
        Some(Span {
            off: u32::try_from(off).expect("packed entries: more than 4 GiB of values"),
            len: len as u32,
        })
    }

    /// The bytes of `s`.
    pub fn bytes(&self, s: Span) -> &[u8] {
        &self.bytes[s.off as usize..(s.off + s.len) as usize]
    }

    fn open(&self) -> Open {
        self.open.expect("packed entries: no entry begun")
    }

    /// Match field `pos` of the entry being written.
    pub fn key(&self, pos: usize) -> PackedKey {
        self.keys[self.open().keys + pos]
    }

    pub fn set_key(&mut self, pos: usize, k: PackedKey) {
        let at = self.open().keys + pos;
        self.keys[at] = k;
    }

    /// Gives the entry `n` parameters, all empty.
    pub fn begin_params(&mut self, n: usize) {
        let o = self.open();
        self.params.truncate(o.params);
        self.params.resize(o.params + n, Span { off: 0, len: 0 });
    }

    pub fn set_param(&mut self, pos: usize, v: Span) {
        let at = self.open().params + pos;
        self.params[at] = v;
    }

    /// Ends the entry being written.
    pub fn finish(&mut self, priority: i32, action: u32) {
        let o = self.open();
        self.entries.push(Packed {
            keys: (o.keys as u32, (self.keys.len() - o.keys) as u32),
            params: (o.params as u32, (self.params.len() - o.params) as u32),
            priority,
            action,
        });
        self.open = None;
    }

    /// Drops the entry being written, if any.
    pub fn abandon(&mut self) {
        if let Some(o) = self.open.take() {
            self.bytes.truncate(o.bytes);
            self.keys.truncate(o.keys);
            self.params.truncate(o.params);
        }
    }

    /// Finished entry `i` in its owned form.
    pub fn entry(&self, i: usize) -> TableEntry {
        let e = &self.entries[i];
        let v = |s: Span| self.bytes(s).to_vec();
        let (k, nk) = (e.keys.0 as usize, e.keys.1 as usize);
        let (p, np) = (e.params.0 as usize, e.params.1 as usize);
        TableEntry {
            matches: self.keys[k..k + nk]
                .iter()
                .map(|m| match *m {
                    PackedKey::Exact(a) => MatchField::Exact(v(a)),
                    PackedKey::Lpm(a, plen) => MatchField::Lpm(v(a), plen),
                    PackedKey::Ternary(a, b) => MatchField::Ternary(v(a), v(b)),
                    PackedKey::Range(a, b) => MatchField::Range(v(a), v(b)),
                    PackedKey::Optional(a) => MatchField::Optional(a.map(v)),
                    PackedKey::DontCare => MatchField::DontCare,
                })
                .collect(),
            priority: e.priority,
            action: e.action,
            params: self.params[p..p + np].iter().map(|&s| v(s)).collect(),
        }
    }

    /// The finished entries as the runtime takes them. The arrays point into `self`'s buffers:
    /// they are valid while `self` is neither changed nor moved.
    fn raw(&self) -> RawRun {
        let keys: Vec<ffi::p4dp_rt_key> = self.keys.iter().map(|&m| self.raw_key(m)).collect();
        let params: Vec<ffi::p4dp_rt_param> = self.params.iter().map(|&s| self.raw_param(s)).collect();
        let entries = self
            .entries
            .iter()
            .map(|e| ffi::p4dp_rt_entry {
                n_keys: e.keys.1,
                keys: keys[e.keys.0 as usize..].as_ptr(),
                priority: e.priority,
                action: e.action,
                n_params: e.params.1,
                params: params[e.params.0 as usize..].as_ptr(),
            })
            .collect();
        RawRun {
            _keys: keys,
            _params: params,
            entries,
        }
    }
}

impl PackedEntries {
    fn ptr(&self, s: Span) -> *const u8 {
        self.bytes[s.off as usize..].as_ptr()
    }

    /// A match field as the runtime takes it, pointing into `self`'s bytes.
    fn raw_key(&self, m: PackedKey) -> ffi::p4dp_rt_key {
        let (type_, a, b, prefix_len) = match m {
            PackedKey::Exact(a) => (0, Some(a), None, 0),
            PackedKey::Lpm(a, plen) => (1, Some(a), None, plen),
            PackedKey::Ternary(a, b) => (2, Some(a), Some(b), 0),
            PackedKey::Range(a, b) => (3, Some(a), Some(b), 0),
            PackedKey::Optional(a) => (4, a, None, 0),
            PackedKey::DontCare => (ffi::P4DP_RT_KEY_DONT_CARE, None, None, 0),
        };
        ffi::p4dp_rt_key {
            type_,
            prefix_len,
            value: a.map_or(std::ptr::null(), |s| self.ptr(s)),
            value_len: a.map_or(0, |s| s.len),
            value2: b.map_or(std::ptr::null(), |s| self.ptr(s)),
            value2_len: b.map_or(0, |s| s.len),
        }
    }

    fn raw_param(&self, s: Span) -> ffi::p4dp_rt_param {
        ffi::p4dp_rt_param {
            value: self.ptr(s),
            len: s.len,
        }
    }

    /// `f` of finished entry `i` as the runtime takes it: its arrays of match fields and
    /// parameters on the stack when each has at most `N`, else in vectors. The entry points into
    /// `self`'s buffers, valid during the call.
    fn with_raw_entry<const N: usize, R>(&self, i: usize, f: impl FnOnce(&ffi::p4dp_rt_entry) -> R) -> R {
        use crate::runtime::NO_KEY;
        const NO_PARAM: ffi::p4dp_rt_param = ffi::p4dp_rt_param {
            value: std::ptr::null(),
            len: 0,
        };
        let e = &self.entries[i];
        let keys = &self.keys[e.keys.0 as usize..][..e.keys.1 as usize];
        let params = &self.params[e.params.0 as usize..][..e.params.1 as usize];
        let entry = |k: *const ffi::p4dp_rt_key, p: *const ffi::p4dp_rt_param| ffi::p4dp_rt_entry {
            n_keys: e.keys.1,
            keys: k,
            priority: e.priority,
            action: e.action,
            n_params: e.params.1,
            params: p,
        };
        if keys.len() <= N && params.len() <= N {
            let mut k = [NO_KEY; N];
            let mut p = [NO_PARAM; N];
            for (slot, &m) in k.iter_mut().zip(keys) {
                *slot = self.raw_key(m);
            }
            for (slot, &s) in p.iter_mut().zip(params) {
                *slot = self.raw_param(s);
            }
            f(&entry(k.as_ptr(), p.as_ptr()))
        } else {
            let k: Vec<_> = keys.iter().map(|&m| self.raw_key(m)).collect();
            let p: Vec<_> = params.iter().map(|&s| self.raw_param(s)).collect();
            f(&entry(k.as_ptr(), p.as_ptr()))
        }
    }
}

/// Most match fields and parameters an entry of [`Runtime::entry_modify_packed`] has for them to
/// be converted on the stack.
const RAW_ON_STACK: usize = 16;

/// [`PackedEntries::raw`]: the entries and the arrays they point into.
struct RawRun {
    _keys: Vec<ffi::p4dp_rt_key>,
    _params: Vec<ffi::p4dp_rt_param>,
    entries: Vec<ffi::p4dp_rt_entry>,
}

impl Runtime {
    /// Modifies the entry of `table` that finished entry `i` of `run` matches, as
    /// [`Runtime::entry_modify`] would (the same checks and errors), with no allocation for a
    /// usual entry (perf: a single rule's modify, the update whose latency P4Runtime's d_all
    /// measures, no longer copies its match and parameters into vectors of their own).
    pub fn entry_modify_packed(&self, table: u32, run: &PackedEntries, i: usize) -> crate::Result<()> {
        run.with_raw_entry::<RAW_ON_STACK, _>(i, |e| {
            // SAFETY: e points into run's buffers and the arrays of with_raw_entry, which outlive
            // the call and are not changed during it.
            crate::check("table modify", unsafe {
                ffi::p4dp_runtime_table_entry_modify(self.p(), table, e)
            })
        })
        .map(|_| ())
    }

    /// Adds the finished entries of `run` to `table` in order, each as [`Runtime::entry_add`]
    /// would (the same checks and errors), through one runtime call per stretch of accepted
    /// entries (`p4dp_runtime_table_entries_add`): an entry refused does not stop the ones after
    /// it. One result per entry, in order.
    pub fn entries_add(&self, table: u32, run: &PackedEntries) -> Vec<crate::Result<()>> {
        let raw = run.raw();
        let mut out = Vec::with_capacity(raw.entries.len());
        let mut from = 0;
        while from < raw.entries.len() {
            let n = u32::try_from(raw.entries.len() - from).unwrap_or(u32::MAX);
            let mut done = 0u32;
            // SAFETY: raw.entries[from..from + n] point into raw's arrays and run's bytes, which
            // are neither moved nor changed during the call; done is a valid u32.
            let rc = unsafe {
                ffi::p4dp_runtime_table_entries_add(self.p(), table, raw.entries[from..].as_ptr(), n, &mut done)
            };
            // all added (rc 0), or entry `done` refused: the ones before it were added
            let added = if rc < 0 {
                (done as usize).min(n as usize - 1)
            } else {
                n as usize
            };
            out.extend((0..added).map(|_| Ok(())));
            from += added;
            if rc < 0 {
                out.push(crate::check("table add", rc).map(|_| ()));
                from += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(run: &mut PackedEntries, v: &[u8]) -> PackedKey {
        PackedKey::Exact(
            run.value(|b| {
                b.extend_from_slice(v);
                true
            })
            .unwrap(),
        )
    }

    /// Entries read back as written; an abandoned entry and a refused value leave nothing.
    #[test]
    fn entries_read_back_as_written_and_abandoned_ones_leave_nothing() {
        let mut run = PackedEntries::new();
        run.begin(3);
        let k = exact(&mut run, &[1, 2]);
        run.set_key(2, k);
        let m = run
            .value(|b| {
                b.extend_from_slice(&[0xff, 0]);
                true
            })
            .unwrap();
        let t = exact(&mut run, &[0xf0, 0]);
        let PackedKey::Exact(t) = t else { unreachable!() };
        run.set_key(0, PackedKey::Ternary(t, m));
        assert_eq!(run.key(1), PackedKey::DontCare);
        run.begin_params(2);
        let p = exact(&mut run, &[9]);
        let PackedKey::Exact(p) = p else { unreachable!() };
        run.set_param(1, p);
        run.finish(7, 3);
        // abandoned midway, a refused value and an abandoned entry: nothing of them stays
        run.begin(1);
        let k = exact(&mut run, &[5; 40]);
        run.set_key(0, k);
        assert_eq!(
            run.value(|b| {
                b.push(1);
                false
            }),
            None
        );
        run.begin_params(4);
        run.abandon();
        run.begin(1);
        let k = exact(&mut run, &[4]);
        run.set_key(0, k);
        run.begin_params(0);
        run.finish(0, 1);
        assert_eq!(run.len(), 2);
        assert_eq!(
            run.entry(0),
            TableEntry {
                matches: vec![
                    MatchField::Ternary(vec![0xf0, 0], vec![0xff, 0]),
                    MatchField::DontCare,
                    MatchField::Exact(vec![1, 2])
                ],
                priority: 7,
                action: 3,
                params: vec![vec![], vec![9]],
            }
        );
        assert_eq!(
            run.entry(1),
            TableEntry {
                matches: vec![MatchField::Exact(vec![4])],
                priority: 0,
                action: 1,
                params: vec![],
            }
        );
        assert_eq!(run.bytes.len(), 2 + 2 + 2 + 1 + 1, "bytes of abandoned entries kept");
        let raw = run.raw();
        assert_eq!(raw.entries.len(), 2);
        assert_eq!((raw.entries[0].n_keys, raw.entries[0].n_params), (3, 2));
        assert_eq!((raw.entries[1].n_keys, raw.entries[1].n_params), (1, 0));
        run.clear();
        assert!(run.is_empty());
    }

    /// One entry as the runtime takes it reads back as written, whether its arrays are on the
    /// stack or (more fields than the stack holds) in vectors, and as the whole run's form.
    #[test]
    fn one_raw_entry_on_the_stack_or_in_vectors_is_the_entry() {
        let mut run = PackedEntries::new();
        // an entry before the one converted, so that its fields start past the arrays' starts
        run.begin(1);
        let k = exact(&mut run, &[8]);
        run.set_key(0, k);
        run.begin_params(0);
        run.finish(0, 2);
        run.begin(4);
        let k = exact(&mut run, &[1, 2, 3]);
        run.set_key(0, k);
        let PackedKey::Exact(lo) = exact(&mut run, &[0, 80]) else {
            unreachable!()
        };
        let PackedKey::Exact(hi) = exact(&mut run, &[1, 0xbb]) else {
            unreachable!()
        };
        run.set_key(1, PackedKey::Range(lo, hi));
        let PackedKey::Exact(o) = exact(&mut run, &[7]) else {
            unreachable!()
        };
        run.set_key(3, PackedKey::Optional(Some(o)));
        run.begin_params(2);
        let PackedKey::Exact(p0) = exact(&mut run, &[0, 5]) else {
            unreachable!()
        };
        run.set_param(0, p0);
        run.finish(9, 4);
        for i in 0..2 {
            let want = run.entry(i);
            // SAFETY: the entry points into run and the arrays of with_raw_entry, alive in f
            let stack = run.with_raw_entry::<16, _>(i, |e| unsafe { crate::runtime::entry_from_raw(e) });
            let heap = run.with_raw_entry::<1, _>(i, |e| unsafe { crate::runtime::entry_from_raw(e) });
            let raw = run.raw();
            let whole = unsafe { crate::runtime::entry_from_raw(&raw.entries[i]) };
            assert_eq!((&stack, &heap, &whole), (&want, &want, &want), "entry {i}");
        }
        assert_eq!(run.entry(1).matches[2], MatchField::DontCare);
        assert_eq!(run.entry(1).params, vec![vec![0, 5], vec![]]);
    }
}
