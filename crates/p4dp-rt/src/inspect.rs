//! Reading a compiled program's table metadata without starting DPDK (for `p4dp build`'s report).

use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int, c_void};
use std::path::Path;

use crate::ffi;
use crate::{Error, Result};

extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlclose(handle: *mut c_void) -> c_int;
    fn dlerror() -> *const c_char;
}
const RTLD_LAZY: c_int = 0x1;
const RTLD_LOCAL: c_int = 0;

/// How a table's entries are laid out, as the compiled program declares them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableLayout {
    pub name: String,
    /// Bytes of the native key.
    pub key_len: u32,
    /// Bytes of action data per entry (max over the table's actions).
    pub data_len: u32,
    /// Declared size (0 = not declared).
    pub size: u64,
    /// `P4DP_STORAGE_*` requested by annotation (0 = automatic).
    pub storage: i32,
    /// True when every key field is exact (the rte_hash-based structure).
    pub exact: bool,
}

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl* call.
    let p = unsafe { dlerror() };
    if p.is_null() {
        "unknown dlopen error".into()
    } else {
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// Reads the table metadata of the compiled program `so`. Needs no EAL: the program is opened
/// with lazy binding and none of its functions is called.
pub fn table_layouts(so: &Path) -> Result<Vec<TableLayout>> {
    let path = CString::new(so.to_string_lossy().as_bytes()).map_err(|_| Error::NulByte { what: "program path" })?;
    // SAFETY: valid C string; the handle is closed below.
    let h = unsafe { dlopen(path.as_ptr(), RTLD_LAZY | RTLD_LOCAL) };
    if h.is_null() {
        return Err(Error::Invalid(format!("{}: {}", so.display(), dl_error())));
    }
    let sym = CString::new("p4dp_program").expect("no NUL");
    // SAFETY: h is a live handle.
    let p = unsafe { dlsym(h, sym.as_ptr()) } as *const ffi::p4dp_program;
    let mut out = Vec::new();
    let res = if p.is_null() {
        Err(Error::Invalid(format!(
            "{}: no `p4dp_program` symbol: not a p4dp program",
            so.display()
        )))
    } else {
        // SAFETY: the symbol is the program's `const struct p4dp_program`; arrays have the
        // advertised lengths (generated code); the library stays loaded while we read.
        let prog = unsafe { &*p };
        if prog.abi_version != ffi::P4DP_ABI_VERSION {
            Err(Error::Invalid(format!(
                "{}: program ABI version {}, this p4dp supports {}",
                so.display(),
                prog.abi_version,
                ffi::P4DP_ABI_VERSION
            )))
        } else {
            for i in 0..prog.n_tables as usize {
                let t = unsafe { &*prog.tables.add(i) };
                let keys = (0..t.n_keys as usize).map(|k| unsafe { &*t.keys.add(k) });
                let exact = keys.clone().all(|k| k.match_kind == 0);
                out.push(TableLayout {
                    name: unsafe { CStr::from_ptr(t.name) }.to_string_lossy().into_owned(),
                    key_len: t.key_len,
                    data_len: t.data_len,
                    size: t.size,
                    storage: t.storage,
                    exact,
                });
            }
            Ok(())
        }
    };
    // SAFETY: h came from dlopen and nothing borrowed from it outlives this point.
    unsafe { dlclose(h) };
    res.map(|_| out)
}
