/*
 * explainer._fold: the two loops that decide analyze's speed on large profiles, in C.
 *
 * fold_samples: decodes pprof Sample messages (kept as raw bytes by the fast schema) into
 *   root-first frame arrays, expanding inlined locations, validating as it goes.
 * self_and_total: pprof's flat and cum per function in one pass, counting a function once
 *   per stack with a "last stack seen" stamp instead of sorting (pair) keys.
 *
 * attribute: the memory category and allocation site of every stack (knowledge/attribution.py),
 *   walking each stack once from the leaf and stopping at the first site or phase frame.
 * heaviest_paths: the widest-bar walks of analysis/chain.py, one pass over the frames for all targets.
 * stacks_with: does a stack hold any of a set of functions, stopping at the first one.
 *
 * Each has a numpy twin in Python (readers/pprof.py, analysis/functions.py, analysis/chain.py,
 * knowledge/attribution.py) that the tests check against; when this module is missing the
 * twins are used.
 * Arrays cross the boundary as bytes / buffer objects, so no numpy C API is needed.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

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

typedef struct { uint64_t *data; Py_ssize_t len, cap; } u64vec;

static int push(u64vec *v, uint64_t x) {
    if (v->len == v->cap) {
        Py_ssize_t cap = v->cap ? v->cap * 2 : 256;
        uint64_t *d = PyMem_Realloc(v->data, (size_t)cap * sizeof(uint64_t));
        if (!d) return -1;
        v->data = d; v->cap = cap;
    }
    v->data[v->len++] = x;
    return 0;
}

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

/* Appends field values (packed or not) to vec. */
static int read_repeated(cursor *c, uint64_t wire, u64vec *vec) {
    uint64_t x;
    if (wire == 0) return read_varint(c, &x) || push(vec, x);
    if (wire != 2) return -1;
    uint64_t n;
    if (read_varint(c, &n) || (uint64_t)(c->end - c->p) < n) return -1;
    cursor inner = {c->p, c->p + n};
    while (inner.p < inner.end)
        if (read_varint(&inner, &x) || push(vec, x)) return -1;
    c->p += n;
    return 0;
}

static PyObject *err(const char *field, Py_ssize_t i, const char *msg) {
    return Py_BuildValue("(sns)", field, i, msg);
}

/* fold_samples(samples, value_index, n_types, loc_lookup, loc_start, loc_flat)
 * -> (offsets bytes, frames bytes, values bytes) or an error tuple (field, index, message). */
static PyObject *fold_samples(PyObject *self, PyObject *args) {
    PyObject *samples;
    Py_ssize_t k, n_types;
    Py_buffer lookup, start, flat;
    if (!PyArg_ParseTuple(args, "Onny*y*y*", &samples, &k, &n_types, &lookup, &start, &flat)) return NULL;
    PyObject *result = NULL;
    /* one sample at a time: a list of every sample's bytes would cost ~70 MB at 500k stacks */
    PyObject *item = NULL;
    u64vec locs = {0}, vals = {0};
    int64_t *offsets = NULL, *values = NULL;
    PyObject *frames_obj = NULL;  /* grown in place with _PyBytes_Resize: no final copy */
    int32_t *frames = NULL;
    Py_ssize_t n = 0, n_frames = 0, cap_frames = 0;
    if ((n = PySequence_Size(samples)) < 0) goto done;
    const int32_t *lk = lookup.buf; Py_ssize_t n_lookup = lookup.len / 4;
    const int64_t *ls = start.buf; const int32_t *lf = flat.buf;
    offsets = PyMem_Malloc((size_t)(n + 1) * sizeof(int64_t));
    values = PyMem_Malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    cap_frames = 1024;
    frames_obj = PyBytes_FromStringAndSize(NULL, cap_frames * 4);
    if (!offsets || !values || !frames_obj) { PyErr_NoMemory(); goto done; }
    frames = (int32_t *)PyBytes_AS_STRING(frames_obj);
    offsets[0] = 0;
    int64_t max_lines = 1;  /* the most frames one location expands to: room is made once per sample */
    for (Py_ssize_t li = 0; li + 1 < start.len / 8; li++)
        if (ls[li + 1] - ls[li] > max_lines) max_lines = ls[li + 1] - ls[li];
    for (Py_ssize_t i = 0; i < n; i++) {
        char *buf; Py_ssize_t len;
        Py_XDECREF(item);
        if (!(item = PySequence_GetItem(samples, i)) || PyBytes_AsStringAndSize(item, &buf, &len)) goto done;
        cursor c = {(const uint8_t *)buf, (const uint8_t *)buf + len};
        locs.len = 0; vals.len = 0;
        while (c.p < c.end) {
            uint64_t tag;
            if (read_varint(&c, &tag)) { result = err("sample", i, "malformed sample message"); goto done; }
            uint64_t field = tag >> 3, wire = tag & 7;
            int bad = field == 1 ? read_repeated(&c, wire, &locs)
                    : field == 2 ? read_repeated(&c, wire, &vals) : skip_field(&c, wire);
            if (bad) { result = err("sample", i, "malformed sample message"); goto done; }
        }
        if (vals.len != n_types) { result = err("value", i, "value count differs from sample types"); goto done; }
        int64_t v = (int64_t)vals.data[k];
        if (v < 0) { result = err("negative", i, "negative value"); goto done; }
        values[i] = v;
        if (n_frames + locs.len * max_lines > cap_frames) {
            while (n_frames + locs.len * max_lines > cap_frames) cap_frames *= 2;
            if (_PyBytes_Resize(&frames_obj, cap_frames * 4)) goto done;
            frames = (int32_t *)PyBytes_AS_STRING(frames_obj);
        }
        for (Py_ssize_t j = locs.len - 1; j >= 0; j--) {  /* leaf first on the wire: reverse */
            uint64_t id = locs.data[j];
            int32_t li = (id < (uint64_t)n_lookup) ? lk[id] : -1;
            if (li < 0) { result = err("location", i, "location does not exist"); goto done; }
            for (int64_t f = ls[li]; f < ls[li + 1]; f++) frames[n_frames++] = lf[f];
        }
        offsets[i + 1] = n_frames;
    }
    if (_PyBytes_Resize(&frames_obj, n_frames * 4)) goto done;
    result = Py_BuildValue("(y#Oy#)", (char *)offsets, (Py_ssize_t)((n + 1) * 8), frames_obj,
                           (char *)values, (Py_ssize_t)(n * 8));
done:
    Py_XDECREF(item);
    Py_XDECREF(frames_obj);
    PyMem_Free(locs.data); PyMem_Free(vals.data);
    PyMem_Free(offsets); PyMem_Free(values);
    PyBuffer_Release(&lookup); PyBuffer_Release(&start); PyBuffer_Release(&flat);
    return result;
}

/* self_and_total(offsets int64, frames int32, values int64, n_funcs) -> (self bytes, total bytes) */
static PyObject *self_and_total(PyObject *self, PyObject *args) {
    Py_buffer off, fr, val;
    Py_ssize_t n_funcs;
    if (!PyArg_ParseTuple(args, "y*y*y*n", &off, &fr, &val, &n_funcs)) return NULL;
    PyObject *result = NULL;
    const int64_t *o = off.buf; const int32_t *f = fr.buf; const int64_t *v = val.buf;
    Py_ssize_t n = val.len / 8, n_frames = fr.len / 4;
    int64_t *s = PyMem_Calloc((size_t)(n_funcs ? n_funcs : 1), sizeof(int64_t));
    int64_t *t = PyMem_Calloc((size_t)(n_funcs ? n_funcs : 1), sizeof(int64_t));
    int64_t *stamp = PyMem_Malloc((size_t)(n_funcs ? n_funcs : 1) * sizeof(int64_t));
    if (!s || !t || !stamp) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t i = 0; i < n_funcs; i++) stamp[i] = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = o[i], hi = o[i + 1];
        if (lo < 0 || hi > n_frames || lo > hi) { PyErr_SetString(PyExc_ValueError, "bad offsets"); goto done; }
        const int64_t vi = v[i];  /* a local: the stores to t could alias v and force a reload per frame */
        for (int64_t p = lo; p < hi; p++) {
            uint32_t fn = (uint32_t)f[p];
            if (fn >= (uint32_t)n_funcs) { PyErr_SetString(PyExc_ValueError, "bad frame id"); goto done; }
            if (stamp[fn] != i) { stamp[fn] = i; t[fn] += vi; }
        }
        if (hi > lo) s[f[hi - 1]] += vi;
    }
    result = Py_BuildValue("(y#y#)", (char *)s, n_funcs * 8, (char *)t, n_funcs * 8);
done:
    PyMem_Free(s); PyMem_Free(t); PyMem_Free(stamp);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&val);
    return result;
}

/* Checks the offsets once (a pass over stacks, not frames); frame ids are checked as they are read. */
static int check_offsets(const int64_t *o, Py_ssize_t n, Py_ssize_t n_frames) {
    if (n < 0 || o[0] != 0 || o[n] != n_frames) goto bad;
    for (Py_ssize_t i = 0; i < n; i++)
        if (o[i + 1] <= o[i]) goto bad;  /* from_arrays drops empty stacks */
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "bad offsets");
    return -1;
}

/* Frame ids are checked where first read: every later read is of a position already checked. */
#define CHECK_ID(p, bound) if ((uint32_t)f[p] >= (uint32_t)(bound)) goto bad_id

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(addr) __builtin_prefetch(addr)
#else
#define PREFETCH(addr) ((void)0)
#endif

/* The bits of knowledge/attribution.py's per-name code table. */
enum { STRONG = 1, WEAK = 2, APP = 4, CARRIER = 8, UNRESOLVED = 16, INTERP = 32 };

/* attribute(offsets, frames, code uint8[names], cat int64[names], other, interpreter, unresolved)
 * -> (category per stack, site name id per stack), both int64 bytes. */
static PyObject *attribute(PyObject *self, PyObject *args) {
    Py_buffer off, fr, cd, ct;
    long long other, interp_id, unresolved_id;
    if (!PyArg_ParseTuple(args, "y*y*y*y*LLL", &off, &fr, &cd, &ct, &other, &interp_id, &unresolved_id)) return NULL;
    PyObject *result = NULL;
    const int64_t *o = off.buf, *cat = ct.buf; const int32_t *f = fr.buf; const uint8_t *code = cd.buf;
    Py_ssize_t n = off.len / 8 - 1, n_frames = fr.len / 4;
    int64_t *out_cat = PyMem_Malloc((size_t)(n > 0 ? n : 1) * 8), *out_site = PyMem_Malloc((size_t)(n > 0 ? n : 1) * 8);
    if (!out_cat || !out_site) { PyErr_NoMemory(); goto done; }
    if (cd.len * 8 != ct.len) { PyErr_SetString(PyExc_ValueError, "code and category tables differ"); goto done; }
    if (check_offsets(o, n, n_frames)) goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = o[i], hi = o[i + 1], strong = -1, weak = -1, app = -1, carrier = -1;
        uint8_t seen = 0;  /* the kinds met so far: a position is kept only the first time */
        for (int64_t p = hi - 1; p >= lo; p--) {  /* leaf to root: the nearest frame of each kind */
            CHECK_ID(p, cd.len);
            uint8_t fresh = code[f[p]] & ~seen;
            if (!fresh) continue;  /* the common case, and a well-predicted branch */
            seen |= fresh;
            if (fresh & APP) app = p;
            if (fresh & WEAK) weak = p;
            if (fresh & CARRIER) carrier = p;
            if (fresh & STRONG) { strong = p; break; }  /* decides; nothing nearer the root matters */
        }
        int interp = (seen & INTERP) != 0;
        int64_t decider = strong >= 0 ? strong : weak, k;
        if (decider >= 0) {
            k = cat[f[decider]];
        } else {
            /* raw addresses between the requester (or the root) and the first carrier after it */
            int gap = 0;
            for (int64_t p = (app >= 0 ? app : lo - 1) + 1; p < hi; p++) {
                uint8_t c = code[f[p]];
                if (c & CARRIER) break;
                if (c & UNRESOLVED) { gap = 1; break; }
            }
            k = gap ? unresolved_id : app < 0 && carrier >= 0 ? cat[f[carrier]] : app < 0 && interp ? interp_id : other;
        }
        out_cat[i] = k;
        out_site[i] = f[app >= 0 ? app : hi - 1];
    }
    result = Py_BuildValue("(y#y#)", (char *)out_cat, n * 8, (char *)out_site, n * 8);
    goto done;
bad_id:
    Py_CLEAR(result);
    PyErr_SetString(PyExc_ValueError, "bad frame id");
done:
    PyMem_Free(out_cat); PyMem_Free(out_site);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&cd); PyBuffer_Release(&ct);
    return result;
}

/* The widest-bar walk over the `alive` stacks holding target (reach: its depth in each): at each
 * depth, step to the frame with the largest summed value (the lowest id on ties, as numpy's argmax)
 * among the stacks agreeing so far, until target. Returns [(name id, width), ...] from the root. */
static PyObject *walk(const int64_t *o, const int32_t *f, const int64_t *v, int32_t target, int64_t *stack,
                      int32_t *reach, Py_ssize_t alive, int64_t *width, int32_t *here) {
    PyObject *steps = PyList_New(0);
    if (!steps) return NULL;
    for (int64_t d = 0; alive; d++) {
        for (Py_ssize_t j = 0; j < alive; j++) {  /* the one strided read of each stack per depth */
            if (j + 16 < alive) PREFETCH(&f[o[stack[j + 16]] + d]);  /* else a cache miss each */
            here[j] = f[o[stack[j]] + d];
            width[here[j]] += v[stack[j]];
        }
        int32_t choice = here[0];
        for (Py_ssize_t j = 0; j < alive; j++)
            if (width[here[j]] > width[choice] || (width[here[j]] == width[choice] && here[j] < choice)) choice = here[j];
        PyObject *step = Py_BuildValue("(iL)", choice, (long long)width[choice]);
        if (!step || PyList_Append(steps, step)) { Py_XDECREF(step); Py_DECREF(steps); return NULL; }
        Py_DECREF(step);
        for (Py_ssize_t j = 0; j < alive; j++) width[here[j]] = 0;
        if (choice == target) break;
        Py_ssize_t kept = 0;  /* the stacks that follow the chain and reach target deeper still */
        for (Py_ssize_t j = 0; j < alive; j++)
            if (here[j] == choice && reach[j] > d) { stack[kept] = stack[j]; reach[kept++] = reach[j]; }
        alive = kept;
    }
    return steps;
}

#define MAX_TARGETS 16

/* heaviest_paths(offsets, frames, values, targets int32[k <= 16], n_names) -> [path per target]:
 * one pass over the frames finds each target's outermost call in every stack, then one walk each. */
static PyObject *heaviest_paths(PyObject *self, PyObject *args) {
    Py_buffer off, fr, val, tg;
    Py_ssize_t n_names;
    if (!PyArg_ParseTuple(args, "y*y*y*y*n", &off, &fr, &val, &tg, &n_names)) return NULL;
    PyObject *result = NULL;
    const int64_t *o = off.buf, *v = val.buf; const int32_t *f = fr.buf, *targets = tg.buf;
    Py_ssize_t n = val.len / 8, k = tg.len / 4, alive[MAX_TARGETS] = {0};
    int64_t *stack = NULL, *width = NULL; int32_t *reach = NULL, *here = NULL; int8_t *slot = NULL;
    if (k < 1 || k > MAX_TARGETS) { PyErr_SetString(PyExc_ValueError, "1 to 16 targets"); goto done; }
    for (Py_ssize_t t = 0; t < k; t++)
        if (targets[t] < 0 || targets[t] >= n_names) { PyErr_SetString(PyExc_ValueError, "bad target"); goto done; }
    if (off.len / 8 != n + 1 || check_offsets(o, n, fr.len / 4)) goto done;
    stack = PyMem_Malloc((size_t)(n ? n : 1) * (size_t)k * 8);
    reach = PyMem_Malloc((size_t)(n ? n : 1) * (size_t)k * 4);
    width = PyMem_Calloc((size_t)(n_names ? n_names : 1), 8);
    here = PyMem_Malloc((size_t)(n ? n : 1) * 4);
    slot = PyMem_Malloc((size_t)(n_names ? n_names : 1));
    if (!stack || !reach || !width || !here || !slot) { PyErr_NoMemory(); goto done; }
    memset(slot, -1, (size_t)n_names);
    for (Py_ssize_t t = 0; t < k; t++) {  /* each walk compacts its own lists: targets must differ */
        if (slot[targets[t]] >= 0) { PyErr_SetString(PyExc_ValueError, "targets repeat"); goto done; }
        slot[targets[t]] = (int8_t)t;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t seen = 0;
        for (int64_t p = o[i]; p < o[i + 1]; p++) {
            CHECK_ID(p, n_names);
            int t = slot[f[p]];
            if (t >= 0 && !(seen & (1u << t))) {
                seen |= 1u << t;
                stack[t * n + alive[t]] = i; reach[t * n + alive[t]++] = (int32_t)(p - o[i]);
            }
        }
    }
    if (!(result = PyList_New(k))) goto done;
    for (Py_ssize_t t = 0; t < k; t++) {
        PyObject *steps = walk(o, f, v, targets[t], stack + t * n, reach + t * n, alive[t], width, here);
        if (!steps) { Py_CLEAR(result); goto done; }
        PyList_SET_ITEM(result, t, steps);
    }
    goto done;
bad_id:
    Py_CLEAR(result);
    PyErr_SetString(PyExc_ValueError, "bad frame id");
done:
    PyMem_Free(stack); PyMem_Free(reach); PyMem_Free(width); PyMem_Free(here); PyMem_Free(slot);
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&val); PyBuffer_Release(&tg);
    return result;
}

/* stacks_with(offsets, frames, wanted uint8[names]) -> one byte per stack: holds a wanted frame. */
static PyObject *stacks_with(PyObject *self, PyObject *args) {
    Py_buffer off, fr, wa;
    if (!PyArg_ParseTuple(args, "y*y*y*", &off, &fr, &wa)) return NULL;
    PyObject *result = NULL;
    const int64_t *o = off.buf; const int32_t *f = fr.buf; const uint8_t *wanted = wa.buf;
    Py_ssize_t n = off.len / 8 - 1;
    if (check_offsets(o, n, fr.len / 4)) goto done;
    if (!(result = PyBytes_FromStringAndSize(NULL, n > 0 ? n : 0))) goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(result);
    for (Py_ssize_t i = 0; i < n; i++) {
        out[i] = 0;
        for (int64_t p = o[i]; p < o[i + 1]; p++) {  /* root first: callers, the usual query, come early */
            CHECK_ID(p, wa.len);
            if (wanted[f[p]]) { out[i] = 1; break; }
        }
    }
    goto done;
bad_id:
    Py_CLEAR(result);
    PyErr_SetString(PyExc_ValueError, "bad frame id");
done:
    PyBuffer_Release(&off); PyBuffer_Release(&fr); PyBuffer_Release(&wa);
    return result;
}

static PyMethodDef methods[] = {
    {"fold_samples", fold_samples, METH_VARARGS, "Decode raw pprof samples into root-first frames."},
    {"self_and_total", self_and_total, METH_VARARGS, "Self and total per function (pprof rules)."},
    {"attribute", attribute, METH_VARARGS, "Memory category and allocation site per stack."},
    {"heaviest_paths", heaviest_paths, METH_VARARGS, "The widest-bar walks to up to 16 target functions."},
    {"stacks_with", stacks_with, METH_VARARGS, "Whether each stack holds a wanted function."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_fold", NULL, -1, methods};

PyMODINIT_FUNC PyInit__fold(void) { return PyModule_Create(&module); }
