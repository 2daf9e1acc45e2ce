//! Hand-written declarations of `runtime/include/p4dp/abi.h` (program metadata) and
//! `runtime/include/p4dp/rt.h` (control API). Keep in sync with those headers; the layout test in
//! `tests.rs` checks the metadata structs against a program compiled by the C compiler.
#![allow(non_camel_case_types, dead_code)]

use std::os::raw::{c_char, c_int, c_void};

pub const P4DP_ABI_VERSION: u32 = 24;
pub const P4DP_PORT_DROP: u32 = 511;
pub const P4DP_CLONE_REPLICAS_MAX: u32 = 64;
/// `p4dp_table_info.storage` flag of rtc.p4's `@linear` tables (abi.h).
pub const P4DP_STORAGE_F_LINEAR: i32 = 0x100;
pub const P4DP_RT_KEY_DONT_CARE: u32 = 0xff;

#[repr(C)]
pub struct p4dp_param_info {
    pub name: *const c_char,
    pub id: u32,
    pub bitwidth: u32,
    pub offset: u16,
    pub size: u16,
}

#[repr(C)]
pub struct p4dp_action_info {
    pub name: *const c_char,
    pub id: u32,
    pub n_params: u32,
    pub params: *const p4dp_param_info,
    pub data_len: u32,
}

#[repr(C)]
pub struct p4dp_key_info {
    pub name: *const c_char,
    pub id: u32,
    pub match_kind: u8,
    pub offset: u16,
    pub size: u16,
    pub bitwidth: u32,
}

#[repr(C)]
pub struct p4dp_table_info {
    pub name: *const c_char,
    pub id: u32,
    pub flags: u32,
    pub key_len: u32,
    pub n_keys: u32,
    pub keys: *const p4dp_key_info,
    pub n_actions: u32,
    pub actions: *const u32,
    pub action_scopes: *const u8,
    pub default_action: u32,
    pub default_data: *const u8,
    pub n_entries: u32,
    pub entries: *const c_void,
    pub size: u64,
    pub data_len: u32,
    pub direct_counter: i32,
    pub direct_meter: i32,
    pub storage: i32,
}

#[repr(C)]
pub struct p4dp_extern_info {
    pub name: *const c_char,
    pub id: u32,
    pub kind: u8,
    pub unit: u8,
    pub n_cells: u32,
    pub bitwidth: u32,
    pub cell_size: u32,
    pub table: i32,
    /// ABI 21: meters' enum p4dp_meter_type.
    pub meter_type: u8,
}

#[repr(C)]
pub struct p4dp_program {
    pub abi_version: u32,
    pub name: *const c_char,
    pub arch: *const c_char,
    pub n_tables: u32,
    pub tables: *const p4dp_table_info,
    pub n_actions: u32,
    pub actions: *const p4dp_action_info,
    pub n_externs: u32,
    pub externs: *const p4dp_extern_info,
    pub n_errors: u32,
    pub errors: *const *const c_char,
    pub process: *const c_void,
    pub process_burst: *const c_void,
    /// Per table: extern index of its action profile/selector or -1; NULL if none (abi.h).
    pub table_impl: *const i32,
    /// ABI 5: `process_mbufs` (the runtime's receive path), or NULL (ABI 6: its signature changed).
    pub process_mbufs: *const c_void,
    /// ABI 7 (rtc.p4): background pipelines, their names and the iteration entry point.
    pub n_background: u32,
    pub background_names: *const *const c_char,
    pub background: *const c_void,
    /// ABI 13: parser value sets.
    pub n_value_sets: u32,
    pub value_sets: *const p4dp_value_set_info,
}

#[repr(C)]
pub struct p4dp_value_set_info {
    pub name: *const c_char,
    pub id: u32,
    pub size: u32,
    pub n_fields: u32,
    pub widths: *const u32,
}

pub const P4DP_TABLE_F_NEEDS_PRIORITY: u32 = 0x1;
pub const P4DP_TABLE_F_DEFAULT_CONST: u32 = 0x2;
pub const P4DP_TABLE_F_ENTRIES_CONST: u32 = 0x4;
pub const P4DP_TABLE_F_IDLE_NOTIFY: u32 = 0x10;

/// Opaque runtime.
#[repr(C)]
pub struct p4dp_runtime {
    _private: [u8; 0],
}

pub type p4dp_log_fn = Option<unsafe extern "C" fn(arg: *mut c_void, level: c_int, msg: *const c_char)>;
pub type p4dp_rt_entry_cb = unsafe extern "C" fn(arg: *mut c_void, e: *const p4dp_rt_entry) -> c_int;
pub type p4dp_digest_cb = unsafe extern "C" fn(arg: *mut c_void, worker: u32, data: *const u8, len: u32);
pub type p4dp_out_cb = unsafe extern "C" fn(arg: *mut c_void, port: u32, data: *const u8, len: u32);

#[repr(C)]
pub struct p4dp_runtime_params {
    pub program_path: *const c_char,
    pub max_workers: u32,
    pub digest_qlen: u32,
    pub n_mbufs: u32,
    pub socket_id: c_int,
    pub log_fn: p4dp_log_fn,
    pub log_arg: *mut c_void,
}

#[repr(C)]
pub struct p4dp_rt_key {
    pub type_: u32,
    pub prefix_len: u32,
    pub value: *const u8,
    pub value_len: u32,
    pub value2: *const u8,
    pub value2_len: u32,
}

#[repr(C)]
pub struct p4dp_rt_param {
    pub value: *const u8,
    pub len: u32,
}

#[repr(C)]
pub struct p4dp_rt_entry {
    pub n_keys: u32,
    pub keys: *const p4dp_rt_key,
    pub priority: i32,
    pub action: u32,
    pub n_params: u32,
    pub params: *const p4dp_rt_param,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_table_stats {
    pub entries: u64,
    pub capacity: u64,
    pub inserts: u64,
    pub deletes: u64,
    pub modifies: u64,
    pub table_full: u64,
    pub hits: u64,
    pub misses: u64,
    pub dp_inserts: u64,
    pub dp_busy: u64,
    pub expired: u64,
    pub idle_notified: u64,
    pub meta_entries: u64,
    pub tuples: u64,
}

#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct p4dp_rt_rtc_queue_stats {
    pub depth: u32,
    pub elem_size: u32,
    pub queued: u32,
    pub _pad: u32,
    pub full_drops: u64,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_counter_cell {
    pub packets: u64,
    pub bytes: u64,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_meter_counts {
    pub colour: [p4dp_counter_cell; 3],
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_meter_config {
    pub cir: u64,
    pub cburst: u64,
    pub pir: u64,
    pub pburst: u64,
    pub eburst: u64,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_stats {
    pub packets: u64,
    pub drops: u64,
    pub finish_errors: u64,
    pub copies: u64,
    pub copy_errors: u64,
    pub asserts: u64,
    pub unsupported: u64,
    pub no_port: u64,
    pub multiseg: u64,
    pub lock_revocations: u64,
    pub replicas_down: u64,
    pub groups_down: u64,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_replica {
    pub port: u32,
    pub rid: u16,
    pub backup: u16,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_port_state {
    pub admin_up: u8,
    pub link_up: u8,
    pub live: u8,
}

#[repr(C)]
pub struct p4dp_run_params {
    pub n_workers: u32,
    pub stop: *const c_int,
    pub duration_ms: u64,
    pub until_input_done: c_int,
    pub idle_ms: u32,
    pub dispatch: u32,
    pub flow_key_off: u32,
    pub flow_key_len: u32,
    pub n_background: u32,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_worker_stats {
    pub packets: u64,
    pub rx_packets: u64,
    pub dispatched_out: u64,
    pub dispatched_in: u64,
    pub dispatch_drops: u64,
    pub loops: u64,
    pub rss: u32,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_table_mem {
    pub hash_bytes: u64,
    pub static_bytes: u64,
    pub dynamic_bytes: u64,
    pub slot_bytes: u32,
    pub dyn_entry_bytes: u32,
    pub choice: c_int,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_idle {
    pub ttl_ns: u64,
    pub since_hit_ns: u64,
    pub own_ttl: u32,
    pub _pad: u32,
}

pub type p4dp_rt_idle_cb =
    unsafe extern "C" fn(arg: *mut c_void, table: u32, e: *const p4dp_rt_entry, time_ns: u64, idle_ns: u64) -> c_int;

#[repr(C)]
#[derive(Default, Clone, Copy)]
pub struct p4dp_rt_port_stats {
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub drops: u64,
    pub tx_errors: u64,
}

extern "C" {
    pub fn p4dp_eal_init(argc: c_int, argv: *mut *mut c_char) -> c_int;
    pub fn p4dp_runtime_create(params: *const p4dp_runtime_params, out: *mut *mut p4dp_runtime) -> c_int;
    pub fn p4dp_runtime_free(rt: *mut p4dp_runtime);
    pub fn p4dp_runtime_error_get(rt: *const p4dp_runtime) -> *const c_char;
    pub fn p4dp_runtime_program_get(rt: *const p4dp_runtime) -> *const p4dp_program;
    pub fn p4dp_runtime_log_set(rt: *mut p4dp_runtime, f: p4dp_log_fn, arg: *mut c_void);

    pub fn p4dp_runtime_table_find(rt: *const p4dp_runtime, name: *const c_char, table: *mut u32) -> c_int;
    pub fn p4dp_runtime_table_entry_add(rt: *mut p4dp_runtime, table: u32, e: *const p4dp_rt_entry) -> c_int;
    pub fn p4dp_runtime_table_entries_add(
        rt: *mut p4dp_runtime,
        table: u32,
        entries: *const p4dp_rt_entry,
        n: u32,
        done: *mut u32,
    ) -> c_int;
    pub fn p4dp_runtime_table_entry_modify(rt: *mut p4dp_runtime, table: u32, e: *const p4dp_rt_entry) -> c_int;
    pub fn p4dp_runtime_table_entry_delete(rt: *mut p4dp_runtime, table: u32, e: *const p4dp_rt_entry) -> c_int;
    pub fn p4dp_runtime_table_entry_get(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        cb: p4dp_rt_entry_cb,
        arg: *mut c_void,
    ) -> c_int;
    pub fn p4dp_runtime_table_read(rt: *mut p4dp_runtime, table: u32, cb: p4dp_rt_entry_cb, arg: *mut c_void) -> c_int;
    pub fn p4dp_runtime_table_clear(rt: *mut p4dp_runtime, table: u32) -> c_int;
    pub fn p4dp_runtime_table_default_set(
        rt: *mut p4dp_runtime,
        table: u32,
        action: u32,
        n_params: u32,
        params: *const p4dp_rt_param,
    ) -> c_int;
    pub fn p4dp_runtime_table_default_get(
        rt: *mut p4dp_runtime,
        table: u32,
        cb: p4dp_rt_entry_cb,
        arg: *mut c_void,
    ) -> c_int;
    pub fn p4dp_runtime_table_default_reset(rt: *mut p4dp_runtime, table: u32) -> c_int;
    pub fn p4dp_runtime_table_stats_get(rt: *mut p4dp_runtime, table: u32, st: *mut p4dp_rt_table_stats) -> c_int;

    pub fn p4dp_runtime_extern_find(rt: *const p4dp_runtime, name: *const c_char, ext: *mut u32) -> c_int;
    pub fn p4dp_runtime_counter_read(rt: *mut p4dp_runtime, ext: u32, index: u32, out: *mut p4dp_counter_cell)
        -> c_int;
    pub fn p4dp_runtime_rtc_counter_get(rt: *mut p4dp_runtime, ext: u32, index: u32, value: *mut u64) -> c_int;
    pub fn p4dp_runtime_rtc_counter_set(rt: *mut p4dp_runtime, ext: u32, index: u32, value: u64) -> c_int;
    pub fn p4dp_runtime_rtc_queue_stats_get(
        rt: *mut p4dp_runtime,
        ext: u32,
        out: *mut p4dp_rt_rtc_queue_stats,
    ) -> c_int;
    pub fn p4dp_runtime_rtc_lock_get(rt: *mut p4dp_runtime, ext: u32, index: u32, held: *mut u32) -> c_int;
    pub fn p4dp_runtime_counter_write(
        rt: *mut p4dp_runtime,
        ext: u32,
        index: u32,
        v: *const p4dp_counter_cell,
    ) -> c_int;
    pub fn p4dp_runtime_counter_reset(rt: *mut p4dp_runtime, ext: u32) -> c_int;
    pub fn p4dp_runtime_direct_counter_read(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        out: *mut p4dp_counter_cell,
    ) -> c_int;
    pub fn p4dp_runtime_direct_counter_write(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        v: *const p4dp_counter_cell,
    ) -> c_int;
    pub fn p4dp_runtime_register_read(rt: *mut p4dp_runtime, ext: u32, index: u32, out: *mut u8, out_len: u32)
        -> c_int;
    pub fn p4dp_runtime_register_write(rt: *mut p4dp_runtime, ext: u32, index: u32, v: *const u8, len: u32) -> c_int;
    pub fn p4dp_runtime_register_reset(rt: *mut p4dp_runtime, ext: u32) -> c_int;
    pub fn p4dp_runtime_meter_set(rt: *mut p4dp_runtime, ext: u32, index: u32, cfg: *const p4dp_meter_config) -> c_int;
    pub fn p4dp_runtime_meter_get(rt: *mut p4dp_runtime, ext: u32, index: u32, cfg: *mut p4dp_meter_config) -> c_int;
    pub fn p4dp_runtime_direct_meter_set(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        cfg: *const p4dp_meter_config,
    ) -> c_int;
    pub fn p4dp_runtime_direct_meter_get(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        cfg: *mut p4dp_meter_config,
    ) -> c_int;
    pub fn p4dp_runtime_meter_counts_read(
        rt: *mut p4dp_runtime,
        ext: u32,
        index: u32,
        out: *mut p4dp_meter_counts,
    ) -> c_int;
    pub fn p4dp_runtime_meter_counts_write(
        rt: *mut p4dp_runtime,
        ext: u32,
        index: u32,
        v: *const p4dp_meter_counts,
    ) -> c_int;
    pub fn p4dp_runtime_direct_meter_counts_read(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        out: *mut p4dp_meter_counts,
    ) -> c_int;
    pub fn p4dp_runtime_direct_meter_counts_write(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        v: *const p4dp_meter_counts,
    ) -> c_int;
    pub fn p4dp_runtime_digest_poll(
        rt: *mut p4dp_runtime,
        ext: u32,
        cb: p4dp_digest_cb,
        arg: *mut c_void,
        max: u32,
    ) -> c_int;
    pub fn p4dp_runtime_digest_drops_get(rt: *mut p4dp_runtime, ext: u32) -> i64;

    pub fn p4dp_runtime_mcast_group_create(rt: *mut p4dp_runtime, group: u32) -> c_int;
    pub fn p4dp_runtime_mcast_group_delete(rt: *mut p4dp_runtime, group: u32) -> c_int;
    pub fn p4dp_runtime_mcast_node_create(
        rt: *mut p4dp_runtime,
        rid: u16,
        ports: *const u32,
        n_ports: u32,
        handle: *mut u32,
    ) -> c_int;
    pub fn p4dp_runtime_mcast_node_delete(rt: *mut p4dp_runtime, handle: u32) -> c_int;
    pub fn p4dp_runtime_mcast_node_associate(rt: *mut p4dp_runtime, group: u32, handle: u32) -> c_int;
    pub fn p4dp_runtime_mcast_node_dissociate(rt: *mut p4dp_runtime, group: u32, handle: u32) -> c_int;
    pub fn p4dp_runtime_mcast_group_set(
        rt: *mut p4dp_runtime,
        group: u32,
        ports: *const u32,
        rids: *const u16,
        n: u32,
    ) -> c_int;
    pub fn p4dp_runtime_clone_session_set(
        rt: *mut p4dp_runtime,
        session: u32,
        ports: *const u32,
        rids: *const u16,
        n: u32,
        trunc: u32,
    ) -> c_int;
    pub fn p4dp_runtime_clone_session_set_group(rt: *mut p4dp_runtime, session: u32, group: u32, trunc: u32) -> c_int;
    pub fn p4dp_runtime_mcast_group_set_replicas(
        rt: *mut p4dp_runtime,
        group: u32,
        reps: *const p4dp_rt_replica,
        n: u32,
    ) -> c_int;
    pub fn p4dp_runtime_clone_session_set_replicas(
        rt: *mut p4dp_runtime,
        session: u32,
        reps: *const p4dp_rt_replica,
        n: u32,
        trunc: u32,
        cos: u8,
    ) -> c_int;
    pub fn p4dp_runtime_port_admin_set(rt: *mut p4dp_runtime, port_no: u32, up: c_int) -> c_int;
    pub fn p4dp_runtime_port_state_get(rt: *mut p4dp_runtime, port_no: u32, st: *mut p4dp_rt_port_state) -> c_int;
    pub fn p4dp_runtime_clone_session_delete(rt: *mut p4dp_runtime, session: u32) -> c_int;
    pub fn p4dp_runtime_value_set_set(
        rt: *mut p4dp_runtime,
        vs: u32,
        values: *const u64,
        masks: *const u64,
        n: u32,
    ) -> c_int;
    pub fn p4dp_runtime_value_set_get(
        rt: *mut p4dp_runtime,
        vs: u32,
        values: *mut u64,
        masks: *mut u64,
        max: u32,
        n: *mut u32,
    ) -> c_int;

    pub fn p4dp_runtime_packet_inject(
        rt: *mut p4dp_runtime,
        in_port: u32,
        data: *const u8,
        len: u32,
        cb: p4dp_out_cb,
        arg: *mut c_void,
    ) -> c_int;
    pub fn p4dp_runtime_time_set(rt: *mut p4dp_runtime, ns: u64);
    pub fn p4dp_runtime_background_run(
        rt: *mut p4dp_runtime,
        name: *const c_char,
        n: u32,
        cb: p4dp_out_cb,
        arg: *mut c_void,
    ) -> c_int;
    pub fn p4dp_runtime_packet_inject_burst_set(rt: *mut p4dp_runtime, on: c_int) -> c_int;
    pub fn p4dp_runtime_time_advance(rt: *mut p4dp_runtime, ns: u64);
    pub fn p4dp_runtime_time_get(rt: *const p4dp_runtime) -> u64;
    pub fn p4dp_runtime_stats_get(rt: *mut p4dp_runtime, st: *mut p4dp_rt_stats) -> c_int;

    pub fn p4dp_runtime_port_add(rt: *mut p4dp_runtime, port_no: u32, devargs: *const c_char) -> c_int;
    pub fn p4dp_runtime_ring_port_add(rt: *mut p4dp_runtime, port_no: u32, qlen: u32) -> c_int;
    pub fn p4dp_runtime_ring_port_send(rt: *mut p4dp_runtime, port_no: u32, data: *const u8, len: u32) -> c_int;
    pub fn p4dp_runtime_ring_port_recv(
        rt: *mut p4dp_runtime,
        port_no: u32,
        cb: p4dp_out_cb,
        arg: *mut c_void,
        max: u32,
    ) -> c_int;
    pub fn p4dp_runtime_run(rt: *mut p4dp_runtime, params: *const p4dp_run_params) -> c_int;
    pub fn p4dp_runtime_port_stats_get(rt: *mut p4dp_runtime, port_no: u32, st: *mut p4dp_rt_port_stats) -> c_int;

    pub fn p4dp_runtime_worker_stats_get(rt: *mut p4dp_runtime, worker: u32, st: *mut p4dp_rt_worker_stats) -> c_int;
    pub fn p4dp_runtime_table_expire_profile_set(rt: *mut p4dp_runtime, table: u32, profile: u32, ns: u64) -> c_int;
    pub fn p4dp_runtime_table_expire_profile_get(
        rt: *mut p4dp_runtime,
        table: u32,
        profile: u32,
        ns: *mut u64,
    ) -> c_int;
    pub fn p4dp_runtime_table_entry_ttl_set(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        ttl_ns: u64,
    ) -> c_int;
    pub fn p4dp_runtime_table_entry_idle_get(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        out: *mut p4dp_rt_idle,
    ) -> c_int;
    pub fn p4dp_runtime_table_entry_meta_set(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        meta: *const c_void,
        len: u32,
    ) -> c_int;
    pub fn p4dp_runtime_table_entry_meta_get(
        rt: *mut p4dp_runtime,
        table: u32,
        e: *const p4dp_rt_entry,
        buf: *mut c_void,
        cap: u32,
        len: *mut u32,
    ) -> c_int;
    pub fn p4dp_runtime_table_meta_entries(rt: *mut p4dp_runtime, table: u32, n: *mut u64) -> c_int;
    pub fn p4dp_runtime_idle_scan(rt: *mut p4dp_runtime) -> c_int;
    pub fn p4dp_runtime_idle_poll(rt: *mut p4dp_runtime, cb: p4dp_rt_idle_cb, arg: *mut c_void, max: u32) -> c_int;
    pub fn p4dp_runtime_idle_drops_get(rt: *mut p4dp_runtime) -> u64;
    pub fn p4dp_table_mem_predict(
        size: u32,
        key_len: u32,
        data_len: u32,
        fill_pct: u32,
        out: *mut p4dp_table_mem,
    ) -> c_int;
    pub fn p4dp_table_stage_ahead_min() -> u64;
    pub fn p4dp_runtime_batch_run(
        rt: *mut p4dp_runtime,
        f: p4dp_rt_batch_fn,
        arg: *mut c_void,
        times: *mut p4dp_rt_batch_times,
    ) -> c_int;
}

pub type p4dp_rt_batch_fn = unsafe extern "C" fn(arg: *mut c_void) -> c_int;

#[repr(C)]
#[derive(Default)]
pub struct p4dp_rt_batch_times {
    pub wait_ns: u64,
    pub apply_ns: u64,
}
