/*
 * The per-frame loops of explainer/_fold.c, written once for a frame type FT and included twice:
 * frames are uint16 when a profile has at most 65,535 function names (half the memory and the
 * memory traffic of every pass over a large profile), int32 otherwise. K(name) names each copy.
 *
 * Before including: FT (the frame type) and SUFFIX (u16 or i32).
 */
#define K_(name, suffix) name##_##suffix
#define K2(name, suffix) K_(name, suffix)
#define K(name) K2(name, SUFFIX)

/* Room for `need` frames in fb, past its pre-size (inlined lines): the resize needs the GIL, briefly.
 * A split fold's second half has no GIL to take: it gives up, and the first thread folds its samples. */
static int K(grow)(frames_buf *fb, Py_ssize_t need, fold_fail *fail) {
    if (!fb->ts) { fail->state = FOLD_GAVE_UP; return -1; }
    while (need > fb->cap) fb->cap *= 2;
    PyEval_RestoreThread(fb->ts);
    int grown = _PyBytes_Resize(&fb->obj, fb->cap * (Py_ssize_t)sizeof(FT));
    fb->ts = PyEval_SaveThread();
    if (grown) { fail->state = FOLD_RAISED; return -1; }
    fb->data = PyBytes_AS_STRING(fb->obj);
    return 0;
}

/* Appends one Sample message's frames (root first, inlined lines expanded) to fb, growing it.
 * Runs without the GIL: failures are recorded in *fail, never raised here. */
static int K(fold_one)(cursor c, Py_ssize_t i, const fold_tables *t, ids *locs, ids *vals, frames_buf *fb,
                       int64_t *value, fold_fail *fail) {
    locs->len = 0; vals->len = 0;
    while (c.p < c.end) {
        uint64_t tag;
        if (read_varint(&c, &tag)) goto malformed;
        uint64_t field = tag >> 3, wire = tag & 7;
        int bad = field == 1 ? read_repeated(&c, wire, locs) : field == 2 ? read_repeated(&c, wire, vals) : skip_field(&c, wire);
        if (bad == -2) { fail->state = FOLD_NO_MEMORY; return -1; }
        if (bad) goto malformed;
    }
    if (vals->len != t->n_types) { *fail = (fold_fail){FOLD_TUPLE, "value", "value count differs from sample types", i}; return -1; }
    int64_t v = (int64_t)vals->data[t->k];
    if (v < 0) { *fail = (fold_fail){FOLD_TUPLE, "negative", "negative value", i}; return -1; }
    *value = v;
    Py_ssize_t need = fb->n + locs->len * t->max_lines;  /* room for the worst case */
    if (need > t->max_frames) {  /* perhaps an expansion bomb (locations of many inlined lines): count */
        need = fb->n;
        for (Py_ssize_t j = 0; j < locs->len; j++) {
            uint64_t id = locs->data[j];
            int32_t li = id < (uint64_t)t->n_lookup ? t->lookup[id] : -1;
            need += li < 0 ? 1 : t->loc_start[li + 1] - t->loc_start[li];
        }
        if (need > t->max_frames) { *fail = (fold_fail){FOLD_TUPLE, "frames", "too many frames", i}; return -1; }
    }
    if (need > fb->cap && K(grow)(fb, need, fail)) return -1;
    FT *out = (FT *)fb->data;
    Py_ssize_t n = fb->n;
    const uint64_t *loc = locs->data;
    const int32_t *frame_of = t->frame_of;  /* locals: the stores to out could alias the tables */
    const uint64_t n_lookup = (uint64_t)t->n_lookup;
    for (Py_ssize_t j = locs->len - 1; j >= 0; j--) {  /* leaf first on the wire: reverse */
        uint64_t id = loc[j];
        int32_t frame = id < n_lookup ? frame_of[id] : MISSING;
        if (frame >= 0) { out[n++] = (FT)frame; continue; }  /* one line: the common case */
        if (frame == MISSING) { *fail = (fold_fail){FOLD_TUPLE, "location", "location does not exist", i}; return -1; }
        int32_t li = t->lookup[id];  /* inlined calls: every line, caller first */
        for (int64_t f = t->loc_start[li]; f < t->loc_start[li + 1]; f++) out[n++] = (FT)t->loc_frames[f];
    }
    if (n > fb->n) {  /* self and total, as K(self_and_total) sums them (the ids were checked) */
        tally *acc = t->acc;
        for (Py_ssize_t p = fb->n; p < n; p++) {
            uint32_t fn = (uint32_t)out[p];
            int64_t fresh = -(int64_t)(acc[fn].stamp != i);
            acc[fn].stamp = i;
            acc[fn].total += v & fresh;
        }
        t->self[out[n - 1]] += v;
    }
    fb->n = n;
    return 0;
malformed:
    *fail = (fold_fail){FOLD_TUPLE, "sample", "malformed sample message", i};
    return -1;
}

/* The Sample records from c on, as sample *at onwards, in order: up to the end of the input, which must
 * hold exactly the samples up to n_samples (to_end), or just the next samples up to n_samples (the first
 * half of a split fold, which stops right after its last record). -1 with *fail set when one fails;
 * 0 too when *stop is set (the second half, told to stop: c and *at say where). */
static int K(fold_records)(cursor *c, Py_ssize_t *at, Py_ssize_t n_samples, int to_end, const int *stop,
                           const fold_tables *t, ids *locs, ids *vals, frames_buf *fb, int64_t *offsets,
                           int64_t *values, fold_fail *fail) {
    Py_ssize_t i = *at;
    while (c->p < c->end && (to_end || i < n_samples)) {
        if (stop && STOP_SET(stop)) { *at = i; return 0; }
        uint64_t tag, n;
        if (read_varint(c, &tag)) goto malformed;
        if (tag != SAMPLE_TAG) { if (skip_field(c, tag & 7)) goto malformed; continue; }
        if (read_varint(c, &n) || (uint64_t)(c->end - c->p) < n || i >= n_samples) goto malformed;
        cursor sample = {c->p, c->p + n};
        c->p += n;
        if (K(fold_one)(sample, i, t, locs, vals, fb, &values[i], fail)) { *at = i; return -1; }
        offsets[++i] = fb->n;
    }
    *at = i;
    if (i == n_samples) return 0;
malformed:
    *at = i;
    *fail = (fold_fail){FOLD_TUPLE, "profile", "malformed profile message", i};
    return -1;
}

/* The second half's thread (see fold_half): no Python API, no GIL. */
static void K(fold_half)(void *arg) {
    fold_half *h = arg;
#if CAN_SPLIT
    const uint8_t *start = after_samples(h->buf, h->end, h->first);
    Py_ssize_t cap = start ? h->end - start : 0;
    if (cap > h->t.max_frames) cap = h->t.max_frames;
    if (cap < 4096) cap = 4096;
    void *mapped = start ? mmap(NULL, (size_t)cap * sizeof(FT), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
                         : MAP_FAILED;
    if (mapped == MAP_FAILED) {
        h->fail.state = FOLD_GAVE_UP;
    } else {
        h->mapped = (size_t)cap * sizeof(FT);
        h->fb = (frames_buf){NULL, mapped, 0, cap, NULL};
        h->rest = (cursor){start, h->end};
        h->done = h->first;
        K(fold_records)(&h->rest, &h->done, h->n_samples, 1, &h->stop, &h->t, &h->locs, &h->vals, &h->fb, h->offsets,
                        h->values, &h->fail);
    }
#else
    h->fail.state = FOLD_GAVE_UP;
#endif
    PyThread_release_lock(h->finished);
}

/* Puts what the second half decoded after the first: its frames copied on a chunk at a time, each chunk
 * unmapped once copied (the halves together never take more memory than the whole), its offsets shifted
 * by the first half's frames, its self and total added. -1 when the frames could not grow (*fail set). */
static int K(join)(frames_buf *fb, fold_half *h, const fold_tables *t, int64_t *offsets, fold_fail *fail) {
    Py_ssize_t first_frames = fb->n, n = fb->n + h->fb.n;
    if (n > fb->cap && K(grow)(fb, n, fail)) return -1;
#if CAN_SPLIT
    char *to = fb->data + first_frames * (Py_ssize_t)sizeof(FT);
    size_t left = (size_t)h->fb.n * sizeof(FT);
    while (left) {
        size_t step = left < JOIN_CHUNK ? left : JOIN_CHUNK;
        memcpy(to, h->fb.data, step);
        to += step; left -= step;
        if (step == JOIN_CHUNK) {  /* whole pages */
            munmap(h->fb.data, step);
            h->fb.data += step; h->mapped -= step;
        }
    }
    if (h->mapped) munmap(h->fb.data, h->mapped);  /* the last pages, now: before this thread decodes the rest */
    h->mapped = 0;
#endif
    fb->n = n;
    for (Py_ssize_t i = h->first + 1; i <= h->done; i++) offsets[i] += first_frames;
    for (Py_ssize_t x = 0; x < t->n_funcs; x++) {
        t->self[x] += h->t.self[x];
        t->acc[x].total += h->t.acc[x].total;
    }
    return 0;
}

/* Every Sample record (field 2) of the serialized Profile in buf, in order.
 *
 * The loop over the records runs with the GIL released: it is most of a large profile's read (a
 * quarter of a second at 500k stacks), and meanwhile another thread (the CLI's warm-up) imports what
 * the command needs next. Every buffer it touches is held here (the caller's Py_buffers, memory
 * allocated before) and nothing in it calls the Python API except the rare resize, which takes the
 * GIL back; failures are turned into Python objects after the loop.
 *
 * From split_min bytes on (-1: never) the records are split in two at the middle sample: the second half
 * is decoded on a thread of its own (fold_half) while this one decodes the first. Its half done, this
 * thread stops the second (unless stop_second is 0), joins what it decoded, and decodes the samples it
 * had not reached itself. The result is the serial fold's, byte for byte: this thread decodes the first
 * half exactly as the serial fold does (so its failures are the serial fold's), and when the second
 * half failed or stopped at anything unusual (inlined lines past its mapping, too many frames in all),
 * this thread decodes all of it, as the serial fold goes on, and fails where it fails. */
static PyObject *K(fold)(const uint8_t *buf, Py_ssize_t len, Py_ssize_t n_samples, const fold_tables *t,
                         Py_ssize_t split_min, int stop_second) {
    PyObject *result = NULL, *error = NULL;
    ids locs = {0}, vals = {0};
    fold_fail fail = {FOLD_OK, NULL, NULL, 0};
    fold_half *half = NULL;
    int64_t *offsets = PyMem_Malloc((size_t)(n_samples + 1) * sizeof(int64_t));
    int64_t *values = PyMem_Malloc((size_t)(n_samples ? n_samples : 1) * sizeof(int64_t));
    /* Pre-sized: each location id takes at least a byte on the wire, so without inlined lines the
     * frames never outnumber the input's bytes. Pages never written cost no memory (a large block is
     * mapped, and the final resize gives the rest back); inlining past it doubles as before. */
    frames_buf fb = {NULL, NULL, 0, len < t->max_frames ? len : t->max_frames, NULL};
    Py_ssize_t i = 0;
    if (fb.cap < 4096) fb.cap = 4096;
    if (!offsets || !values || !(fb.obj = PyBytes_FromStringAndSize(NULL, fb.cap * (Py_ssize_t)sizeof(FT)))) {
        PyErr_NoMemory(); goto done;
    }
    fb.data = PyBytes_AS_STRING(fb.obj);
    offsets[0] = 0;
    if (CAN_SPLIT && split_min >= 0 && len >= split_min && n_samples >= 2)
        half = start_half(buf, len, n_samples, t, offsets, values, K(fold_half));
    fb.ts = PyEval_SaveThread();
    cursor c = {buf, buf + len};
    if (half && K(fold_records)(&c, &i, half->first, 0, NULL, t, &locs, &vals, &fb, offsets, values, &fail)) {
        PyThread_acquire_lock(half->finished, WAIT_LOCK);  /* the first half's failure is the serial fold's */
    } else if (half) {
        /* what the second thread has not done yet, this one does: a second thread kept from a core (a
         * busy machine) leaves the fold about as fast as one thread's, not slower */
        if (stop_second) STOP(&half->stop);
        PyThread_acquire_lock(half->finished, WAIT_LOCK);
        if (half->fail.state == FOLD_OK && fb.n + half->fb.n <= t->max_frames && !K(join)(&fb, half, t, offsets, &fail)) {
            c = half->rest;
            i = half->done;
        }
        if (fail.state == FOLD_OK)  /* the samples after the second thread's, or all of them when it failed */
            K(fold_records)(&c, &i, n_samples, 1, NULL, t, &locs, &vals, &fb, offsets, values, &fail);
    } else {
        K(fold_records)(&c, &i, n_samples, 1, NULL, t, &locs, &vals, &fb, offsets, values, &fail);
    }
    PyEval_RestoreThread(fb.ts);
    if (fail.state == FOLD_RAISED) goto done;
    if (fail.state == FOLD_NO_MEMORY) { PyErr_NoMemory(); goto done; }
    if (fail.state == FOLD_TUPLE) { error = err(fail.kind, fail.i, fail.msg); goto done; }
    if (_PyBytes_Resize(&fb.obj, fb.n * (Py_ssize_t)sizeof(FT))) goto done;
    Py_ssize_t m = t->n_funcs;
    int64_t *total = PyMem_Malloc((size_t)(m ? m : 1) * 8);
    if (!total) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t x = 0; x < m; x++) total[x] = t->acc[x].total;
    result = Py_BuildValue("(y#Oy#y#y#)", (char *)offsets, (Py_ssize_t)((n_samples + 1) * 8), fb.obj,
                           (char *)values, (Py_ssize_t)(n_samples * 8), (char *)t->self, m * 8, (char *)total, m * 8);
    PyMem_Free(total);
done:
    end_half(half);
    Py_XDECREF(fb.obj);
    PyMem_RawFree(locs.data); PyMem_RawFree(vals.data); PyMem_Free(offsets); PyMem_Free(values);
    return error ? error : result;
}

/* pprof's flat and cum per function in one pass; a "last stack seen" stamp counts a function once per stack. */
static int K(self_and_total)(const int64_t *o, Py_ssize_t n, const FT *f, Py_ssize_t n_frames, const int64_t *v,
                             Py_ssize_t n_funcs, int64_t *s, tally *acc) {
    int bad = check_offsets(o, n, n_frames);
    if (bad) return bad;
    for (Py_ssize_t i = 0; i < n; i++) {
        /* locals: the stores to acc could alias o and v and force reloads per frame */
        const int64_t vi = v[i], lo = o[i], hi = o[i + 1];
        uint32_t fn = 0;
        for (int64_t p = lo; p < hi; p++) {
            fn = (uint32_t)f[p];
            if (fn >= (uint32_t)n_funcs) return BAD_FRAME;
            /* without a branch: a third of a Python profile's frames repeat in their stack
             * (trampolines, the eval loop), which a branch predictor cannot foresee */
            int64_t fresh = -(int64_t)(acc[fn].stamp != i);
            acc[fn].stamp = i;
            acc[fn].total += vi & fresh;
        }
        s[fn] += vi;  /* the leaf: the last frame read (every stack has one, check_offsets says) */
    }
    return 0;
}

/* The memory category and site of every stack, from the leaf to the first deciding frame. */
static int K(attribute)(const int64_t *o, Py_ssize_t n, const FT *f, Py_ssize_t n_frames, const uint8_t *code,
                        Py_ssize_t n_codes, const int64_t *cat, const int64_t *fallback, int64_t *out_cat,
                        int64_t *out_site) {
    int bad = check_offsets(o, n, n_frames);
    if (bad) return bad;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t lo = o[i], hi = o[i + 1], strong = -1, weak = -1, app = -1, carrier = -1;
        uint8_t seen = 0;  /* the kinds met so far: a position is kept only the first time */
        for (int64_t p = hi - 1; p >= lo; p--) {  /* leaf to root: the nearest frame of each kind */
            uint32_t x = (uint32_t)f[p];
            if (x >= (uint32_t)n_codes) goto bad_id;
            uint8_t fresh = code[x] & ~seen;
            if (!fresh) continue;  /* the common case, and a well-predicted branch */
            seen |= fresh;
            if (fresh & APP) app = p;
            if (fresh & WEAK) weak = p;
            if (fresh & CARRIER) carrier = p;
            if (fresh & STRONG) { strong = p; break; }  /* decides; nothing nearer the root matters */
        }
        int64_t decider = strong >= 0 ? strong : weak, k;
        /* positions found above are read again here: each read is checked again (see raise_bad) */
        if (decider >= 0) {
            uint32_t x = (uint32_t)f[decider];
            if (x >= (uint32_t)n_codes) goto bad_id;
            k = cat[x];
        } else {
            /* raw addresses between the requester (or the root) and the first carrier after it */
            int gap = 0;
            for (int64_t p = (app >= 0 ? app : lo - 1) + 1; p < hi; p++) {
                uint32_t x = (uint32_t)f[p];
                if (x >= (uint32_t)n_codes) goto bad_id;
                uint8_t c = code[x];
                if (c & CARRIER) break;
                if (c & UNRESOLVED) { gap = 1; break; }
            }
            uint32_t xc = carrier >= 0 ? (uint32_t)f[carrier] : 0;
            if (xc >= (uint32_t)n_codes) goto bad_id;
            k = gap ? fallback[FALLBACK_UNRESOLVED]
                : app < 0 && carrier >= 0 ? cat[xc]
                : app < 0 && (seen & INTERP) ? fallback[FALLBACK_INTERP] : fallback[FALLBACK_OTHER];
        }
        out_cat[i] = k;
        out_site[i] = f[app >= 0 ? app : hi - 1];  /* stored, never used as an index here */
    }
    return 0;
bad_id:
    return BAD_FRAME;
}

/* The widest-bar walk over the `alive` stacks holding target (reach: its depth in each): at each
 * depth, step to the frame with the largest summed value (the lowest id on ties, as numpy's argmax)
 * among the stacks agreeing so far, until target. Writes the steps from the root into step_id and
 * step_width (room for `room` of them: one per depth, so the deepest reach plus one is enough) and
 * their count into *n_steps. Runs without the GIL: no Python object is made here (the caller turns
 * the steps into a list once it holds the GIL again), and failures are returned, never raised.
 *
 * Reading frame d of every agreeing stack, depth after depth, would read one cache line per stack
 * per depth from all over the frames (hundreds of thousands of stacks do not fit in a cache). So
 * the walk goes WALK_BLOCK depths at a time: each stack's next WALK_BLOCK frames are copied once
 * into a depth-major tile (one row per depth, one column per stack), and the depths of the block
 * read their row in order. */
#ifndef WALK_BLOCK
/* 16 rather than 32: the first block holds every stack that reaches the target (127k of 500k for the
 * handoff's first site), and most leave the chain a few depths after the shared entry frames; a tile
 * half as tall is copied faster and stays in cache. At 500k the walks took about a quarter less (20
 * against 26 ms for the handoff's three, 20 against 25 for the leaf target; 12, 20 and 24 no better). */
#define WALK_BLOCK 16
#endif
static int K(walk)(const int64_t *o, const FT *f, const int64_t *v, int32_t target, const int64_t *stack,
                   int32_t *reach, Py_ssize_t alive, Py_ssize_t n_names, int64_t *width, int32_t *seen,
                   int32_t *step_id, int64_t *step_width, Py_ssize_t room, Py_ssize_t *n_steps) {
    int bad = 0;
    Py_ssize_t steps = 0;
    size_t m = (size_t)(alive ? alive : 1);
    int64_t *pos = PyMem_RawMalloc(m * 8), *val = PyMem_RawMalloc(m * 8);
    int32_t *col = PyMem_RawMalloc(m * 4);  /* the tile column of each stack still agreeing */
    FT *tile = PyMem_RawMalloc(m * WALK_BLOCK * sizeof(FT));
    if (!pos || !val || !col || !tile) { bad = WALK_NO_MEMORY; goto done; }
    for (Py_ssize_t j = 0; j < alive; j++) { pos[j] = o[stack[j]]; val[j] = v[stack[j]]; }
    int finished = 0;
    for (int64_t d0 = 0; alive && !finished; d0 += WALK_BLOCK) {
        for (Py_ssize_t j = 0; j < alive; j++) {  /* the tile: a stack's frames to its target, at most */
            if (j + 16 < alive) {  /* a block of a stack's frames may straddle two cache lines */
                PREFETCH(&f[pos[j + 16] + d0]);
                PREFETCH(&f[pos[j + 16] + d0 + WALK_BLOCK - 1]);
            }
            int64_t last = reach[j] - d0 < WALK_BLOCK - 1 ? reach[j] - d0 : WALK_BLOCK - 1;
            uint32_t worst = 0;  /* frames above the target's call were not checked by find_targets */
            for (int64_t dd = 0; dd <= last; dd++) {
                FT x = f[pos[j] + d0 + dd];
                tile[dd * alive + j] = x;
                worst |= (uint32_t)x >= (uint32_t)n_names;
            }
            if (worst) { bad = BAD_FRAME; goto done; }
            col[j] = (int32_t)j;
        }
        Py_ssize_t agree = alive;  /* stacks in col[0..agree) still follow the chain */
        for (int64_t dd = 0; dd < WALK_BLOCK && agree; dd++) {
            const FT *row = tile + dd * alive;
            int32_t run = -1;  /* most stacks agree with the one before: their sum stays in a register */
            int64_t sum = 0;   /* rather than a chain of adds to one memory cell */
            Py_ssize_t n_seen = 0;  /* the distinct frames of this depth, in `seen`: few, often one */
            for (Py_ssize_t j = 0; j < agree; j++) {
                int32_t h = row[col[j]];
                if (h != run) {
                    if (run >= 0) {
                        if (!width[run]) seen[n_seen++] = run;
                        width[run] += sum;
                    }
                    run = h;
                    sum = 0;
                }
                sum += val[col[j]];
            }
            if (run >= 0) {
                if (!width[run]) seen[n_seen++] = run;
                width[run] += sum;
            }
            int32_t choice = seen[0];  /* the widest, the lowest id on ties (as numpy's argmax) */
            for (Py_ssize_t x = 1; x < n_seen; x++)
                if (width[seen[x]] > width[choice] || (width[seen[x]] == width[choice] && seen[x] < choice))
                    choice = seen[x];
            if (steps >= room) { bad = WALK_NO_MEMORY; goto done; }  /* cannot happen: one step per depth */
            step_id[steps] = choice;
            step_width[steps++] = width[choice];
            int many = 0;
            for (Py_ssize_t x = 0; x < n_seen; x++) { many |= seen[x] != choice; width[seen[x]] = 0; }
            if (choice == target) { finished = 1; break; }
            if (!many) continue;  /* every stack follows the chain, and none is at target (not chosen) */
            Py_ssize_t kept = 0;  /* the stacks that follow the chain and reach target deeper still */
            for (Py_ssize_t j = 0; j < agree; j++)
                if (row[col[j]] == choice && reach[col[j]] > d0 + dd) col[kept++] = col[j];
            agree = kept;
        }
        for (Py_ssize_t j = 0; j < agree; j++) {  /* col is increasing: compacting in place is safe */
            Py_ssize_t c = col[j];
            pos[j] = pos[c]; val[j] = val[c]; reach[j] = reach[c];
        }
        alive = agree;
    }
done:
    PyMem_RawFree(pos); PyMem_RawFree(val); PyMem_RawFree(col); PyMem_RawFree(tile);
    *n_steps = steps;
    return bad;
}

#define FIND_GROUP 8  /* group_clear is written out for eight */

/* Eight frames g[0..7] tested at once: their slots ANDed are -1 only when none is a target or a bad id. */
static inline int K(group_clear)(const FT *g, Py_ssize_t n_names, const int8_t *slot) {
    const uint32_t x0 = g[0], x1 = g[1], x2 = g[2], x3 = g[3], x4 = g[4], x5 = g[5], x6 = g[6], x7 = g[7];
    if (sizeof(FT) > 2) {  /* int32: ids past the names have no slot (uint16: the slot says) */
        const uint32_t top = (uint32_t)n_names;
        if ((x0 >= top) | (x1 >= top) | (x2 >= top) | (x3 >= top) | (x4 >= top) | (x5 >= top) | (x6 >= top) |
            (x7 >= top))
            return 0;
    }
    /* written out: -O2 does not unroll the loop, and the eight loads are then independent */
    return (int8_t)(slot[x0] & slot[x1] & slot[x2] & slot[x3] & slot[x4] & slot[x5] & slot[x6] & slot[x7]) == -1;
}

/* A frame's slot: its target's index, -1 for none, BAD_SLOT for an id past the names. */
static inline int K(slot_of)(FT frame, Py_ssize_t n_names, const int8_t *slot) {
    uint32_t x = (uint32_t)frame;
    if (sizeof(FT) > 2 && x >= (uint32_t)n_names) return BAD_SLOT;  /* uint16: the slot says */
    return slot[x];
}

/* Each target's innermost call in every stack (its nearest to the leaf): the stacks its walk starts
 * from, and a depth where the target is reached. Any call's depth will do: at the outermost call the
 * stack's frame is the target, so there the walk either ends or leaves the stack behind, and the
 * frames past it are never read. From the leaf, the usual target (the biggest consumer by self, a
 * leaf frame) is met at the first frame of most stacks instead of after all of them.
 *
 * Most frames are none of the targets (an allocation site is found after most of its stack, and
 * most stacks hold none of the sites): eight frames are tested at once, their slots ANDed, which is
 * -1 only when none is a target or a bad id; only a group that is not goes frame by frame. */
static int K(find_targets)(const int64_t *o, Py_ssize_t n, const FT *f, Py_ssize_t n_names, const int8_t *slot,
                           Py_ssize_t k, int64_t *stack, int32_t *reach, Py_ssize_t *alive) {
    const uint32_t every = k >= 32 ? UINT32_MAX : (1u << k) - 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t seen = 0;
        const int64_t lo = o[i], hi = o[i + 1];  /* locals: the stores below could alias o */
        int64_t p = hi - 1;
        while (p >= lo) {
            while (p - (FIND_GROUP - 1) >= lo && K(group_clear)(f + p - (FIND_GROUP - 1), n_names, slot))
                p -= FIND_GROUP;  /* the group f[p-7..p] holds no target and no bad id */
            /* frame by frame, the group that holds a target or a bad id (or the stack's last few frames) */
            const int64_t stop = p - FIND_GROUP >= lo - 1 ? p - FIND_GROUP : lo - 1;
            for (; p > stop; p--) {
                int t = K(slot_of)(f[p], n_names, slot);
                if (t < 0) {
                    if (t == BAD_SLOT) goto bad_id;
                    continue;
                }
                if (!(seen & (1u << t))) {
                    seen |= 1u << t;
                    stack[t * n + alive[t]] = i; reach[t * n + alive[t]++] = (int32_t)(p - lo);
                    if (seen == every) goto next;  /* every target has a call in this stack */
                }
            }
        }
    next:;
    }
    return 0;
bad_id:
    return BAD_FRAME;
}

/* find_targets' calls, found in one pass over the frames in memory order, across the stacks' bounds:
 * read that way the frames stream in, where reading each stack from its leaf costs a few tens of ns per
 * stack (its bounds, its last few frames one by one) whatever it holds, most of the pass with half a
 * million stacks when the targets are met mid-stack (allocation sites) rather than at the leaf. The
 * groups of eight are tested as there; a group that holds a target goes frame by frame and finds its
 * frame's stack by moving a cursor over the offsets (forward only: once over the stacks in the whole
 * pass). A later call in the same stack replaces the depth of the one before: the last is the
 * innermost, as there. Every frame is read, so every id is checked. */
static int K(find_in_order)(const int64_t *o, Py_ssize_t n, const FT *f, Py_ssize_t n_names, const int8_t *slot,
                           int64_t *stack, int32_t *reach, Py_ssize_t *alive) {
    const int64_t n_frames = o[n];
    Py_ssize_t s = 0;  /* the stack of the frame at q once it is moved there: o[s] <= q < o[s + 1] */
    int64_t q = o[0];  /* the first stack's first frame: o may start at any stack */
    while (q < n_frames) {
        while (q + FIND_GROUP <= n_frames && K(group_clear)(f + q, n_names, slot))
            q += FIND_GROUP;  /* the group f[q..q+7] holds no target and no bad id */
        /* frame by frame, the group that holds a target or a bad id (or the last few frames) */
        const int64_t stop = q + FIND_GROUP < n_frames ? q + FIND_GROUP : n_frames;
        for (; q < stop; q++) {
            int t = K(slot_of)(f[q], n_names, slot);
            if (t < 0) {
                if (t == BAD_SLOT) return BAD_FRAME;
                continue;
            }
            while (o[s + 1] <= q) s++;
            int64_t *stacks = stack + t * n;
            int32_t *depths = reach + t * n;
            Py_ssize_t a = alive[t];
            if (a && stacks[a - 1] == s) {  /* called again, nearer the leaf */
                depths[a - 1] = (int32_t)(q - o[s]);
            } else {
                stacks[a] = s; depths[a] = (int32_t)(q - o[s]);
                alive[t] = a + 1;
            }
        }
    }
    return 0;
}

/* One byte per stack: does it hold a wanted function (root first: callers, the usual query, come early). */
static int K(stacks_with)(const int64_t *o, Py_ssize_t n, const FT *f, const uint8_t *wanted, Py_ssize_t n_wanted,
                          uint8_t *out) {
    for (Py_ssize_t i = 0; i < n; i++) {
        uint8_t hit = 0;
        for (int64_t p = o[i], hi = o[i + 1]; p < hi; p++) {
            uint32_t x = (uint32_t)f[p];
            if (x >= (uint32_t)n_wanted) return BAD_FRAME;
            if (wanted[x]) { hit = 1; break; }
        }
        out[i] = hit;  /* one store per stack: a store into out could alias o */
    }
    return 0;
}

/* The next GROW_BLOCK frames of every active walk item, depth-major (one row per depth): each
 * depth then reads its row in order instead of one cache line per stack from all over the frames. */
static int K(grow_tile)(const FT *f, Py_ssize_t n_frames, const grow_walk *w, int64_t d0, grow_state *g, FT *tile) {
    Py_ssize_t m = g->n_active;
    for (Py_ssize_t a = 0; a < m; a++) {
        Py_ssize_t j = g->active[a];
        int64_t rows = w->lengths[j] - d0 < GROW_BLOCK ? w->lengths[j] - d0 : GROW_BLOCK;
        for (int64_t dd = 0; dd < rows; dd++) {
            int64_t p = w->starts[j] + w->step * (d0 + dd);
            if (p < 0 || p >= n_frames || (uint32_t)f[p] >= (uint32_t)w->n_names) {
                PyErr_SetString(PyExc_ValueError, "bad frame id or walk");
                return -1;
            }
            tile[dd * m + a] = f[p];
        }
        g->col[a] = (int32_t)a;
    }
    g->tile_width = m;
    return 0;
}

/* One depth of the call tree's breadth-first build (analysis/tree.py::_grow): the (parent node,
 * frame) of every active walk item, grouped by a hash table, not by sorting every item's key. */
static int K(grow_level)(const FT *row, const grow_walk *w, int64_t d, grow_state *g) {
    Py_ssize_t m = g->n_active;
    if (keyed_reset(&g->keys, m)) return -1;
    for (Py_ssize_t a = 0; a < m; a++) {
        Py_ssize_t j = g->active[a];
        int32_t e = keyed_find(&g->keys, g->node_of[j] * w->width + row[g->col[a]]);
        if (e < 0) return -1;
        g->entry_of[a] = e;
        g->keys.total[e] += w->values[j];
        if (w->lengths[j] == d + 1) g->keys.self[e] += w->values[j];
    }
    return 0;
}

#undef K
#undef K2
#undef K_
