/*
 * explainer._fold: the loops that decide analyze's speed on large profiles, in C.
 *
 * samples_apart: splits a serialized pprof Profile into its Sample records (left where they are)
 *   and the rest (copied, a few MB), so protobuf parses only the rest.
 * fold_samples: decodes the Sample records in place into root-first frame arrays, expanding
 *   inlined locations, validating as it goes; a large profile's in two halves on two threads.
 * self_and_total: pprof's flat and cum per function in one pass, counting a function once
 *   per stack with a "last stack seen" stamp instead of sorting (pair) keys.
 * attribute: the memory category and allocation site of every stack (knowledge/attribution.py),
 *   walking each stack once from the leaf and stopping at the first site or phase frame.
 * heaviest_paths: the widest-bar walks of analysis/chain.py, one pass over the frames for all targets
 *   (from each leaf: a leaf target is found at once).
 * find_calls, walk_calls: heaviest_paths in two halves, its pass over a range of the stacks (in memory
 *   order: the handoff's targets are met mid-stack) and its walks from what the passes found, so two
 *   threads share the work (cli/passes.py walk_chains; no numpy twin: used only with the compiled fold,
 *   and tested equal to heaviest_paths).
 * stacks_with: does a stack hold any of a set of functions, stopping at the first one.
 * grow_tree: the call tree's nodes depth by depth (analysis/tree.py), grouped by hashing.
 * read_buffer: an unzeroed bytearray for a large file's read (readers/limits.py).
 *
 * Frames are uint16 or int32 (the caller passes the width, 2 or 4): every loop over frames is in
 * _fold_kernels.h, compiled once per width. Each function has a numpy twin in Python
 * (readers/pprof.py, analysis/functions.py, analysis/chain.py, knowledge/attribution.py) that the
 * tests check against; when this module is missing the twins are used.
 * Arrays cross the boundary as bytes / buffer objects, so no numpy C API is needed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#if !defined(_WIN32) && (defined(__GNUC__) || defined(__clang__))
#include <sys/mman.h>
#define CAN_SPLIT 1  /* the second half of a split fold writes to an anonymous mapping (mmap) */
#define STOP(flag) __atomic_store_n(flag, 1, __ATOMIC_RELAXED)
#define STOP_SET(flag) __atomic_load_n(flag, __ATOMIC_RELAXED)
#else
#define CAN_SPLIT 0
#define STOP(flag) ((void)0)
#define STOP_SET(flag) 0
#endif

typedef struct { const uint8_t *p, *end; } cursor;

static int read_varint(cursor *c, uint64_t *out) {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (c->p >= c->end) return -1;
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) { *out = v; return 0; }
    }
    return -1;
}

typedef struct { uint64_t *data; Py_ssize_t len, cap; } ids;

static int skip_field(cursor *c, uint64_t wire) {
    uint64_t n;
    switch (wire) {
    case 0: return read_varint(c, &n);
    case 1: if (c->end - c->p < 8) return -1; c->p += 8; return 0;
    case 2: if (read_varint(c, &n) || (uint64_t)(c->end - c->p) < n) return -1; c->p += n; return 0;
    case 5: if (c->end - c->p < 4) return -1; c->p += 4; return 0;
    default: return -1;
    }
}

/* Room for `room` more values; -2 when out of memory. Raw allocation: the fold calls this with
 * the GIL released (PyMem_Realloc needs it, PyMem_RawRealloc does not). */
static int reserve(ids *v, Py_ssize_t room) {
    if (v->len + room <= v->cap) return 0;
    Py_ssize_t cap = v->cap ? v->cap : 256;
    while (cap < v->len + room) cap *= 2;
    uint64_t *d = PyMem_RawRealloc(v->data, (size_t)cap * sizeof(uint64_t));
    if (!d) return -2;
    v->data = d; v->cap = cap;
    return 0;
}

/* Appends field values (packed or not) to vec: 0, or -1 when malformed, -2 when out of memory
 * (no Python API: the fold runs without the GIL). Location ids are mostly one or two bytes: those
 * are decoded inline; a packed field of n bytes holds at most n values, so room is made once. */
static int read_repeated(cursor *c, uint64_t wire, ids *vec) {
    uint64_t x, n;
    int room;
    if (wire == 0) {
        if (read_varint(c, &x)) return -1;
        if ((room = reserve(vec, 1))) return room;
        vec->data[vec->len++] = x;
        return 0;
    }
    if (wire != 2 || read_varint(c, &n) || (uint64_t)(c->end - c->p) < n) return -1;
    if ((room = reserve(vec, (Py_ssize_t)n))) return room;
    const uint8_t *p = c->p, *end = p + n;
    uint64_t *out = vec->data + vec->len;
    while (p < end) {
        uint64_t b = *p++;
        if (b < 0x80) { *out++ = b; continue; }
        if (p < end && p[0] < 0x80) { *out++ = (b & 0x7f) | ((uint64_t)p[0] << 7); p++; continue; }
        cursor rest = {p - 1, end};
        if (read_varint(&rest, &x)) return -1;
        *out++ = x;
        p = rest.p;
    }
    vec->len = out - vec->data;
    c->p = end;
    return 0;
}

static PyObject *err(const char *field, Py_ssize_t i, const char *msg) {
    return Py_BuildValue("(sns)", field, i, msg);
}

/* A kernel's failure. The kernels over frames run without the GIL (another thread, such as the
 * CLI's warm-up or another app session, runs meanwhile), so they return one of these and the caller
 * raises it once the GIL is back (raise_bad). Each frame id is read once, into a local, and checked
 * there: the arrays are read-only profiles, but a value checked is never read again unchecked. */
enum { BAD_OFFSETS = -1, BAD_FRAME = -2 };

static int raise_bad(int bad) {
    if (bad == BAD_OFFSETS) PyErr_SetString(PyExc_ValueError, "bad offsets");
    else if (bad) PyErr_SetString(PyExc_ValueError, "bad frame id");
    return bad;
}

/* Checks the offsets once (a pass over stacks, not frames); frame ids are checked as they are read. */
static int check_offsets(const int64_t *o, Py_ssize_t n, Py_ssize_t n_frames) {
    if (n < 0 || o[0] != 0 || o[n] != n_frames) return BAD_OFFSETS;
    for (Py_ssize_t i = 0; i < n; i++)
        if (o[i + 1] <= o[i]) return BAD_OFFSETS;  /* from_arrays drops empty stacks */
    return 0;
}

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif

/* The bits of knowledge/attribution.py's per-name code table. */
enum { STRONG = 1, WEAK = 2, APP = 4, CARRIER = 8, UNRESOLVED = 16, INTERP = 32 };
enum { FALLBACK_OTHER, FALLBACK_INTERP, FALLBACK_UNRESOLVED };

/* A function's total and the last stack that added to it, side by side: one cache line per frame read. */
typedef struct tally { int64_t total, stamp; } tally;

/* What fold_samples maps location ids through: id -> location index -> its frames. */
typedef struct {
    Py_ssize_t k, n_types, n_lookup;
    const int32_t *lookup, *loc_frames;
    const int64_t *loc_start;
    int64_t max_lines;  /* the most frames one location expands to: room is made once per sample */
    Py_ssize_t max_frames;  /* the most frames all samples may expand to: inlined lines cannot be a bomb */
    int32_t *frame_of;  /* id -> its one frame, or MISSING, or INLINED (several lines: see lookup) */
    Py_ssize_t n_funcs;  /* the names: self and total are summed as the frames are written */
    int64_t *self;
    struct tally *acc;
} fold_tables;

enum { MISSING = -1, INLINED = -2 };

/* How the fold failed, recorded while the GIL is released and turned into Python objects after it
 * is taken back: an error tuple (kind, sample index, message), out of memory, or an exception that
 * is already set (a failed resize, made with the GIL held). FOLD_GAVE_UP: the second half of a split
 * fold stopped at something unusual (see K(fold)), and the first thread decodes those samples itself. */
enum { FOLD_OK, FOLD_TUPLE, FOLD_NO_MEMORY, FOLD_RAISED, FOLD_GAVE_UP };
typedef struct { int state; const char *kind, *msg; Py_ssize_t i; } fold_fail;

/* The frames being written at data: a bytes object (obj) filled in place without the GIL (no one else
 * holds a reference to it), and grown, rarely, with the GIL taken back (ts) for the resize; or, for
 * the second half of a split fold, a mapping that never grows (obj and ts NULL). */
typedef struct { PyObject *obj; char *data; Py_ssize_t n, cap; PyThreadState *ts; } frames_buf;

#define SAMPLE_TAG ((2 << 3) | 2)  /* Profile.sample, length-delimited */

/* A split fold's second half: samples first..n_samples-1 (or up to where it is told to stop), decoded by
 * a thread of its own that never touches the GIL or a Python object. Its frames go to an anonymous mapping sized for the worst case
 * without inlined lines (pages never written cost nothing), which the join copies after the first
 * half's and unmaps as it goes; its self and total go to tallies of its own, its offsets (counted
 * from its first frame) and values to its own entries of the shared arrays. */
typedef struct {
    const uint8_t *buf, *end;
    Py_ssize_t first, n_samples;
    fold_tables t;  /* the caller's tables, with this half's own self and tallies */
    int64_t *offsets, *values;
    frames_buf fb;
    size_t mapped;  /* the bytes still mapped at fb.data */
    ids locs, vals;
    fold_fail fail;
    int stop;  /* set by the first thread when its half is done: this one stops after its sample */
    cursor rest;  /* where it stopped: the records left, from sample `done` on */
    Py_ssize_t done;
    PyThread_type_lock finished;  /* held until the thread is done with all of the above */
} fold_half;

#define JOIN_CHUNK ((size_t)2 << 20)  /* copied, then unmapped: a multiple of every page size */

/* The end of the first `count` Sample records of buf, a record boundary (found by the same top-level
 * scan as samples_apart's and the fold's), or NULL when the top level is malformed before it. */
static const uint8_t *after_samples(const uint8_t *p, const uint8_t *end, Py_ssize_t count) {
    cursor c = {p, end};
    while (count > 0 && c.p < c.end) {
        uint64_t tag;
        if (read_varint(&c, &tag) || skip_field(&c, tag & 7)) return NULL;
        if (tag == SAMPLE_TAG) count--;
    }
    return count ? NULL : c.p;
}

static void end_half(fold_half *h) {
    if (!h) return;
#if CAN_SPLIT
    if (h->mapped) munmap(h->fb.data, h->mapped);
#endif
    PyMem_RawFree(h->t.self); PyMem_RawFree(h->t.acc); PyMem_RawFree(h->locs.data); PyMem_RawFree(h->vals.data);
    if (h->finished) PyThread_free_lock(h->finished);
    PyMem_RawFree(h);
}

/* Starts the thread that decodes the second half (run: K(fold_half)); NULL when it could not be started,
 * and the caller folds every sample itself. Called with the GIL held; the thread never takes it. The
 * half is on the heap, not the caller's stack: were the caller's thread to exit as it takes the GIL
 * back (a daemon thread at interpreter shutdown), the second thread would still be writing to it. */
static fold_half *start_half(const uint8_t *buf, Py_ssize_t len, Py_ssize_t n_samples, const fold_tables *t,
                             int64_t *offsets, int64_t *values, void (*run)(void *)) {
    size_t m = (size_t)(t->n_funcs ? t->n_funcs : 1);
    fold_half *h = PyMem_RawCalloc(1, sizeof(fold_half));
    if (!h) return NULL;
    *h = (fold_half){buf, buf + len, n_samples / 2, n_samples, *t, offsets, values};
    h->t.self = PyMem_RawCalloc(m, 8);
    h->t.acc = PyMem_RawMalloc(m * sizeof(tally));
    h->finished = PyThread_allocate_lock();
    if (h->t.self && h->t.acc && h->finished) {
        for (size_t x = 0; x < m; x++) h->t.acc[x] = (tally){0, -1};
        PyThread_acquire_lock(h->finished, WAIT_LOCK);
        if (PyThread_start_new_thread(run, h) != PYTHREAD_INVALID_THREAD_ID) return h;
        PyThread_release_lock(h->finished);
    }
    end_half(h);
    return NULL;
}

#define BAD_SLOT -2  /* heaviest_paths' slot of a frame id past the names */
#define WALK_NO_MEMORY -3  /* a walk's scratch could not be allocated (raised as MemoryError) */



/* The walk a call tree is grown from (analysis/tree.py::Walk) and the sizes it is read with. */
typedef struct {
    const int64_t *starts, *lengths, *values;
    int64_t step, width;  /* width: n_names + 1, so (node, frame) is one key */
    Py_ssize_t n_names;
} grow_walk;

/* One level's groups: an open-addressing table from key to entry, and each entry's sums. */
typedef struct {
    int64_t *slot_key; int32_t *slot_entry;
    Py_ssize_t slots, slots_cap;  /* slots in use this level, a power of two; slots allocated */
    int64_t *key, *total, *self; Py_ssize_t n, cap;
} keyed;

#define GROW_BLOCK 16
typedef struct {
    Py_ssize_t *active; Py_ssize_t n_active;  /* the walk items still growing, in order */
    int64_t *node_of;  /* each walk item's node at the depth before */
    int32_t *entry_of;  /* each active item's group at this depth */
    int32_t *col;  /* each active item's column in the tile of this block of depths */
    Py_ssize_t tile_width;  /* the tile's columns: the items active when the block began */
    keyed keys;
} grow_state;

/* Slots for a level of `items` walk items: few at first (the groups are often far fewer than the
 * stacks, and a small table stays in cache), doubled whenever half are taken. */
static int keyed_slots(keyed *k, Py_ssize_t want) {
    if (want > k->slots_cap) {
        PyMem_Free(k->slot_key); PyMem_Free(k->slot_entry);
        k->slot_key = PyMem_Malloc((size_t)want * 8); k->slot_entry = PyMem_Malloc((size_t)want * 4);
        k->slots_cap = want;
        if (!k->slot_key || !k->slot_entry) { k->slots_cap = 0; PyErr_NoMemory(); return -1; }
    }
    k->slots = want;
    memset(k->slot_entry, -1, (size_t)want * 4);  /* -1 in every byte: -1 */
    return 0;
}

static void keyed_place(keyed *k, int64_t key, int32_t e) {
    Py_ssize_t mask = k->slots - 1, i = (Py_ssize_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (k->slot_entry[i] >= 0) i = (i + 1) & mask;
    k->slot_key[i] = key; k->slot_entry[i] = e;
}

static int keyed_reset(keyed *k, Py_ssize_t items) {
    if (items > k->cap) {
        PyMem_Free(k->key); PyMem_Free(k->total); PyMem_Free(k->self);
        k->key = PyMem_Malloc((size_t)items * 8); k->total = PyMem_Malloc((size_t)items * 8);
        k->self = PyMem_Malloc((size_t)items * 8);
        k->cap = items;
        if (!k->key || !k->total || !k->self) { k->cap = 0; PyErr_NoMemory(); return -1; }
    }
    k->n = 0;
    return keyed_slots(k, 1024);
}

/* The entry of key, made (with zero sums) on first sight; -1 when out of memory. Keys are >= 0,
 * and a level never has more groups than items (the entry arrays are sized for those). */
static int32_t keyed_find(keyed *k, int64_t key) {
    Py_ssize_t mask = k->slots - 1, i = (Py_ssize_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (k->slot_entry[i] >= 0) {
        if (k->slot_key[i] == key) return k->slot_entry[i];
        i = (i + 1) & mask;
    }
    int32_t e = (int32_t)k->n++;
    k->key[e] = key; k->total[e] = 0; k->self[e] = 0;
    if (2 * k->n > k->slots) {  /* half full: double, and place every key again */
        if (keyed_slots(k, k->slots * 2)) return -1;
        for (Py_ssize_t x = 0; x < k->n; x++) keyed_place(k, k->key[x], (int32_t)x);
    } else {
        k->slot_key[i] = key; k->slot_entry[i] = e;
    }
    return e;
}

#define FT uint16_t
#define SUFFIX u16
#include "_fold_kernels.h"
#undef FT
#undef SUFFIX
#define FT int32_t
#define SUFFIX i32
#include "_fold_kernels.h"
#undef FT
#undef SUFFIX

static int frame_width(int width) {
    if (width == 2 || width == 4) return 0;
    PyErr_SetString(PyExc_ValueError, "frames are 2 or 4 bytes wide");
    return -1;
}

/* samples_apart(profile bytes) -> (the Profile without its samples, bytes; the sample count)
 * or an error tuple. Only the top level is read: protobuf checks the rest when it parses it. */
static PyObject *samples_apart(PyObject *self, PyObject *args) {
    Py_buffer in;
    if (!PyArg_ParseTuple(args, "y*", &in)) return NULL;
    PyObject *result = NULL, *rest = NULL;
    Py_ssize_t n_samples = 0, kept = 0;
    if (!(rest = PyBytes_FromStringAndSize(NULL, in.len > 4096 ? 4096 : in.len))) goto done;
    Py_ssize_t cap = PyBytes_GET_SIZE(rest);
    cursor c = {in.buf, (const uint8_t *)in.buf + in.len};
    while (c.p < c.end) {
        const uint8_t *start = c.p;
        uint64_t tag;
        if (read_varint(&c, &tag) || skip_field(&c, tag & 7)) { result = err("profile", n_samples, "malformed"); goto done; }
        if (tag == SAMPLE_TAG) { n_samples++; continue; }
        Py_ssize_t len = c.p - start;
        if (kept + len > cap) {
            while (kept + len > cap) cap *= 2;
            if (_PyBytes_Resize(&rest, cap)) goto done;
        }
        memcpy(PyBytes_AS_STRING(rest) + kept, start, (size_t)len);
        kept += len;
    }
    if (_PyBytes_Resize(&rest, kept)) goto done;
    result = Py_BuildValue("(On)", rest, n_samples);
done:
    Py_XDECREF(rest);
    PyBuffer_Release(&in);
    return result;
}

/* fold_samples(profile bytes, n_samples, value_index, n_types, loc_lookup, loc_start, loc_flat, width, max_frames,
 * n_names[, split_min, stop_second]) -> (offsets bytes, frames bytes, values bytes, self bytes, total bytes) or an
 * error tuple (field, index, message). Self and total per name (self_and_total's) are summed as each sample's
 * frames are written, while they are still in the cache: the decode is the one pass over the frames that must be
 * made. Profiles of split_min bytes or more are decoded on two threads (-1, the default: never; see K(fold));
 * stop_second 0 has the first thread wait for the whole second half (tests: on a small profile the first half
 * is done before the second thread starts, and would stop it at once). */
static PyObject *fold_samples(PyObject *self, PyObject *args) {
    Py_buffer in, lookup, start, flat;
    Py_ssize_t n_samples, k, n_types, max_frames, n_names, split_min = -1;
    int width, stop_second = 1;
    if (!PyArg_ParseTuple(args, "y*nnny*y*y*inn|np", &in, &n_samples, &k, &n_types, &lookup, &start, &flat, &width,
                          &max_frames, &n_names, &split_min, &stop_second))
        return NULL;
    PyObject *result = NULL;
    fold_tables t = {k, n_types, lookup.len / 4, lookup.buf, flat.buf, start.buf, 1, max_frames, NULL, n_names, NULL, NULL};
    if (frame_width(width) || n_samples < 0 || k < 0 || k >= n_types || n_names < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad sample count or type");
        goto done;
    }
    for (Py_ssize_t x = 0; x < flat.len / 4; x++)  /* every frame written is one of these: checked once */
        if (t.loc_frames[x] < 0 || t.loc_frames[x] >= n_names) {
            PyErr_SetString(PyExc_ValueError, "bad location table");
            goto done;
        }
    size_t m = (size_t)(n_names ? n_names : 1);
    t.self = PyMem_Calloc(m, 8);
    t.acc = PyMem_Malloc(m * sizeof(tally));
    if (!t.self || !t.acc) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t x = 0; x < n_names; x++) t.acc[x] = (tally){0, -1};
    Py_ssize_t n_locs = start.len / 8 - 1;
    for (Py_ssize_t li = 0; li < n_locs; li++) {
        int64_t lines = t.loc_start[li + 1] - t.loc_start[li];
        if (lines < 1 || t.loc_start[li] < 0 || t.loc_start[li + 1] > flat.len / 4) {
            PyErr_SetString(PyExc_ValueError, "bad location table");
            goto done;
        }
        if (lines > t.max_lines) t.max_lines = lines;
    }
    if (!(t.frame_of = PyMem_Malloc((size_t)(t.n_lookup ? t.n_lookup : 1) * sizeof(int32_t)))) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t id = 0; id < t.n_lookup; id++) {
        int32_t li = t.lookup[id];
        if (li >= n_locs) { PyErr_SetString(PyExc_ValueError, "bad location lookup"); goto done; }
        t.frame_of[id] = li < 0 ? MISSING : t.loc_start[li + 1] - t.loc_start[li] > 1 ? INLINED
                       : t.loc_frames[t.loc_start[li]];
    }
    result = width == 2 ? fold_u16(in.buf, in.len, n_samples, &t, split_min, stop_second)
                        : fold_i32(in.buf, in.len, n_samples, &t, split_min, stop_second);
done:
    PyMem_Free(t.frame_of); PyMem_Free(t.self); PyMem_Free(t.acc);
    PyBuffer_Release(&in); PyBuffer_Release(&lookup); PyBuffer_Release(&start); PyBuffer_Release(&flat);
    return result;
}

/* self_and_total(offsets int64, frames, values int64, n_funcs, width) -> (self bytes, total bytes) */
static PyObject *self_and_total(PyObject *self, PyObject *args) {
    Py_buffer off, fr, val;
    Py_ssize_t n_funcs;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*ni", &off, &fr, &val, &n_funcs, &width)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = val.len / 8, m = n_funcs > 0 ? n_funcs : 1;
    int64_t *s = PyMem_Calloc((size_t)m, 8), *t = PyMem_Malloc((size_t)m * 8);
    tally *acc = PyMem_Malloc((size_t)m * sizeof(tally));
    if (frame_width(width)) goto done;
    if (!s || !t || !acc) { PyErr_NoMemory(); goto done; }
    if (off.len / 8 != n + 1) { PyErr_SetString(PyExc_ValueError, "bad offsets"); goto done; }
    for (Py_ssize_t i = 0; i < m; i++) acc[i] = (tally){0, -1};
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = width == 2 ? self_and_total_u16(off.buf, n, fr.buf, fr.len / 2, val.buf, n_funcs, s, acc)
                     : self_and_total_i32(off.buf, n, fr.buf, fr.len / 4, val.buf, n_funcs, s, acc);
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < m; i++) t[i] = acc[i].total;
    if (!raise_bad(bad)) result = Py_BuildValue("(y#y#)", (char *)s, n_funcs * 8, (char *)t, n_funcs * 8);
done:
    PyMem_Free(s); PyMem_Free(t); PyMem_Free(acc);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&val);
    return result;
}

/* attribute(offsets, frames, code uint8[names], cat int64[names], other, interpreter, unresolved, width)
 * -> (category per stack, site name id per stack), both int64 bytes. */
static PyObject *attribute(PyObject *self, PyObject *args) {
    Py_buffer off, fr, cd, ct;
    long long other, interp_id, unresolved_id;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*LLLi", &off, &fr, &cd, &ct, &other, &interp_id, &unresolved_id, &width))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = off.len / 8 - 1;
    int64_t *out_cat = PyMem_Malloc((size_t)(n > 0 ? n : 1) * 8), *out_site = PyMem_Malloc((size_t)(n > 0 ? n : 1) * 8);
    const int64_t fallback[] = {other, interp_id, unresolved_id};
    if (frame_width(width)) goto done;
    if (!out_cat || !out_site) { PyErr_NoMemory(); goto done; }
    if (cd.len * 8 != ct.len) { PyErr_SetString(PyExc_ValueError, "code and category tables differ"); goto done; }
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = width == 2 ? attribute_u16(off.buf, n, fr.buf, fr.len / 2, cd.buf, cd.len, ct.buf, fallback, out_cat, out_site)
                     : attribute_i32(off.buf, n, fr.buf, fr.len / 4, cd.buf, cd.len, ct.buf, fallback, out_cat, out_site);
    Py_END_ALLOW_THREADS
    if (!raise_bad(bad)) result = Py_BuildValue("(y#y#)", (char *)out_cat, n * 8, (char *)out_site, n * 8);
done:
    PyMem_Free(out_cat); PyMem_Free(out_site);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&cd); PyBuffer_Release(&ct);
    return result;
}

#define MAX_TARGETS 16

/* The checks of heaviest_paths, find_calls and walk_calls: a frame width, 1 to 16 distinct targets among
 * the names, offsets of n stacks that fit the frames; then the slot of every frame id (the target's
 * index, -1 for none, BAD_SLOT past the names), which the caller frees. NULL with the error set. */
static int8_t *target_slots(const Py_buffer *off, Py_ssize_t n, const Py_buffer *fr, const Py_buffer *tg,
                            Py_ssize_t n_names, int width) {
    const int32_t *targets = tg->buf;
    Py_ssize_t k = tg->len / 4;
    if (frame_width(width)) return NULL;
    if (k < 1 || k > MAX_TARGETS) { PyErr_SetString(PyExc_ValueError, "1 to 16 targets"); return NULL; }
    for (Py_ssize_t t = 0; t < k; t++)
        if (targets[t] < 0 || targets[t] >= n_names) { PyErr_SetString(PyExc_ValueError, "bad target"); return NULL; }
    if (off->len / 8 != n + 1 || check_offsets(off->buf, n, fr->len / width)) {
        PyErr_SetString(PyExc_ValueError, "bad offsets");
        return NULL;
    }
    /* uint16 frames index a table of every uint16 value, ids past the names marked bad: the scan
     * over every frame then needs no bounds test of its own */
    Py_ssize_t n_slots = width == 2 && n_names < 65536 ? 65536 : n_names;
    int8_t *slot = PyMem_RawMalloc((size_t)(n_slots ? n_slots : 1));
    if (!slot) { PyErr_NoMemory(); return NULL; }
    memset(slot, -1, (size_t)n_names);
    memset(slot + n_names, BAD_SLOT, (size_t)(n_slots - n_names));
    for (Py_ssize_t t = 0; t < k; t++) {  /* each walk compacts its own lists: targets must differ */
        if (slot[targets[t]] >= 0) { PyErr_SetString(PyExc_ValueError, "targets repeat"); PyMem_RawFree(slot); return NULL; }
        slot[targets[t]] = (int8_t)t;
    }
    return slot;
}

/* Each of the k targets' calls in the stacks first..end-1 (without the GIL): into stack and reach, k
 * rows of end - first, alive[t] of them in target t's row. 0, or the error set. in_order: the pass in
 * memory order (find_calls: the handoff's allocation sites, mid-stack), else from each leaf
 * (heaviest_paths: the summary's chain to the top consumer by self, a leaf frame, met at once). */
static int find_rows(const Py_buffer *off, const Py_buffer *fr, const int8_t *slot, Py_ssize_t k, Py_ssize_t n_names,
                     int width, Py_ssize_t first, Py_ssize_t end, int in_order, int64_t *stack, int32_t *reach,
                     Py_ssize_t *alive) {
    const int64_t *o = (const int64_t *)off->buf + first;
    Py_ssize_t m = end - first;
    int bad;
    Py_BEGIN_ALLOW_THREADS
    if (in_order)
        bad = width == 2 ? find_in_order_u16(o, m, fr->buf, n_names, slot, stack, reach, alive)
                         : find_in_order_i32(o, m, fr->buf, n_names, slot, stack, reach, alive);
    else
        bad = width == 2 ? find_targets_u16(o, m, fr->buf, n_names, slot, k, stack, reach, alive)
                         : find_targets_i32(o, m, fr->buf, n_names, slot, k, stack, reach, alive);
    Py_END_ALLOW_THREADS
    return raise_bad(bad);
}

/* The walks to each target from its calls: target t's are stack[from[t] ..] and reach[from[t] ..],
 * alive[t] of them (reach is compacted in place). The walks run without the GIL (the CLI walks chains
 * while another thread attributes every stack, or walks the other chains); the lists are made after:
 * a path per target, [(name id, width), ...] from the root. */
static PyObject *walk_rows(const Py_buffer *off, const Py_buffer *fr, const Py_buffer *val, const int32_t *targets,
                           Py_ssize_t k, Py_ssize_t n_names, int width, const int64_t *stack, int32_t *reach,
                           const Py_ssize_t *from, const Py_ssize_t *alive) {
    PyObject *result = NULL;
    Py_ssize_t n = val->len / 8, room[MAX_TARGETS] = {0}, n_steps[MAX_TARGETS] = {0};
    int32_t *step_id[MAX_TARGETS] = {0}; int64_t *step_width[MAX_TARGETS] = {0};
    int64_t *width_of = PyMem_RawCalloc((size_t)(n_names ? n_names : 1), 8);
    int32_t *seen = PyMem_RawMalloc((size_t)(n ? n : 1) * 4);
    int bad = 0;
    if (!width_of || !seen) { PyErr_NoMemory(); goto done; }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t t = 0; t < k && !bad; t++) {
        int32_t deepest = 0;  /* a walk takes one step per depth, up to the deepest reach */
        for (Py_ssize_t j = 0; j < alive[t]; j++) deepest = reach[from[t] + j] > deepest ? reach[from[t] + j] : deepest;
        room[t] = (Py_ssize_t)deepest + 1;
        step_id[t] = PyMem_RawMalloc((size_t)room[t] * 4);
        step_width[t] = PyMem_RawMalloc((size_t)room[t] * 8);
        if (!step_id[t] || !step_width[t]) { bad = WALK_NO_MEMORY; break; }
        bad = width == 2
            ? walk_u16(off->buf, fr->buf, val->buf, targets[t], stack + from[t], reach + from[t], alive[t], n_names,
                       width_of, seen, step_id[t], step_width[t], room[t], &n_steps[t])
            : walk_i32(off->buf, fr->buf, val->buf, targets[t], stack + from[t], reach + from[t], alive[t], n_names,
                       width_of, seen, step_id[t], step_width[t], room[t], &n_steps[t]);
    }
    Py_END_ALLOW_THREADS
    if (bad == WALK_NO_MEMORY) { PyErr_NoMemory(); goto done; }
    if (raise_bad(bad) || !(result = PyList_New(k))) goto done;
    for (Py_ssize_t t = 0; t < k; t++) {
        PyObject *steps = PyList_New(n_steps[t]);
        if (!steps) { Py_CLEAR(result); goto done; }
        PyList_SET_ITEM(result, t, steps);
        for (Py_ssize_t x = 0; x < n_steps[t]; x++) {
            PyObject *step = Py_BuildValue("(iL)", step_id[t][x], (long long)step_width[t][x]);
            if (!step) { Py_CLEAR(result); goto done; }
            PyList_SET_ITEM(steps, x, step);
        }
    }
done:
    for (Py_ssize_t t = 0; t < MAX_TARGETS; t++) { PyMem_RawFree(step_id[t]); PyMem_RawFree(step_width[t]); }
    PyMem_RawFree(width_of); PyMem_RawFree(seen);
    return result;
}

/* heaviest_paths(offsets, frames, values, targets int32[k <= 16], n_names, width) -> [path per target]:
 * one pass over the frames finds each target's innermost call in every stack, then one walk each;
 * a path is [(name id, width), ...] from the root. */
static PyObject *heaviest_paths(PyObject *self, PyObject *args) {
    Py_buffer off, fr, val, tg;
    Py_ssize_t n_names;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*ni", &off, &fr, &val, &tg, &n_names, &width)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = val.len / 8, k = tg.len / 4, alive[MAX_TARGETS] = {0}, from[MAX_TARGETS];
    int64_t *stack = NULL; int32_t *reach = NULL;
    int8_t *slot = target_slots(&off, n, &fr, &tg, n_names, width);
    if (!slot) goto done;
    stack = PyMem_RawMalloc((size_t)(n ? n : 1) * (size_t)k * 8);
    reach = PyMem_RawMalloc((size_t)(n ? n : 1) * (size_t)k * 4);
    if (!stack || !reach) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t t = 0; t < k; t++) from[t] = t * n;
    if (!find_rows(&off, &fr, slot, k, n_names, width, 0, n, 0, stack, reach, alive))
        result = walk_rows(&off, &fr, &val, tg.buf, k, n_names, width, stack, reach, from, alive);
done:
    PyMem_RawFree(stack); PyMem_RawFree(reach); PyMem_RawFree(slot);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&val); PyBuffer_Release(&tg);
    return result;
}

/* find_calls(offsets, frames, targets int32[k <= 16], n_names, width, first, end) -> (stacks, depths, counts):
 * heaviest_paths' pass over the stacks first..end-1 only, so that two threads can share a profile's:
 * each target's stacks holding it (int64, ascending) and the depth of its innermost call there (int32),
 * one target's after the other's, counts[t] of target t. walk_calls walks from them. */
static PyObject *find_calls(PyObject *self, PyObject *args) {
    Py_buffer off, fr, tg;
    Py_ssize_t n_names, first, end;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*ninn", &off, &fr, &tg, &n_names, &width, &first, &end)) return NULL;
    PyObject *result = NULL, *stacks = NULL, *depths = NULL, *counts = NULL;
    Py_ssize_t n = off.len / 8 - 1, k = tg.len / 4, alive[MAX_TARGETS] = {0}, m = end - first, total = 0;
    int64_t *stack = NULL; int32_t *reach = NULL;
    int8_t *slot = target_slots(&off, n, &fr, &tg, n_names, width);
    if (!slot) goto done;
    if (first < 0 || first > end || end > n) { PyErr_SetString(PyExc_ValueError, "bad stack range"); goto done; }
    stack = PyMem_RawMalloc((size_t)(m ? m : 1) * (size_t)k * 8);
    reach = PyMem_RawMalloc((size_t)(m ? m : 1) * (size_t)k * 4);
    if (!stack || !reach) { PyErr_NoMemory(); goto done; }
    if (find_rows(&off, &fr, slot, k, n_names, width, first, end, 1, stack, reach, alive)) goto done;
    for (Py_ssize_t t = 0; t < k; t++) total += alive[t];
    if (!(stacks = PyBytes_FromStringAndSize(NULL, total * 8)) || !(depths = PyBytes_FromStringAndSize(NULL, total * 4)) ||
        !(counts = PyTuple_New(k)))
        goto done;
    int64_t *s_out = (int64_t *)PyBytes_AS_STRING(stacks);
    int32_t *d_out = (int32_t *)PyBytes_AS_STRING(depths);
    for (Py_ssize_t t = 0, at = 0; t < k; t++) {
        for (Py_ssize_t j = 0; j < alive[t]; j++, at++) { s_out[at] = stack[t * m + j] + first; d_out[at] = reach[t * m + j]; }
        PyObject *count = PyLong_FromSsize_t(alive[t]);
        if (!count) goto done;
        PyTuple_SET_ITEM(counts, t, count);
    }
    result = PyTuple_Pack(3, stacks, depths, counts);
done:
    Py_XDECREF(stacks); Py_XDECREF(depths); Py_XDECREF(counts);
    PyMem_RawFree(stack); PyMem_RawFree(reach); PyMem_RawFree(slot);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&tg);
    return result;
}

/* walk_calls(offsets, frames, values, targets int32[k <= 16], stacks int64, depths int32, counts, n_names, width)
 * -> [path per target]: heaviest_paths' walks, from the calls find_calls found (one target's after the
 * other's, counts[t] of target t). Each call is checked to lie inside its stack before any is walked. */
static PyObject *walk_calls(PyObject *self, PyObject *args) {
    Py_buffer off, fr, val, tg, st, dp;
    PyObject *counts;
    Py_ssize_t n_names;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*y*y*O!ni", &off, &fr, &val, &tg, &st, &dp, &PyTuple_Type, &counts, &n_names,
                          &width))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = val.len / 8, k = tg.len / 4, total = st.len / 8, alive[MAX_TARGETS] = {0}, from[MAX_TARGETS];
    const int64_t *o = off.buf, *stack = st.buf;
    int32_t *reach = NULL;
    int8_t *slot = target_slots(&off, n, &fr, &tg, n_names, width);
    if (!slot) goto done;
    if (PyTuple_GET_SIZE(counts) != k || dp.len / 4 != total) { PyErr_SetString(PyExc_ValueError, "bad calls"); goto done; }
    for (Py_ssize_t t = 0, at = 0; t < k; t++) {
        alive[t] = PyLong_AsSsize_t(PyTuple_GET_ITEM(counts, t));
        if (alive[t] < 0 || alive[t] > total - at) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "bad calls");
            goto done;
        }
        from[t] = at;
        at += alive[t];
    }
    reach = PyMem_RawMalloc((size_t)(total ? total : 1) * 4);  /* a copy: the walks compact it in place */
    if (!reach) { PyErr_NoMemory(); goto done; }
    memcpy(reach, dp.buf, (size_t)total * 4);
    for (Py_ssize_t j = 0; j < total; j++)  /* a walk reads a stack's frames up to its call's depth */
        if (stack[j] < 0 || stack[j] >= n || reach[j] < 0 || reach[j] >= o[stack[j] + 1] - o[stack[j]]) {
            PyErr_SetString(PyExc_ValueError, "bad calls");
            goto done;
        }
    result = walk_rows(&off, &fr, &val, tg.buf, k, n_names, width, stack, reach, from, alive);
done:
    PyMem_RawFree(reach); PyMem_RawFree(slot);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&val); PyBuffer_Release(&tg);
    PyBuffer_Release(&st); PyBuffer_Release(&dp);
    return result;
}

/* stacks_with(offsets, frames, wanted uint8[names], width) -> one byte per stack: holds a wanted frame. */
static PyObject *stacks_with(PyObject *self, PyObject *args) {
    Py_buffer off, fr, wa;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*i", &off, &fr, &wa, &width)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = off.len / 8 - 1;
    if (frame_width(width) || raise_bad(check_offsets(off.buf, n, fr.len / width))) goto done;
    if (!(result = PyBytes_FromStringAndSize(NULL, n > 0 ? n : 0))) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);  /* a new object no one else holds yet */
    int bad;
    Py_BEGIN_ALLOW_THREADS
    bad = width == 2 ? stacks_with_u16(off.buf, n, fr.buf, wa.buf, wa.len, out)
                     : stacks_with_i32(off.buf, n, fr.buf, wa.buf, wa.len, out);
    Py_END_ALLOW_THREADS
    if (raise_bad(bad)) Py_CLEAR(result);
done:
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&wa);
    return result;
}

typedef struct { int64_t *func, *parent, *depth, *self, *total; Py_ssize_t n, cap; } node_table;

static int add_node(node_table *t, int64_t func, int64_t parent, int64_t depth, int64_t self, int64_t total) {
    if (t->n == t->cap) {
        Py_ssize_t cap = t->cap ? t->cap * 2 : 1024;
        int64_t **cols[] = {&t->func, &t->parent, &t->depth, &t->self, &t->total};
        for (int c = 0; c < 5; c++) {
            int64_t *grown = PyMem_Realloc(*cols[c], (size_t)cap * 8);
            if (!grown) { PyErr_NoMemory(); return -1; }
            *cols[c] = grown;
        }
        t->cap = cap;
    }
    t->func[t->n] = func; t->parent[t->n] = parent; t->depth[t->n] = depth; t->self[t->n] = self; t->total[t->n] = total;
    t->n++;
    return 0;
}

typedef struct { int64_t key; int32_t entry; } ranked_key;

static int by_key(const void *a, const void *b) {
    int64_t x = ((const ranked_key *)a)->key, y = ((const ranked_key *)b)->key;
    return (x > y) - (x < y);
}

static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* After a level is grouped: the groups in key order (as numpy's unique gives them), those that can
 * still be among the `bound` widest kept as nodes, and the walk items that grow on. */
static int close_level(grow_state *g, const grow_walk *w, int64_t d, Py_ssize_t bound, int64_t *widest,
                       Py_ssize_t *n_widest, node_table *nodes) {
    keyed *k = &g->keys;
    Py_ssize_t n = k->n;
    ranked_key *order = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(ranked_key));
    int64_t *id_of = PyMem_Malloc((size_t)(n ? n : 1) * 8);
    if (!order || !id_of) { PyMem_Free(order); PyMem_Free(id_of); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t e = 0; e < n; e++) order[e] = (ranked_key){k->key[e], (int32_t)e};
    qsort(order, (size_t)n, sizeof(ranked_key), by_key);
    int bounded = bound > 0 && *n_widest >= bound;
    int64_t least = bounded ? widest[*n_widest - bound] : 0;  /* the bound-th widest so far */
    Py_ssize_t before = *n_widest;
    for (Py_ssize_t r = 0; r < n; r++) {
        int32_t e = order[r].entry;
        id_of[e] = -1;
        if (bounded && k->total[e] < least) continue;  /* provably outside the widest: left out */
        id_of[e] = nodes->n;
        if (add_node(nodes, k->key[e] % w->width, k->key[e] / w->width, d + 1, k->self[e], k->total[e])) goto fail;
        if (bound > 0) widest[(*n_widest)++] = k->total[e];
    }
    if (bound > 0 && *n_widest > before) {  /* keep the bound widest totals seen, ascending */
        qsort(widest, (size_t)*n_widest, 8, by_value);
        if (*n_widest > bound) {
            memmove(widest, widest + (*n_widest - bound), (size_t)bound * 8);
            *n_widest = bound;
        }
    }
    Py_ssize_t kept = 0;
    for (Py_ssize_t a = 0; a < g->n_active; a++) {
        Py_ssize_t j = g->active[a];
        int64_t id = id_of[g->entry_of[a]];
        g->node_of[j] = id;
        if (id >= 0 && w->lengths[j] != d + 1) { g->col[kept] = g->col[a]; g->active[kept++] = j; }
    }
    g->n_active = kept;
    PyMem_Free(order); PyMem_Free(id_of);
    return 0;
fail:
    PyMem_Free(order); PyMem_Free(id_of);
    return -1;
}

/* grow_tree(frames, starts int64, lengths int64, values int64, step, n_names, bound, width)
 * -> (func, parent, depth, self, total) int64 bytes: analysis/tree.py::_grow, in C. */
static PyObject *grow_tree(PyObject *self, PyObject *args) {
    Py_buffer fr, st, ln, vl;
    long long step;
    Py_ssize_t n_names, bound;
    int width;
    if (!PyArg_ParseTuple(args, "y*y*y*y*Lnni", &fr, &st, &ln, &vl, &step, &n_names, &bound, &width)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t m = vl.len / 8;
    grow_walk w = {st.buf, ln.buf, vl.buf, step, (int64_t)n_names + 1, n_names};
    grow_state g = {0};
    node_table nodes = {0};
    int64_t *widest = NULL;
    void *tile = NULL;
    if (frame_width(width)) goto done;
    if (st.len / 8 != m || ln.len / 8 != m || n_names < 0 || bound < 0 || (step != 1 && step != -1)) {
        PyErr_SetString(PyExc_ValueError, "bad walk");
        goto done;
    }
    size_t room = (size_t)(m ? m : 1);
    g.active = PyMem_Malloc(room * sizeof(Py_ssize_t));
    g.node_of = PyMem_Calloc(room, 8);  /* every walk item starts at the root, node 0 */
    g.entry_of = PyMem_Malloc(room * 4);
    g.col = PyMem_Malloc(room * 4);
    tile = PyMem_Malloc(room * GROW_BLOCK * (size_t)width);
    widest = PyMem_Malloc((size_t)(bound + m + 1) * 8);
    if (!g.active || !g.node_of || !g.entry_of || !g.col || !tile || !widest) { PyErr_NoMemory(); goto done; }
    int64_t grand = 0;
    for (Py_ssize_t j = 0; j < m; j++) {
        grand += w.values[j];
        if (w.lengths[j] > 0) g.active[g.n_active++] = j;
    }
    if (add_node(&nodes, -1, -1, 0, 0, grand)) goto done;
    Py_ssize_t n_widest = 0;
    for (int64_t d = 0; g.n_active; d++) {
        int bad;
        if (d % GROW_BLOCK == 0) {
            bad = width == 2 ? grow_tile_u16(fr.buf, fr.len / 2, &w, d, &g, tile)
                             : grow_tile_i32(fr.buf, fr.len / 4, &w, d, &g, tile);
            if (bad) goto done;
        }
        Py_ssize_t row = (d % GROW_BLOCK) * g.tile_width;
        bad = width == 2 ? grow_level_u16((const uint16_t *)tile + row, &w, d, &g)
                         : grow_level_i32((const int32_t *)tile + row, &w, d, &g);
        if (bad || close_level(&g, &w, d, bound, widest, &n_widest, &nodes)) goto done;
    }
    Py_ssize_t b = nodes.n * 8;
    result = Py_BuildValue("(y#y#y#y#y#)", (char *)nodes.func, b, (char *)nodes.parent, b, (char *)nodes.depth, b,
                           (char *)nodes.self, b, (char *)nodes.total, b);
done:
    PyMem_Free(g.active); PyMem_Free(g.node_of); PyMem_Free(g.entry_of); PyMem_Free(g.col); PyMem_Free(tile);
    PyMem_Free(g.keys.slot_key); PyMem_Free(g.keys.slot_entry);
    PyMem_Free(g.keys.key); PyMem_Free(g.keys.total); PyMem_Free(g.keys.self);
    PyMem_Free(nodes.func); PyMem_Free(nodes.parent); PyMem_Free(nodes.depth); PyMem_Free(nodes.self);
    PyMem_Free(nodes.total); PyMem_Free(widest);
    PyBuffer_Release(&fr); PyBuffer_Release(&st); PyBuffer_Release(&ln); PyBuffer_Release(&vl);
    return result;
}

/* read_buffer(n) -> a bytearray of n bytes that are not zeroed: the buffer a large file is read into
 * (readers/limits.read_capped, which keeps only the bytes the read wrote). A zeroed one would be written
 * twice. Its pages are not asked for as huge ones: on a virtual machine that hands memory back to its host
 * when it is freed (this bench machine), a huge page is always one given back, and writing it costs more
 * than the small pages it saves faults on (8M stacks: 6.3 s with huge pages, 5.0 s without). */
static PyObject *read_buffer(PyObject *self, PyObject *args) {
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "n", &n)) return NULL;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "negative size"); return NULL; }
    PyObject *buf = PyByteArray_FromStringAndSize(NULL, n);
    return buf;
}

static PyMethodDef methods[] = {
    {"grow_tree", grow_tree, METH_VARARGS, "The call tree's nodes, depth by depth, without the provably narrow."},
    {"samples_apart", samples_apart, METH_VARARGS, "The Profile without its samples, and the sample count."},
    {"fold_samples", fold_samples, METH_VARARGS, "Decode a Profile's raw samples into root-first frames."},
    {"self_and_total", self_and_total, METH_VARARGS, "Self and total per function (pprof rules)."},
    {"attribute", attribute, METH_VARARGS, "Memory category and allocation site per stack."},
    {"heaviest_paths", heaviest_paths, METH_VARARGS, "The widest-bar walks to up to 16 target functions."},
    {"find_calls", find_calls, METH_VARARGS, "Each target's calls in a range of stacks: where its walk starts."},
    {"walk_calls", walk_calls, METH_VARARGS, "The widest-bar walks from calls find_calls found."},
    {"stacks_with", stacks_with, METH_VARARGS, "Whether each stack holds a wanted function."},
    {"read_buffer", read_buffer, METH_VARARGS, "A bytearray of n bytes, not zeroed, for a read to fill."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fold", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fold(void) { return PyModule_Create(&module); }
