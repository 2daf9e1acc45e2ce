/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exact-match tables on DPDK rte_hash with lock-free readers
 * (RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF; writers are serialized by the table
 * mutex, so the hash itself takes no lock).
 *
 * The hash maps key -> entry pointer (the hash's data pointer): one indirection
 * on lookup in both storage modes.
 *  - dynamic storage: each entry is its own allocation.
 *  - static storage: entries live in one array of max_entries slots of
 *    entry_size bytes (16-byte aligned; the static storage of Simon et al., ANCS '21,
 *    Eq. 4), slot = entry index.
 *
 * Modify publishes a complete new version with one atomic pointer update inside
 * rte_hash (rte_hash_add_key_data on an existing key stores the data pointer
 * with release order; lookups load it with acquire). For static storage the
 * new version cannot be written into the slot that readers may be reading, so
 * it goes to a transient "side" version; once a grace period has passed no
 * reader can hold the slot, and the version is folded back into the slot
 * (p4dp_table_maintain / the next write op / the next modify of that entry, which
 * writes its own new version there), which is again a single pointer publication.
 * Displaced entries are kept in a FIFO ordered by the RCU token taken at
 * publication. Side versions past their grace period are kept as spares for the
 * next modifies (SIDE_SPARE_MAX).
 *
 * Writers: control-plane writes hold the table mutex; every mutation of the
 * hash (add, publish, delete, freeing a key position), of the slot-index
 * allocator and of n_entries also holds the table's insertion spinlock, which
 * data-plane inserts (workers) take alone (table_exact_insert). rte_hash
 * itself is created without MULTI_WRITER_ADD: all its writers are already
 * serialized by the spinlock, which also makes add-if-absent atomic.
 *
 * Deletes: rte_hash in LF mode keeps the key position reserved after
 * rte_hash_del_key; position, slot index and memory are released together after
 * the grace period (exact_release_cb).
 *
 * Read index (p4dp/xindex.h, table_xindex.c): workers look keys of up to 16 bytes up in the
 * table's own index, inline in the program, and ask rte_hash only for the keys the index had no
 * room for. Every change of rte_hash's key -> entry map (insert, publish, delete, release) is
 * mirrored into the index in the same insertion-spinlock section, so both always agree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>

#include "hash.h"
#include "p4dp/tsan.h"
#include "table_internal.h"

/* Header in front of a side entry (static storage, new version of a modified
 * entry). The entry starts SIDE_HDR bytes in; the key copy follows the entry. */
struct side {
	TAILQ_ENTRY(side) link;
	uint64_t token;  /* RCU token taken right after this version was published */
	uint32_t idx;
	uint32_t listed; /* on the displaced list */
	uint8_t *key;
	struct side *next_spare; /* on the spare list (struct table_exact spare) */
};
#define SIDE_HDR RTE_CACHE_LINE_SIZE

TAILQ_HEAD(side_list, side);

struct table_exact {
	struct rte_hash *h;
	struct table_xi *xi; /* the read index (p4dp/xindex.h), or NULL */
	uint8_t *slots; /* static storage only */
	size_t slots_bytes;
	size_t slots_mapped; /* bytes of slots' table_huge_map() mapping; 0: slots are on the heap */
	bool is_static;
	struct side_list displaced;
	uint64_t n_displaced;
	/* Side versions no reader can hold any more (their grace period is over), kept for the next
	 * modify: at most SIDE_SPARE_MAX, under the table mutex. perf: a single modify's side
	 * version came from rte_malloc, about 2 us of a ~6 us modify when the caches are cold (a
	 * P4Runtime Write from a client on the same CPU); popping a spare touches one line. */
	struct side *spare;
	uint32_t n_spare;
	/* The row map (table_exact_rows_enable; NULL until then), for the lock-free sweep of
	 * table_exact_row_next: bit r of row_bits is set while row (slot index) r holds an entry,
	 * and row_keys + r * key_len is that entry's key. Written under the insertion spinlock:
	 * the key before the bit (set with release order), the bit cleared on delete; the key bytes
	 * stay until the row is free again, which is after the delete's grace period. */
	uint64_t *row_bits;
	uint8_t *row_keys;
	/* a linear table's direct read index (p4dp/xindex.h struct p4dp_table_head rows): row r's
	 * installed entry or NULL, max_entries pointers; NULL if the table is not linear, or its
	 * key is not its one field at byte 0 (then lookups hash). Written under the insertion
	 * spinlock with release stores (rows_store), where the read index is. */
	struct p4dp_entry **rows;
};

/*
 * ThreadSanitizer: rte_hash (LF mode) publishes an entry with a release store of the key slot
 * index / data pointer and its lookups load them with acquire, but librte_hash is not
 * instrumented, so TSan cannot see that ordering. Every publication of an entry pointer goes
 * through hash_add (release on the entry before rte_hash stores the pointer) and every lookup
 * that returns one through hash_find / the bulk lookup (acquire on the entry after rte_hash
 * loaded the pointer): exactly the pairs rte_hash provides. No-ops without -fsanitize=thread.
 */
static inline int hash_add(struct rte_hash *h, const void *key, struct p4dp_entry *e)
{
	P4DP_TSAN_RELEASE(e);
	return rte_hash_add_key_data(h, key, e);
}

static inline int hash_add_sig(struct rte_hash *h, const void *key, hash_sig_t sig, struct p4dp_entry *e)
{
	P4DP_TSAN_RELEASE(e);
	return rte_hash_add_key_with_hash_data(h, key, sig, e);
}

static inline int hash_find(const struct rte_hash *h, const void *key, void **d)
{
	int rc = rte_hash_lookup_data(h, key, d);
	if (rc >= 0)
		P4DP_TSAN_ACQUIRE(*d);
	return rc;
}

static inline struct p4dp_entry *side_entry(struct side *s)
{
	return (struct p4dp_entry *)((uint8_t *)s + SIDE_HDR);
}

static inline struct side *entry_side(const struct p4dp_entry *e)
{
	return (struct side *)((uintptr_t)e - SIDE_HDR);
}

static inline struct p4dp_entry *slot_entry(struct p4dp_table *t, uint32_t idx)
{
	return (struct p4dp_entry *)(t->ex->slots + (size_t)idx * t->entry_size);
}

static inline bool in_slots(const struct table_exact *x, const void *p)
{
	return x->is_static && (const uint8_t *)p >= x->slots && (const uint8_t *)p < x->slots + x->slots_bytes;
}

/* The tables' hash function: CRC32-C as rte_hash_crc, for keys of any alignment (hash.h). rte_hash
 * calls it through its hash_func pointer on every key it hashes. */
static uint32_t exact_hash(const void *key, uint32_t key_len, uint32_t init)
{
	return rt_hash_crc(key, key_len, init);
}

/*
 * DPDK 22.11 rte_hash (search_and_update, used when adding/updating a key)
 * compares the signature of *empty* bucket slots too: they carry signature 0
 * and key index 0, the dummy key slot, whose key bytes are zero. So a key
 * that is all zeros and whose signature (hash >> 16) is 0 "matches" an empty
 * slot, the update is lost and the key gets inserted twice. With seed 0 the
 * CRC of an all-zero key is 0. Pick a seed for which the all-zero key has a
 * nonzero signature (only that key can equal the dummy slot's key).
 */
static uint32_t zero_key_safe_seed(uint32_t key_len)
{
	static const uint8_t zeros[P4DP_TABLE_KEY_MAX];
	uint32_t seed = 0x9e3779b9u;
	while ((exact_hash(zeros, key_len, seed) >> 16) == 0)
		seed += 0x7f4a7c15u;
	return seed;
}

/* The static storage's slots of table @p t (x->slots_bytes, zeroed): perf: a large array on huge
 * pages (table_huge_map, faulted in here by the zeroing), as the read index; else on the heap. */
static uint8_t *slots_alloc(struct p4dp_table *t, struct table_exact *x)
{
	if (x->slots_bytes >= TABLE_HUGE_MIN) {
		uint8_t *p = table_huge_map(x->slots_bytes, &x->slots_mapped);
		if (p != NULL) {
			memset(p, 0, x->slots_bytes);
			return p;
		}
	}
	return rte_zmalloc_socket("p4dp_slots", x->slots_bytes, RTE_CACHE_LINE_SIZE, t->socket_id);
}

static void slots_free(struct table_exact *x)
{
	if (x->slots_mapped != 0)
		table_huge_unmap(x->slots, x->slots_mapped);
	else
		rte_free(x->slots);
	x->slots = NULL;
}

static int table_exact_create(struct p4dp_table *t)
{
	static uint32_t seq; /* unique rte_hash names within the process */
	struct table_exact *x = calloc(1, sizeof(*x));
	if (x == NULL)
		return -ENOMEM;
	TAILQ_INIT(&x->displaced);
	x->is_static = t->storage == P4DP_STORAGE_STATIC;
	char name[RTE_HASH_NAMESIZE];
	/* relaxed: only uniqueness of the number matters */
	snprintf(name, sizeof(name), "p4dp_x%u", __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	struct rte_hash_parameters hp = {
		.name = name,
		/* rte_hash needs >= 8 entries (one bucket); use at least 8
		 * buckets so that primary and secondary buckets differ. Capacity
		 * is enforced by the table (n_entries vs max_entries). */
		.entries = RTE_MAX(t->max_entries, 64u),
		.key_len = t->key_len,
		.hash_func = exact_hash,
		.hash_func_init_val = zero_key_safe_seed(t->key_len),
		.socket_id = t->socket_id,
		/* LF: lock-free readers; EXT_TABLE: capacity is guaranteed (no
		 * cuckoo-path failure below `entries`). */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_RW_CONCURRENCY_LF | RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	x->h = rte_hash_create(&hp);
	if (x->h == NULL) {
		free(x);
		return -ENOMEM;
	}
	if (table_xi_create(&x->xi, t->key_len, t->max_entries) != 0) {
		rte_hash_free(x->h);
		free(x);
		return -ENOMEM;
	}
	if (x->is_static && t->max_entries > 0) {
		x->slots_bytes = (size_t)t->max_entries * t->entry_size;
		x->slots = slots_alloc(t, x);
		if (x->slots == NULL) {
			table_xi_free(x->xi);
			rte_hash_free(x->h);
			free(x);
			return -ENOMEM;
		}
	}
	/* the key read as a little-endian number of key_len bytes is the row (p4dp_table_apply_linear) */
	if (t->linear && t->max_entries > 0 && t->fields[0].offset == 0 && t->fields[0].size == t->key_len) {
		x->rows = rte_zmalloc_socket("p4dp_linear_rows", (size_t)t->max_entries * sizeof(*x->rows),
					     RTE_CACHE_LINE_SIZE, t->socket_id);
		if (x->rows == NULL) {
			slots_free(x);
			table_xi_free(x->xi);
			rte_hash_free(x->h);
			free(x);
			return -ENOMEM;
		}
	}
	t->ex = x;
	t->head.xi = x->xi != NULL ? &x->xi->pub : NULL;
	if (t->head.xi != NULL) { /* the lookup's copies (xindex.h struct p4dp_table_head) */
		t->head.xi_shift = t->head.xi->shift;
		t->head.xi_b = t->head.xi->b;
		t->head.xi_seed = t->head.xi->seed;
	}
	t->head.rows = x->rows;
	t->head.n_rows = x->rows != NULL ? t->max_entries : 0;
	return 0;
}

/* Free memory owned by a published or unpublished entry pointer (not slots). */
static void *entry_alloc_base(struct table_exact *x, struct p4dp_entry *e)
{
	if (in_slots(x, e))
		return NULL;
	return x->is_static ? (void *)entry_side(e) : (void *)e;
}

static void table_exact_free(struct p4dp_table *t)
{
	struct table_exact *x = t->ex;
	if (x == NULL)
		return;
	/* Run pending releases (they touch the hash) and wait for readers. */
	p4dp_rcu_dq_reclaim(t->dq, true);
	p4dp_rcu_synchronize(t->rcu);
	const void *key;
	void *data;
	uint32_t next = 0;
	while (rte_hash_iterate(x->h, &key, &data, &next) >= 0)
		rte_free(entry_alloc_base(x, data));
	rte_hash_free(x->h);
	while (x->spare != NULL) {
		struct side *s = x->spare;
		x->spare = s->next_spare;
		rte_free(s);
	}
	slots_free(x);
	rte_free(x->row_bits);
	rte_free(x->row_keys);
	t->head.xi = NULL;
	t->head.xi_b = NULL;
	t->head.rows = NULL;
	t->head.n_rows = 0;
	rte_free(x->rows);
	table_xi_free(x->xi);
	free(x);
	t->ex = NULL;
}

/* The direct read index of a linear table (struct table_exact rows): row @p idx's entry is now @p e
 * (NULL: none). Under the insertion spinlock. Release: pairs with p4dp_table_apply_linear's
 * acquire load, so a reader that finds @p e sees its contents. */
static void rows_store(struct table_exact *x, uint32_t idx, struct p4dp_entry *e)
{
	if (x->rows != NULL)
		__atomic_store_n(&x->rows[idx], e, __ATOMIC_RELEASE);
}

/* The row map (struct table_exact): row @p idx now holds @p key. Under the insertion spinlock.
 * The key is written before the bit is set with release order, so a sweep that loads the bit
 * with acquire order reads this key; no sweep reads the row's old key any more (the row was
 * free, which is after the grace period of its previous entry's delete). */
static void row_set(struct p4dp_table *t, const uint8_t *key, uint32_t idx)
{
	struct table_exact *x = t->ex;
	if (x->row_bits == NULL)
		return;
	memcpy(x->row_keys + (size_t)idx * t->key_len, key, t->key_len);
	__atomic_fetch_or(&x->row_bits[idx / 64], 1ull << (idx % 64), __ATOMIC_RELEASE);
}

/* The row map: row @p idx holds no entry any more (deleted). Under the insertion spinlock. Its
 * key bytes stay until the row is reused, after the delete's grace period. */
static void row_clear(struct p4dp_table *t, uint32_t idx)
{
	struct table_exact *x = t->ex;
	if (x->row_bits != NULL)
		__atomic_fetch_and(&x->row_bits[idx / 64], ~(1ull << (idx % 64)), __ATOMIC_RELEASE);
}

/* Deferred release of a deleted entry: hash position, slot index, memory. */
static void exact_release_cb(void *ctx, void *p, uint64_t arg)
{
	struct p4dp_table *t = ctx;
	table_wlock(t);
	rte_hash_free_key_with_position(t->ex->h, (int32_t)(arg >> 32));
	table_xi_release(t->ex->xi, (uint32_t)arg);
	table_idx_release(t, (uint32_t)arg);
	table_wunlock(t);
	rte_free(p);
}

static void side_unlist(struct table_exact *x, struct side *s)
{
	if (s->listed) {
		TAILQ_REMOVE(&x->displaced, s, link);
		s->listed = 0;
		x->n_displaced--;
	}
}

/* Spare side versions kept per table (struct table_exact spare): enough for the modifies of a
 * batch's entries to reuse those of the batch before. */
#define SIDE_SPARE_MAX 64

/* A side version (static storage): a spare one, else a new allocation. Under the table mutex. */
static struct side *side_new(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data,
			     uint32_t idx)
{
	struct table_exact *x = t->ex;
	struct side *s = x->spare;
	if (s != NULL) {
		x->spare = s->next_spare;
		x->n_spare--;
	} else {
		s = rte_malloc_socket("p4dp_side", SIDE_HDR + t->entry_size + t->key_len, RTE_CACHE_LINE_SIZE,
				      t->socket_id);
		if (s == NULL)
			return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->idx = idx;
	s->key = (uint8_t *)side_entry(s) + t->entry_size;
	memcpy(s->key, key, t->key_len);
	table_entry_fill(t, side_entry(s), action, data, idx, P4DP_ENTRY_F_DYNAMIC);
	return s;
}

/* Side version @p s is unreachable by readers (never published, or its grace period is over): keep
 * it as a spare or free it. Under the table mutex. */
static void side_put(struct table_exact *x, struct side *s)
{
	if (x->n_spare >= SIDE_SPARE_MAX) {
		rte_free(s);
		return;
	}
	s->next_spare = x->spare;
	x->spare = s;
	x->n_spare++;
}

/* Deferred release of a side version that readers may still hold (table_defer callback, run under
 * the table mutex). */
static void side_put_cb(void *ctx, void *p, uint64_t arg)
{
	(void)arg;
	struct p4dp_table *t = ctx;
	side_put(t->ex, p);
}

static void side_defer_put(struct p4dp_table *t, struct side *s)
{
	table_defer(t, side_put_cb, s, 0);
}

/*
 * The one insertion path. Control-plane adds (worker=false, caller holds the
 * table mutex) and data-plane adds (worker=true, caller holds nothing) both
 * come here. Under the insertion spinlock: the existence check, the capacity
 * check, the slot index, the hash insert and the accounting, so that two
 * writers racing on one key cannot both insert it (rte_hash_add_key_data
 * would silently update instead of failing) and n_entries + free + pending
 * slots always equals the capacity. Dynamic entries are allocated before the
 * lock. Nothing here waits for a grace period while holding the spinlock; a
 * control-plane add whose only free slots are still in a grace period waits
 * for it (spinning, under the mutex but not the spinlock) and retries once; a
 * data-plane add gives up (-ENOSPC, counted in dp_busy).
 *
 * The existence check is skipped when @p seen equals the insert generation: the
 * caller's lookup missed after it loaded that generation (acquire), and no key
 * has been added since (every add bumps it under this spinlock, after the hash
 * insert, with release), so the key is still absent. A successful insert then
 * advances *seen with the generation (the caller's view now includes its own
 * insert; it must itself look again for keys equal to the one it inserted).
 * perf: the check is an rte_hash lookup of ~220 instructions, a quarter of an
 * insert, where the read index cannot answer it (table_xi_holds: it can while no key
 * overflowed into rte_hash alone, and its lookup reads the buckets the insert then
 * writes); the signature is computed once for the check and the add.
 * On success *@p row_out (if not NULL) is the new entry's row (its slot index), so that a
 * caller that needs it (rtc.p4 lastRowIndex) does not look the key up again.
 */
static int table_exact_insert(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data,
		       uint8_t profile, uint64_t now_ns, bool worker, uint64_t *seen, uint32_t *row_out)
{
	struct table_exact *x = t->ex;
	/* perf, and the control plane's progress: a flood of new flows into a full table (or one
	 * whose free slots all wait for a grace period) is answered without the spinlock, which
	 * every such packet on every worker would otherwise take, starving control-plane writes
	 * (a holder preempted on a shared CPU stalls all of them). The relaxed loads are hints:
	 * a slot freed meanwhile is used by the next insert. Existing keys still give -EEXIST. */
	if (worker && __atomic_load_n(&t->n_free, __ATOMIC_RELAXED) == 0) {
		if (rte_hash_lookup(x->h, key) >= 0)
			return -EEXIST;
		if (__atomic_load_n(&t->n_entries, __ATOMIC_RELAXED) >= t->max_entries)
			TABLE_STAT_INC(t->st_full);
		else
			TABLE_STAT_INC(t->st_dp_busy);
		return -ENOSPC;
	}
	/* a linear table's row is the key (table.h `linear`) */
	uint32_t row = 0;
	if (t->linear) {
		const struct p4dp_key_field *f = &t->fields[0];
		for (uint32_t b = 0; b < f->size; b++)
			row |= (uint32_t)key[f->offset + b] << (8u * b);
		if (row >= t->max_entries) {
			TABLE_STAT_INC(t->st_full); /* no row for it: refused like a full table */
			return -ERANGE;
		}
	}
	uint16_t flags = worker ? P4DP_ENTRY_F_DP_ADDED : 0;
	struct p4dp_entry *dyn = NULL;
	if (!x->is_static) {
		dyn = table_entry_new(t, action, data, 0, (uint16_t)(flags | P4DP_ENTRY_F_DYNAMIC));
		if (dyn == NULL)
			return -ENOMEM;
	}
	int rc;
	const hash_sig_t sig = rte_hash_hash(x->h, key);
	for (int attempt = 0;; attempt++) {
		table_wlock(t);
		const bool unseen = seen != NULL && *seen == t->ins_gen;
		int held = unseen ? 0 : table_xi_holds(x->xi, key);
		if (held < 0)
			held = rte_hash_lookup_with_hash(x->h, key, sig) >= 0;
		if (held) {
			rc = -EEXIST;
		} else if (t->n_entries >= t->max_entries) {
			TABLE_STAT_INC(t->st_full);
			rc = -ENOSPC;
		} else {
			/* a linear table's row is taken only when free: the key is absent, so it
			 * waits for the grace period of the entry deleted from it */
			int64_t idx = t->linear ? table_idx_take(t, row) : table_idx_alloc(t);
			if (idx < 0) {
				rc = -EAGAIN; /* free slots exist only after a grace period */
			} else {
				struct p4dp_entry *e;
				if (x->is_static) {
					/* The slot is unreachable by readers: its index was
					 * free, which happens only after the grace period of
					 * its previous entry. */
					e = slot_entry(t, (uint32_t)idx);
					table_entry_fill(t, e, action, data, (uint32_t)idx, flags);
				} else {
					e = dyn;
					e->index = (uint32_t)idx;
				}
				e->expire_profile = profile;
				e->last_hit_ns = now_ns;
				/* Publication: rte_hash (LF mode) writes key and data into
				 * the key slot and then stores the slot index into the
				 * bucket with release order; readers load it with acquire,
				 * so they see the filled entry. Cannot fail for lack of
				 * key positions: each position in use is paired with a
				 * slot index that is not free. */
				rc = hash_add_sig(x->h, key, sig, e);
				if (rc < 0) {
					table_idx_release(t, (uint32_t)idx);
					if (rc == -ENOSPC)
						rc = -EAGAIN;
				} else {
					rc = 0;
					dyn = NULL;
					if (row_out != NULL)
						*row_out = (uint32_t)idx;
					table_xi_insert(x->xi, key, (uint32_t)idx, e);
					rows_store(x, (uint32_t)idx, e);
					row_set(t, key, (uint32_t)idx);
					/* release: pairs with p4dp_table_ins_gen's acquire load */
					__atomic_store_n(&t->ins_gen, t->ins_gen + 1, __ATOMIC_RELEASE);
					if (unseen)
						*seen = t->ins_gen;
					TABLE_SET_RELAXED(t->n_entries, t->n_entries + 1);
					t->st_inserts++;
					if (worker)
						t->st_dp_inserts++;
				}
			}
		}
		if (rc == -EAGAIN && (worker || attempt > 0)) {
			if (worker)
				TABLE_STAT_INC(t->st_dp_busy);
			else
				TABLE_STAT_INC(t->st_full);
			rc = -ENOSPC;
		}
		table_wunlock(t);
		if (rc != -EAGAIN)
			break;
		/* Control thread: wait for the deletes' grace periods; their
		 * release callbacks take the spinlock, so it is not held here. */
		p4dp_rcu_dq_reclaim(t->dq, true);
	}
	if (dyn != NULL)
		rte_free(dyn);
	return rc;
}

/* Publish a new data pointer for an existing key: rte_hash stores it with
 * release order (search_and_update in LF mode), pairing with the lookups'
 * acquire load of the data pointer. Cannot fail for an existing key. */
static int publish(struct p4dp_table *t, const uint8_t *key, struct p4dp_entry *e)
{
	table_wlock(t); /* hash writers exclude each other (data-plane inserts) */
	int rc = hash_add(t->ex->h, key, e);
	if (rc >= 0) {
		table_xi_publish(t->ex->xi, e->index, e);
		rows_store(t->ex, e->index, e);
	}
	table_wunlock(t);
	return rc;
}

/* Fold side version @p s back into its slot (its grace period has passed). */
static int fold_back(struct p4dp_table *t, struct side *s, uint32_t action, const void *data)
{
	struct table_exact *x = t->ex;
	struct p4dp_entry *slot = slot_entry(t, s->idx);
	/* No reader holds `slot`: it was unpublished before s->token was taken
	 * and that grace period is over. */
	table_entry_fill(t, slot, action, data, s->idx, 0);
	table_entry_carry_timer(slot, side_entry(s));
	int rc = publish(t, s->key, slot);
	if (rc < 0)
		return rc;
	side_unlist(x, s);
	side_defer_put(t, s); /* readers may still hold the side version */
	return 0;
}

static int table_exact_modify(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data)
{
	struct table_exact *x = t->ex;
	void *d;
	if (hash_find(x->h, key, &d) < 0)
		return -ENOENT;
	struct p4dp_entry *cur = d;
	uint32_t idx = cur->index;
	if (!x->is_static) {
		struct p4dp_entry *e = table_entry_new(t, action, data, idx, P4DP_ENTRY_F_DYNAMIC);
		if (e == NULL)
			return -ENOMEM;
		table_entry_carry_timer(e, cur);
		int rc = publish(t, key, e);
		if (rc < 0) {
			rte_free(e);
			return rc;
		}
		table_defer_free(t, cur);
		return 0;
	}
	struct side *old = in_slots(x, cur) ? NULL : entry_side(cur);
	if (old != NULL && p4dp_rcu_token_done(t->rcu, old->token, false))
		return fold_back(t, old, action, data); /* carries old's timer state */
	/* The slot may be in use by readers: publish a side version. */
	struct side *s = side_new(t, key, action, data, idx);
	if (s == NULL)
		return -ENOMEM;
	table_entry_carry_timer(side_entry(s), cur);
	int rc = publish(t, key, side_entry(s));
	if (rc < 0) {
		side_put(x, s);
		return rc;
	}
	/* Token taken after publication: when it is done, no reader can still
	 * hold the slot version (or `old`). */
	s->token = p4dp_rcu_token(t->rcu);
	s->listed = 1;
	TAILQ_INSERT_TAIL(&x->displaced, s, link);
	x->n_displaced++;
	if (old != NULL) {
		side_unlist(x, old);
		side_defer_put(t, old);
	}
	return 0;
}

static int table_exact_delete(struct p4dp_table *t, const uint8_t *key)
{
	struct table_exact *x = t->ex;
	void *d;
	if (hash_find(x->h, key, &d) < 0)
		return -ENOENT;
	struct p4dp_entry *cur = d;
	uint32_t idx = cur->index;
	/* In LF mode the position stays reserved until freed after the grace
	 * period; the key is unreachable for lookups that start after this. */
	table_wlock(t);
	int32_t pos = rte_hash_del_key(x->h, key);
	if (pos >= 0) {
		table_xi_delete(x->xi, idx);
		rows_store(x, idx, NULL);
		row_clear(t, idx);
		TABLE_SET_RELAXED(t->n_entries, t->n_entries - 1);
	}
	table_wunlock(t);
	if (pos < 0)
		return pos;
	void *mem = entry_alloc_base(x, cur);
	if (mem != NULL && x->is_static)
		side_unlist(x, (struct side *)mem);
	table_defer(t, exact_release_cb, mem, ((uint64_t)(uint32_t)pos << 32) | idx);
	return 0;
}

static const struct p4dp_entry *table_exact_find(struct p4dp_table *t, const uint8_t *key)
{
	void *d;
	if (hash_find(t->ex->h, key, &d) < 0)
		return NULL;
	return d;
}

static unsigned table_exact_maintain(struct p4dp_table *t)
{
	struct table_exact *x = t->ex;
	unsigned n = 0;
	struct side *s;
	/* Folding back copies the live side version into the slot: a data-plane
	 * (@__ref) write landing on the side version in between would be lost,
	 * so tables the data plane writes keep side versions until the next
	 * control-plane modify (which replaces the data anyway) or delete. */
	if (t->dp_writes)
		return 0;
	/* The list is in token order: stop at the first whose grace period runs. */
	while ((s = TAILQ_FIRST(&x->displaced)) != NULL && p4dp_rcu_token_done(t->rcu, s->token, false)) {
		const struct p4dp_entry *e = side_entry(s);
		if (fold_back(t, s, e->action, e->data) != 0)
			break;
		n++;
	}
	return n;
}

static uint64_t table_exact_displaced(const struct p4dp_table *t)
{
	return t->ex->n_displaced;
}

static int table_exact_clear(struct p4dp_table *t)
{
	struct table_exact *x = t->ex;
	/* Copy the keys first: deleting while iterating may move keys between
	 * extendable buckets and skip some. The iteration holds the insertion
	 * spinlock (data-plane inserts change the hash); entries the data plane
	 * inserts after it are not deleted. */
	uint8_t *keys = malloc((size_t)(t->max_entries ? t->max_entries : 1) * t->key_len);
	if (keys == NULL)
		return -ENOMEM;
	uint64_t n = 0;
	const void *key;
	void *data;
	uint32_t next = 0;
	table_wlock(t);
	while (n < t->max_entries && rte_hash_iterate(x->h, &key, &data, &next) >= 0)
		memcpy(keys + n++ * t->key_len, key, t->key_len);
	table_wunlock(t);
	int rc = 0;
	for (uint64_t i = 0; i < n; i++) {
		int r = table_exact_delete(t, keys + i * t->key_len);
		if (r != 0 && rc == 0)
			rc = r;
	}
	free(keys);
	return rc;
}

static int table_exact_foreach(struct p4dp_table *t, p4dp_table_entry_cb cb, void *arg)
{
	const void *key;
	void *data;
	uint32_t next = 0;
	int rc = 0;
	/* rte_hash_iterate is not safe against a concurrent writer: hold the
	 * insertion spinlock (data-plane inserts wait for the walk). */
	table_wlock(t);
	while (rte_hash_iterate(t->ex->h, &key, &data, &next) >= 0) {
		struct p4dp_match m = {.value = key, .mask = t->width_mask, .hi = NULL, .priority = 0};
		rc = cb(arg, &m, data);
		if (rc != 0)
			break;
	}
	table_wunlock(t);
	return rc;
}

/* A linear table's lookup of @p key through its direct read index (x->rows non-NULL): the key
 * read as a little-endian number is the row (as p4dp_table_apply_linear). */
static const struct p4dp_entry *rows_find(const struct p4dp_table *t, const void *key)
{
	const uint8_t *kb = key;
	uint32_t row = 0;
	for (uint32_t b = 0; b < t->key_len; b++)
		row |= (uint32_t)kb[b] << (8u * b);
	/* acquire: pairs with rows_store's release */
	return row < t->max_entries ? __atomic_load_n(&t->ex->rows[row], __ATOMIC_ACQUIRE) : NULL;
}

const struct p4dp_entry *table_exact_lookup(struct p4dp_table *t, const void *key)
{
	if (t->ex->rows != NULL)
		return rows_find(t, key);
	const struct table_xi *xi = t->ex->xi;
	if (xi != NULL) {
		uint64_t k[2];
		p4dp_xi_key(k, key, t->key_len);
		const struct p4dp_entry *e =
			t->key_len <= 8 ? p4dp_xi_find8(&xi->pub, k[0]) : p4dp_xi_find(&xi->pub, k);
		if (e != NULL || p4dp_xi_overflow(&xi->pub) == 0)
			return e;
	}
	void *d;
	/* rte_hash LF lookup: acquire loads of the bucket's key index and of
	 * the data pointer pair with the writer's release stores. */
	if (hash_find(t->ex->h, key, &d) < 0)
		return NULL;
	return d;
}

void table_exact_lookup_bulk(struct p4dp_table *t, const void *const *keys, uint32_t n,
			     const struct p4dp_entry **out)
{
	if (t->ex->rows != NULL) {
		for (uint32_t i = 0; i < n; i++)
			out[i] = rows_find(t, keys[i]);
		return;
	}
	const struct table_xi *xi = t->ex->xi;
	if (xi != NULL) {
		/* perf: hash every key and prefetch its first bucket, then look them up,
		 * so that the cache misses of a burst's lookups overlap */
		uint64_t k[RTE_HASH_LOOKUP_BULK_MAX][2];
		while (n > 0) {
			uint32_t m = RTE_MIN(n, (uint32_t)RTE_HASH_LOOKUP_BULK_MAX);
			for (uint32_t i = 0; i < m; i++) {
				p4dp_xi_key(k[i], keys[i], t->key_len);
				const uint64_t bi = p4dp_xi_bucket1(&xi->pub, p4dp_xi_hash1(&xi->pub, k[i]));
				const uint8_t *b = (const uint8_t *)xi->pub.b + bi * p4dp_xi_bucket_bytes(t->key_len);
				/* the bucket's line, and its second line (the entry pointers) for long keys */
				rte_prefetch0(b);
				if (t->key_len > 8)
					rte_prefetch0(b + 64);
			}
			const int narrow = t->key_len <= 8;
			for (uint32_t i = 0; i < m; i++) {
				out[i] = narrow ? p4dp_xi_find8(&xi->pub, k[i][0]) : p4dp_xi_find(&xi->pub, k[i]);
				if (out[i] == NULL && p4dp_xi_overflow(&xi->pub) != 0)
					out[i] = table_exact_lookup(t, keys[i]);
			}
			keys += m;
			out += m;
			n -= m;
		}
		return;
	}
	struct rte_hash *h = t->ex->h;
	while (n > 0) {
		uint32_t k = RTE_MIN(n, (uint32_t)RTE_HASH_LOOKUP_BULK_MAX);
		uint64_t hits = 0;
		void *d[RTE_HASH_LOOKUP_BULK_MAX];
		/* rte_hash prefetches in stages; same ordering as the single lookup. */
		if (rte_hash_lookup_bulk_data(h, (const void **)(uintptr_t)keys, k, &hits, d) < 0)
			hits = 0;
		for (uint32_t i = 0; i < k; i++)
			out[i] = (hits >> i) & 1 ? d[i] : NULL;
#ifdef P4DP_TSAN
		for (uint32_t i = 0; i < k; i++) /* as hash_find */
			if (out[i] != NULL)
				P4DP_TSAN_ACQUIRE(out[i]);
#endif
		keys += k;
		out += k;
		n -= k;
	}
}

void table_exact_prefetch_inserts(struct p4dp_table *t, const void *const *keys, uint32_t n,
				  const struct p4dp_entry *const *out)
{
	/* a linear table's insert takes the key's row: nothing to find first */
	if (t->ex->rows != NULL)
		return;
	/* perf: an insert starts with rte_hash_add searching the key's two buckets, two dependent
	 * cache misses per insert when the table is past the caches, and then reads the busy flags
	 * of the read index's bucket, an array apart from the buckets (the buckets themselves were
	 * loaded by the lookup). A bulk lookup of the missed keys loads both rte_hash buckets of
	 * each with its misses overlapped (rte_hash prefetches them all before comparing; its
	 * answer is not needed), and table_xi_prefetch the flags. */
	const void *miss[RTE_HASH_LOOKUP_BULK_MAX];
	int32_t pos[RTE_HASH_LOOKUP_BULK_MAX];
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (out[i] != NULL)
			continue;
		table_xi_prefetch(t->ex->xi, keys[i]);
		miss[m++] = keys[i];
		if (m == RTE_HASH_LOOKUP_BULK_MAX) {
			(void)rte_hash_lookup_bulk(t->ex->h, miss, m, pos);
			m = 0;
		}
	}
	if (m > 0)
		(void)rte_hash_lookup_bulk(t->ex->h, miss, m, pos);
}

/* ------------------------------------------------------------ the kind's operations */

/* Exact tables: the key is the value; mask (if given) must be all-ones over each
 * field's width; no bit outside the fields' widths may be set. */
static int check_exact_match(const struct p4dp_table *t, const struct p4dp_match *m)
{
	if (m == NULL || (t->key_len > 0 && m->value == NULL))
		return -EINVAL;
	for (uint32_t i = 0; i < t->key_len; i++) {
		if (m->value[i] & ~t->width_mask[i])
			return -EINVAL;
		if (m->mask != NULL && (m->mask[i] & t->width_mask[i]) != t->width_mask[i])
			return -EINVAL;
	}
	return 0;
}

static int exact_add(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	int rc = check_exact_match(t, m);
	return rc ? rc : table_exact_insert(t, m->value, action, data, 0, table_now(t), false, NULL, NULL);
}

static void exact_prefetch(const struct p4dp_table *t, const struct p4dp_match *m)
{
	if (m != NULL && m->value != NULL)
		table_xi_prefetch(t->ex->xi, m->value);
}

static int exact_modify(struct p4dp_table *t, const struct p4dp_match *m, uint32_t action, const void *data)
{
	int rc = check_exact_match(t, m);
	return rc ? rc : table_exact_modify(t, m->value, action, data);
}

static int exact_delete(struct p4dp_table *t, const struct p4dp_match *m)
{
	int rc = check_exact_match(t, m);
	return rc ? rc : table_exact_delete(t, m->value);
}

static int exact_find(struct p4dp_table *t, const struct p4dp_match *m, const struct p4dp_entry **e)
{
	int rc = check_exact_match(t, m);
	if (rc == 0)
		*e = table_exact_find(t, m->value);
	return rc;
}

static int exact_dp_insert(struct p4dp_table *t, const uint8_t *key, uint32_t action, const void *data,
			   uint8_t profile, uint64_t now_ns, uint64_t *seen, uint32_t *row)
{
	return table_exact_insert(t, key, action, data, profile, now_ns, true, seen, row);
}

static void exact_stats(const struct p4dp_table *t, struct p4dp_table_stats *st)
{
	st->displaced = table_exact_displaced(t);
	st->spare_sides = t->ex->n_spare;
}

const struct table_kind_ops table_exact_ops = {
	.kind = TABLE_KIND_EXACT,
	.expires = true,
	.create = table_exact_create,
	.free = table_exact_free,
	.add = exact_add,
	.modify = exact_modify,
	.del = exact_delete,
	.find = exact_find,
	.clear = table_exact_clear,
	.foreach = table_exact_foreach,
	.maintain = table_exact_maintain,
	.dp_insert = exact_dp_insert,
	.prefetch = exact_prefetch,
	.stats = exact_stats,
};

int table_exact_rows_enable(struct p4dp_table *t)
{
	if (t == NULL || t->kind != TABLE_KIND_EXACT)
		return -EINVAL;
	struct table_exact *x = t->ex;
	pthread_mutex_lock(&t->lock);
	int rc = 0;
	if (x->row_bits == NULL) {
		const size_t words = ((size_t)t->max_entries + 63) / 64;
		uint64_t *bits = rte_zmalloc_socket("p4dp_row_bits", RTE_MAX(words, (size_t)1) * sizeof(uint64_t),
						    RTE_CACHE_LINE_SIZE, t->socket_id);
		uint8_t *keys = rte_zmalloc_socket("p4dp_row_keys",
						   RTE_MAX((size_t)t->max_entries * t->key_len, (size_t)1),
						   RTE_CACHE_LINE_SIZE, t->socket_id);
		if (bits == NULL || keys == NULL) {
			rte_free(bits);
			rte_free(keys);
			rc = -ENOMEM;
		} else {
			/* the entries installed now, then every later change (row_set, row_clear): the
			 * spinlock orders this walk with the data-plane inserts */
			table_wlock(t);
			const void *key;
			void *data;
			uint32_t next = 0;
			while (rte_hash_iterate(x->h, &key, &data, &next) >= 0) {
				const uint32_t idx = ((const struct p4dp_entry *)data)->index;
				memcpy(keys + (size_t)idx * t->key_len, key, t->key_len);
				bits[idx / 64] |= 1ull << (idx % 64);
			}
			x->row_keys = keys;
			/* release: a sweep on another thread that loads the map with acquire sees it filled */
			__atomic_store_n(&x->row_bits, bits, __ATOMIC_RELEASE);
			table_wunlock(t);
		}
	}
	pthread_mutex_unlock(&t->lock);
	return rc;
}

const struct p4dp_entry *table_exact_row_next(struct p4dp_table *t, uint64_t *pos, uint64_t end, void *key)
{
	const struct table_exact *x = t->ex;
	const uint64_t *bits = __atomic_load_n(&x->row_bits, __ATOMIC_ACQUIRE);
	if (end > t->max_entries)
		end = t->max_entries;
	uint64_t r = *pos;
	while (bits != NULL && r < end) {
		/* acquire: pairs with row_set's release; the key bytes are read after it */
		const uint64_t w = __atomic_load_n(&bits[r / 64], __ATOMIC_ACQUIRE) >> (r % 64);
		if (w == 0) {
			r = (r / 64 + 1) * 64;
			continue;
		}
		r += (uint64_t)__builtin_ctzll(w);
		if (r >= end)
			break;
		const uint32_t row = (uint32_t)r++;
		/* the row cannot be freed and refilled before our next quiescent state: its bit was
		 * set after our read-side section began or the delete that clears it comes after
		 * our load, and the row is reused only after that delete's grace period */
		memcpy(key, x->row_keys + (size_t)row * t->key_len, t->key_len);
		const struct p4dp_entry *e = table_exact_lookup(t, key);
		/* the key's entry at this row: not an entry of the same key added again at another
		 * row since the bit was read (the sweep reaches that row by itself, or never) */
		if (e != NULL && e->index == row) {
			*pos = r;
			return e;
		}
	}
	*pos = r < end ? r : end;
	return NULL;
}
