/* The building blocks of a library node (onednn_node.h). */
#include "cpu/onednn/onednn_node.h"
#include "cpu/silu_fast.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONEDNN_ALIGNMENT 64

static dnnl_engine_t engine;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;

static void engine_create(void)
{
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success)
        engine = NULL;
}

dnnl_engine_t onednn_engine(void)
{
    pthread_once(&engine_once, engine_create);
    return engine;
}

const char *onednn_status_name(dnnl_status_t s)
{
    switch (s) {
    case dnnl_success: return "success";
    case dnnl_out_of_memory: return "out of memory";
    case dnnl_invalid_arguments: return "invalid arguments";
    case dnnl_unimplemented: return "unimplemented";
    case dnnl_iterator_ends: return "iterator ends";
    case dnnl_runtime_error: return "runtime error";
    case dnnl_not_required: return "not required";
    default: return "unknown status";
    }
}

vkml_status onednn_check(dnnl_status_t s, const char *what, vkml_error *err)
{
    if (s == dnnl_success)
        return VKML_OK;
    return vkml_fail(err, s == dnnl_out_of_memory ? VKML_ERROR_OUT_OF_MEMORY : VKML_ERROR_DEVICE,
                     "oneDNN: %s: %s", what, onednn_status_name(s));
}

void onednn_md(dnnl_memory_desc_t *md, int rank, const int64_t *dims, onednn_layout layout)
{
    dnnl_dims_t d, strides;
    int64_t step = 1;
    for (int i = 0; i < rank; i++)
        d[i] = dims[i];
    int block = onednn_block_channels();
    if (rank < 3 || rank > 5 || (layout == ONEDNN_BLOCKED && dims[1] % block))
        layout = ONEDNN_PLAIN;
    if (layout == ONEDNN_BLOCKED) {
        static const dnnl_format_tag_t tags[2][3] = {{dnnl_nCw8c, dnnl_nChw8c, dnnl_nCdhw8c},
                                                     {dnnl_nCw16c, dnnl_nChw16c, dnnl_nCdhw16c}};
        dnnl_memory_desc_init_by_tag(md, rank, d, dnnl_f32, tags[block == 16][rank - 3]);
        return;
    }
    if (layout == ONEDNN_NXC) { /* C fastest, then the spatial dims in order, N last */
        strides[1] = step;
        step *= dims[1];
        for (int i = rank - 1; i >= 2; i--) {
            strides[i] = step;
            step *= dims[i];
        }
        strides[0] = step;
    } else {
        for (int i = rank - 1; i >= 0; i--) {
            strides[i] = step;
            step *= dims[i];
        }
    }
    dnnl_memory_desc_init_by_strides(md, rank, d, dnnl_f32, strides);
}

void onednn_md_dtype(dnnl_memory_desc_t *md, vkml_dtype dtype)
{
    switch (dtype) {
    case VKML_DTYPE_FLOAT16: md->data_type = dnnl_f16; break;
    case VKML_DTYPE_INT8: md->data_type = dnnl_s8; break;
    case VKML_DTYPE_UINT8: md->data_type = dnnl_u8; break;
    case VKML_DTYPE_INT32: md->data_type = dnnl_s32; break;
    default: md->data_type = dnnl_f32;
    }
}

int onednn_layout_of(const dnnl_memory_desc_t *md)
{
    for (int layout = ONEDNN_PLAIN; layout <= ONEDNN_BLOCKED; layout++) {
        dnnl_memory_desc_t candidate;
        onednn_md(&candidate, md->ndims, md->dims, (onednn_layout)layout);
        if (dnnl_memory_desc_equal(&candidate, md))
            return layout;
    }
    return -1;
}

bool onednn_layouts_agree(int rank, const int64_t *dims)
{
    int64_t spatial = 1;
    for (int i = 2; i < rank; i++)
        spatial *= dims[i];
    return rank < 3 || dims[1] == 1 || spatial == 1;
}

dnnl_memory_t onednn_mem(onednn_node *n, const dnnl_memory_desc_t *md, void *ptr)
{
    dnnl_memory_t m;
    if (n->n_mems == ONEDNN_MAX_MEMS ||
        dnnl_memory_create(&m, md, onednn_engine(), ptr ? ptr : DNNL_MEMORY_NONE) != dnnl_success)
        return NULL;
    n->mems[n->n_mems++] = m;
    return m;
}

void *onednn_alloc(size_t bytes)
{
    size_t rounded = (bytes + ONEDNN_ALIGNMENT - 1) / ONEDNN_ALIGNMENT * ONEDNN_ALIGNMENT;
    return aligned_alloc(ONEDNN_ALIGNMENT, rounded ? rounded : ONEDNN_ALIGNMENT);
}

void *onednn_buffer(onednn_node *n, size_t bytes)
{
    if (n->n_buffers == ONEDNN_MAX_BUFFERS)
        return NULL;
    void *p = onednn_alloc(bytes);
    if (p)
        n->buffers[n->n_buffers++] = p;
    return p;
}

vkml_status onednn_add_step(onednn_node *n, dnnl_primitive_t prim, int n_args,
                            const dnnl_exec_arg_t *args, vkml_error *err)
{
    if (n->n_steps == ONEDNN_MAX_STEPS || n_args > ONEDNN_MAX_ARGS) {
        dnnl_primitive_destroy(prim);
        return vkml_fail(err, VKML_ERROR_DEVICE, "oneDNN: a node of more than %d steps",
                         ONEDNN_MAX_STEPS);
    }
    onednn_step *s = &n->steps[n->n_steps++];
    s->prim = prim;
    s->n_args = n_args;
    memcpy(s->args, args, sizeof(*args) * (size_t)n_args);
    return VKML_OK;
}

vkml_status onednn_add_pd_step(onednn_node *n, dnnl_primitive_desc_t pd, int n_args,
                               const dnnl_exec_arg_t *args, vkml_error *err)
{
    /* A primitive is made in user scratchpad mode (onednn_pd) and its scratchpad bound
     * once the session's nodes are built (onednn_node_bind_scratch: one buffer for the
     * nodes of a chunk). oneDNN's library mode keeps one per thread, sized by the
     * primitives that thread created, so a primitive made on one thread and run on another
     * (the session's worker) wrote past the scratchpad another primitive made on that
     * thread had sized (the dynamic tail's host kernels, from the first run on). */
    dnnl_exec_arg_t all[ONEDNN_MAX_ARGS + 1];
    const dnnl_memory_desc_t *smd = dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    size_t sbytes = smd ? dnnl_memory_desc_get_size(smd) : 0;
    if (n_args > ONEDNN_MAX_ARGS - 1 && sbytes) {
        dnnl_primitive_desc_destroy(pd);
        return vkml_fail(err, VKML_ERROR_DEVICE, "oneDNN: a step of more than %d arguments",
                         ONEDNN_MAX_ARGS - 1);
    }
    memcpy(all, args, sizeof(*args) * (size_t)n_args);
    if (sbytes) {
        dnnl_memory_t m = n->n_scratch < ONEDNN_MAX_STEPS ? onednn_mem(n, smd, NULL) : NULL;
        if (!m) {
            dnnl_primitive_desc_destroy(pd);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY,
                             "oneDNN: out of memory for a scratchpad");
        }
        n->scratch[n->n_scratch++] = m;
        if (sbytes > n->scratch_bytes)
            n->scratch_bytes = sbytes;
        all[n_args++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, m};
    }
    dnnl_primitive_t prim;
    dnnl_status_t s = dnnl_primitive_create(&prim, pd);
    dnnl_primitive_desc_destroy(pd);
    if (s != dnnl_success)
        return onednn_check(s, "creating a primitive", err);
    return onednn_add_step(n, prim, n_args, all, err);
}

vkml_status onednn_node_bind_scratch(onednn_node *n, void *buf, size_t bytes, vkml_error *err)
{
    if (n->scratch_bytes > bytes && !(buf = onednn_buffer(n, n->scratch_bytes)))
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory for a scratchpad");
    for (int i = 0; i < n->n_scratch; i++)
        if (dnnl_memory_set_data_handle(n->scratch[i], buf) != dnnl_success)
            return vkml_fail(err, VKML_ERROR_DEVICE, "oneDNN: binding a scratchpad");
    return VKML_OK;
}

/* libgomp's (oneDNN's OpenMP runtime): a parallel region running fn(data) on the team. */
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);
int omp_get_thread_num(void);
int omp_get_num_threads(void);

/* Elements below which a copy step stays on one thread. */
#define COPY_PARALLEL_ELEMENTS (64 * 1024)

static void copy_range(const onednn_copy *c, int64_t begin, int64_t end)
{
    switch (c->kind) {
    case ONEDNN_COPY_RUNS:
        for (int64_t p = begin; p < end; p++)
            memcpy((float *)c->dst + p * c->dst_pitch, (const float *)c->src + p * c->src_pitch,
                   sizeof(float) * (size_t)c->count);
        break;
    case ONEDNN_HALVES_TO_FLOATS:
        vkml_floats_from_halves((float *)c->dst + begin, (const uint16_t *)c->src + begin,
                                (size_t)(end - begin));
        break;
    case ONEDNN_FLOATS_TO_HALVES:
        vkml_halves_from_floats((uint16_t *)c->dst + begin, (const float *)c->src + begin,
                                (size_t)(end - begin));
        break;
    case ONEDNN_SILU:
        cpu_silu_inplace((float *)c->dst + begin, (size_t)(end - begin), c->alpha);
        break;
    }
}

/* A thread's part: whole 64-byte lines of floats where the step runs over elements. */
static void copy_part(void *arg)
{
    const onednn_copy *c = arg;
    int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
    int64_t unit = c->kind == ONEDNN_COPY_RUNS ? 1 : 16, units = (c->pixels + unit - 1) / unit;
    int64_t begin = units * part / parts * unit, end = units * (part + 1) / parts * unit;
    copy_range(c, begin, end < c->pixels ? end : c->pixels);
}

void onednn_copy_run(const onednn_copy *copy, int threads)
{
    int64_t elements = copy->kind == ONEDNN_COPY_RUNS ? copy->pixels * copy->count : copy->pixels;
    if (threads <= 1 || copy->pixels < 2 || elements < COPY_PARALLEL_ELEMENTS) {
        copy_range(copy, 0, copy->pixels);
        return;
    }
    if (threads > copy->pixels)
        threads = (int)copy->pixels;
    GOMP_parallel(copy_part, (void *)copy, (unsigned)threads, 0);
}

vkml_status onednn_add_copy_step(onednn_node *n, const onednn_copy *copy, vkml_error *err)
{
    if (n->n_steps == ONEDNN_MAX_STEPS)
        return vkml_fail(err, VKML_ERROR_DEVICE, "oneDNN: a node of more than %d steps",
                         ONEDNN_MAX_STEPS);
    n->steps[n->n_steps++] = (onednn_step){.copy = *copy};
    return VKML_OK;
}

vkml_status onednn_attr_create(dnnl_primitive_attr_t *attr, dnnl_post_ops_t *po, vkml_error *err)
{
    if (dnnl_primitive_attr_create(attr) != dnnl_success)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    if (dnnl_post_ops_create(po) != dnnl_success) {
        dnnl_primitive_attr_destroy(*attr);
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    }
    return VKML_OK;
}

bool onednn_round_before_zero_point(dnnl_primitive_attr_t attr, dnnl_post_ops_t po)
{
    return dnnl_post_ops_append_eltwise(po, 1.0f, dnnl_eltwise_round, 0.0f, 0.0f) == dnnl_success &&
           dnnl_primitive_attr_set_post_ops(attr, po) == dnnl_success;
}

void onednn_attr_destroy(dnnl_primitive_attr_t attr, dnnl_post_ops_t po)
{
    dnnl_post_ops_destroy(po);
    dnnl_primitive_attr_destroy(attr);
}

const char *onednn_impl_name(const_dnnl_primitive_desc_t pd)
{
    const char *impl = NULL;
    dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
    return impl ? impl : "?";
}

bool onednn_pd_is_ref(const_dnnl_primitive_desc_t pd)
{
    return strncmp(onednn_impl_name(pd), "ref", 3) == 0;
}

void onednn_note_impl(onednn_node *n, const_dnnl_primitive_desc_t pd)
{
    snprintf(n->impl, sizeof(n->impl), "%s", onednn_impl_name(pd));
}

void onednn_note_split(onednn_node *n)
{
    size_t len = strlen(n->impl);
    snprintf(n->impl + len, sizeof(n->impl) - len, ", weights split");
}

vkml_status onednn_pd(const void *op_desc, dnnl_primitive_attr_t attr, dnnl_primitive_desc_t *pd,
                      vkml_error *err)
{
    dnnl_primitive_attr_t own = NULL;
    if (!attr && dnnl_primitive_attr_create(&own) != dnnl_success)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    /* The node owns its scratchpad (onednn_add_pd_step). */
    dnnl_primitive_attr_set_scratchpad_mode(attr ? attr : own, dnnl_scratchpad_mode_user);
    dnnl_status_t s =
        dnnl_primitive_desc_create(pd, op_desc, attr ? attr : own, onednn_engine(), NULL);
    if (own)
        dnnl_primitive_attr_destroy(own);
    if (s == dnnl_unimplemented || s == dnnl_invalid_arguments) {
        *pd = NULL;
        return VKML_OK;
    }
    return onednn_check(s, "creating a primitive descriptor", err);
}

int onednn_pd_impls(const void *op_desc, dnnl_primitive_attr_t attr, const char *impl,
                    dnnl_primitive_desc_t *pds, int room)
{
    dnnl_primitive_attr_t own = NULL;
    dnnl_primitive_desc_iterator_t it = NULL;
    int n = 0;
    if (!attr && dnnl_primitive_attr_create(&own) != dnnl_success)
        return 0;
    dnnl_primitive_attr_set_scratchpad_mode(attr ? attr : own, dnnl_scratchpad_mode_user);
    if (dnnl_primitive_desc_iterator_create(&it, op_desc, attr ? attr : own, onednn_engine(),
                                            NULL) == dnnl_success) {
        do {
            dnnl_primitive_desc_t pd = dnnl_primitive_desc_iterator_fetch(it);
            if (pd && n < room &&
                (impl ? !strcmp(onednn_impl_name(pd), impl) : !onednn_pd_is_ref(pd)))
                pds[n++] = pd;
            else if (pd)
                dnnl_primitive_desc_destroy(pd);
        } while (n < room && dnnl_primitive_desc_iterator_next(it) == dnnl_success);
        dnnl_primitive_desc_iterator_destroy(it);
    }
    if (own)
        dnnl_primitive_attr_destroy(own);
    return n;
}

vkml_status onednn_reorder_step(onednn_node *n, dnnl_memory_t from, const dnnl_memory_desc_t *fmd,
                                dnnl_memory_t to, const dnnl_memory_desc_t *tmd, vkml_error *err)
{
    dnnl_primitive_desc_t pd;
    dnnl_status_t s =
        dnnl_reorder_primitive_desc_create(&pd, fmd, onednn_engine(), tmd, onednn_engine(), NULL);
    if (s != dnnl_success)
        return onednn_check(s, "creating a reorder", err);
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    return onednn_add_pd_step(n, pd, 2, args, err);
}

dnnl_memory_t onednn_zero_point_mem(onednn_node *n, int32_t v)
{
    dnnl_memory_desc_t md;
    dnnl_memory_desc_init_by_tag(&md, 1, (dnnl_dims_t){1}, dnnl_s32, dnnl_a);
    int32_t *z = onednn_buffer(n, sizeof(int32_t));
    if (!z)
        return NULL;
    *z = v;
    return onednn_mem(n, &md, z);
}

vkml_status onednn_shift_step(onednn_node *n, dnnl_memory_t from, const dnnl_memory_desc_t *fmd,
                              dnnl_memory_t to, const dnnl_memory_desc_t *tmd, vkml_error *err)
{
    dnnl_memory_t zm = onednn_zero_point_mem(n, 128);
    if (!zm)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory");
    dnnl_primitive_attr_t attr;
    dnnl_post_ops_t po;
    vkml_status st = onednn_attr_create(&attr, &po, err);
    if (st)
        return st;
    const int32_t runtime = DNNL_RUNTIME_S32_VAL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t s = dnnl_primitive_attr_set_zero_points(attr, DNNL_ARG_DST, 1, 0, &runtime);
    if (s == dnnl_success)
        s = dnnl_reorder_primitive_desc_create(&pd, fmd, onednn_engine(), tmd, onednn_engine(),
                                               attr);
    onednn_attr_destroy(attr, po);
    if (s != dnnl_success)
        return onednn_check(s, "creating a reorder", err);
    dnnl_exec_arg_t args[3] = {
        {DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}, {DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_TO, zm}};
    return onednn_add_pd_step(n, pd, 3, args, err);
}

static vkml_status out_of_room(vkml_error *err)
{
    return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "oneDNN: out of memory for a node's buffers");
}

/* For a float16 value (have) that a node computes on in float32: a float32 buffer of n in
 * the same layout (*twin, *twin_ptr) and the conversion between it and ptr (float16 to
 * float32 for an input). */
static vkml_status half_twin(onednn_node *n, const dnnl_memory_desc_t *have, void *ptr, bool input,
                             dnnl_memory_desc_t *twin, void **twin_ptr, onednn_copy *convert,
                             vkml_error *err)
{
    *twin = *have;
    twin->data_type = dnnl_f32;
    int64_t count = (int64_t)(dnnl_memory_desc_get_size(have) / sizeof(uint16_t));
    if (!(*twin_ptr = onednn_buffer(n, sizeof(float) * (size_t)count)))
        return out_of_room(err);
    *convert = (onednn_copy){.kind = input ? ONEDNN_HALVES_TO_FLOATS : ONEDNN_FLOATS_TO_HALVES,
                             .src = input ? ptr : *twin_ptr,
                             .dst = input ? *twin_ptr : ptr,
                             .pixels = count};
    return VKML_OK;
}

/* The memory on ptr (described by have) and, when `want` is another layout, a buffer of n
 * in it (*staged); else *staged is the memory on ptr. */
static vkml_status bind(onednn_node *n, const dnnl_memory_desc_t *have, void *ptr,
                        const dnnl_memory_desc_t *want, dnnl_memory_t *user, dnnl_memory_t *staged,
                        vkml_error *err)
{
    if (have->ndims >= 3 && have->data_type == want->data_type &&
        onednn_layouts_agree(have->ndims, have->dims))
        have = want; /* the same bytes */
    if (!(*user = onednn_mem(n, have, ptr)))
        return out_of_room(err);
    if (dnnl_memory_desc_equal(have, want)) {
        *staged = *user;
        return VKML_OK;
    }
    void *buf = onednn_buffer(n, dnnl_memory_desc_get_size(want));
    return buf && (*staged = onednn_mem(n, want, buf)) ? VKML_OK : out_of_room(err);
}

vkml_status onednn_bind_input(onednn_node *n, const dnnl_memory_desc_t *have, const void *ptr,
                              const dnnl_memory_desc_t *want, dnnl_memory_t *mem, vkml_error *err)
{
    dnnl_memory_t src;
    dnnl_memory_desc_t twin;
    if (have->data_type == dnnl_f16 && want->data_type == dnnl_f32) {
        void *twin_ptr;
        onednn_copy convert;
        vkml_status st = half_twin(n, have, (void *)ptr, true, &twin, &twin_ptr, &convert, err);
        if (!st)
            st = onednn_add_copy_step(n, &convert, err);
        if (st)
            return st;
        have = &twin;
        ptr = twin_ptr;
    }
    vkml_status st = bind(n, have, (void *)ptr, want, &src, mem, err);
    if (st || src == *mem)
        return st;
    const dnnl_memory_desc_t *from;
    dnnl_memory_get_memory_desc(src, &from);
    return onednn_reorder_step(n, src, from, *mem, want, err);
}

vkml_status onednn_bind_output(onednn_node *n, const dnnl_memory_desc_t *have, void *ptr,
                               const dnnl_memory_desc_t *want, dnnl_memory_t *mem,
                               onednn_pending *pending, vkml_error *err)
{
    dnnl_memory_t dst;
    dnnl_memory_desc_t twin;
    *pending = (onednn_pending){0};
    if (have->data_type == dnnl_f16 && want->data_type == dnnl_f32) {
        vkml_status st = half_twin(n, have, ptr, false, &twin, &ptr, &pending->convert, err);
        if (st)
            return st;
        have = &twin;
    }
    vkml_status st = bind(n, have, ptr, want, &dst, mem, err);
    if (!st && dst != *mem) {
        pending->from = *mem;
        pending->to = dst;
    }
    return st;
}

vkml_status onednn_bind_output_finish(onednn_node *n, const onednn_pending *pending,
                                      vkml_error *err)
{
    vkml_status st = VKML_OK;
    if (pending->from) {
        const dnnl_memory_desc_t *fmd, *tmd;
        dnnl_memory_get_memory_desc(pending->from, &fmd);
        dnnl_memory_get_memory_desc(pending->to, &tmd);
        st = onednn_reorder_step(n, pending->from, fmd, pending->to, tmd, err);
    }
    if (!st && pending->convert.dst)
        st = onednn_add_copy_step(n, &pending->convert, err);
    return st;
}

vkml_status onednn_pack(onednn_node *n, const dnnl_memory_desc_t *have, const void *data,
                        const dnnl_memory_desc_t *want, dnnl_memory_t *mem, vkml_error *err)
{
    if (dnnl_memory_desc_equal(have, want)) /* constants outlive the session */
        return (*mem = onednn_mem(n, have, (void *)data)) ? VKML_OK : out_of_room(err);
    if (n->n_packed == ONEDNN_MAX_PACKED)
        return out_of_room(err);
    void *bytes = onednn_packed_get(have, data, want, &n->packed[n->n_packed], err);
    if (!bytes)
        return err && err->status ? err->status : VKML_ERROR_OUT_OF_MEMORY;
    n->n_packed++;
    return (*mem = onednn_mem(n, want, bytes)) ? VKML_OK : out_of_room(err);
}

/* The oneDNN eltwise form(s) of an epilogue activation: up to two (alg, alpha, beta). */
static int act_forms(const graph_epilogue *e, dnnl_alg_kind_t *alg, float *alpha, float *beta)
{
    switch (e->act) {
    case ELT_IDENTITY: return 0;
    case ELT_RELU: alg[0] = dnnl_eltwise_relu, alpha[0] = 0, beta[0] = 0; return 1;
    case ELT_LEAKY_RELU: alg[0] = dnnl_eltwise_relu, alpha[0] = e->alpha, beta[0] = 0; return 1;
    case ELT_SIGMOID: alg[0] = dnnl_eltwise_logistic, alpha[0] = 0, beta[0] = 0; return 1;
    case ELT_GELU: alg[0] = dnnl_eltwise_gelu_erf, alpha[0] = 0, beta[0] = 0; return 1;
    case ELT_GELU_TANH: alg[0] = dnnl_eltwise_gelu_tanh, alpha[0] = 0, beta[0] = 0; return 1;
    case ELT_SILU: alg[0] = dnnl_eltwise_swish, alpha[0] = e->alpha, beta[0] = 0; return 1;
    case ELT_HARD_SWISH: alg[0] = dnnl_eltwise_hardswish, alpha[0] = 0, beta[0] = 0; return 1;
    case ELT_CLIP: /* min > max: the unfused Clip gives max everywhere, oneDNN would not */
        if (!(e->alpha <= e->beta))
            return -1;
        alg[0] = dnnl_eltwise_clip_v2, alpha[0] = e->alpha, beta[0] = e->beta;
        return 1;
    case ELT_HARD_SIGMOID: /* max(0, min(1, alpha x + beta)) */
        alg[0] = dnnl_eltwise_linear, alpha[0] = e->alpha, beta[0] = e->beta;
        alg[1] = dnnl_eltwise_clip_v2, alpha[1] = 0, beta[1] = 1;
        return 2;
    case ELT_X_HARD_SIGMOID: /* x HardSigmoid(x): HardSwish at HardSwish's constants */
        if (e->alpha != 1.0f / 6 || e->beta != 0.5f)
            return -1;
        alg[0] = dnnl_eltwise_hardswish, alpha[0] = 0, beta[0] = 0;
        return 1;
    default: return -1;
    }
}

/* The residual's add: a binary post-op reading residual_md, or (as_sum) a sum post-op
 * adding what the destination holds. */
static bool append_residual(dnnl_post_ops_t po, const dnnl_memory_desc_t *residual_md, bool as_sum)
{
    if (as_sum)
        return dnnl_post_ops_append_sum(po, 1.0f) == dnnl_success;
    return dnnl_post_ops_append_binary(po, dnnl_binary_add, residual_md) == dnnl_success;
}

bool onednn_act_apart(const graph_epilogue *e)
{
    return e && e->act == ELT_SILU && (e->residual < 0 || e->residual_first);
}

vkml_status onednn_add_act_step(onednn_node *n, const graph_epilogue *e, dnnl_memory_t mem,
                                vkml_error *err)
{
    const dnnl_memory_desc_t *md;
    void *ptr;
    dnnl_memory_get_memory_desc(mem, &md);
    dnnl_memory_get_data_handle(mem, &ptr);
    onednn_copy silu = {.kind = ONEDNN_SILU,
                        .dst = ptr,
                        .pixels = (int64_t)(dnnl_memory_desc_get_size(md) / sizeof(float)),
                        .alpha = e->alpha};
    return onednn_add_copy_step(n, &silu, err);
}

bool onednn_epilogue_post_ops(const graph_epilogue *e, dnnl_post_ops_t po,
                              const dnnl_memory_desc_t *residual_md, bool as_sum, bool act_apart)
{
    dnnl_alg_kind_t alg[2];
    float alpha[2], beta[2];
    int forms = e && !act_apart ? act_forms(e, alg, alpha, beta) : 0;
    if (forms < 0)
        return false;
    bool residual = e && e->residual >= 0 && residual_md;
    if (residual && e->residual_first && !append_residual(po, residual_md, as_sum))
        return false;
    for (int i = 0; i < forms; i++)
        if (dnnl_post_ops_append_eltwise(po, 1.0f, alg[i], alpha[i], beta[i]) != dnnl_success)
            return false;
    if (residual && !e->residual_first && !append_residual(po, residual_md, as_sum))
        return false;
    return true;
}

int onednn_epilogue_residual_index(const graph_epilogue *e, int before)
{
    if (!e || e->residual < 0)
        return -1;
    if (e->residual_first)
        return before;
    dnnl_alg_kind_t alg[2];
    float alpha[2], beta[2];
    int forms = act_forms(e, alg, alpha, beta);
    return before + (forms > 0 ? forms : 0);
}

int onednn_post_op_src1(int index)
{
    return DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1;
}

vkml_status onednn_add_src_dst_step(onednn_node *n, const onednn_build *b, dnnl_primitive_desc_t pd,
                                    const int64_t *out_dims, vkml_error *err)
{
    const graph_node *node = b->node;
    const graph_value *x = &b->values[node->inputs[0]];
    int y = node->outputs[0];
    dnnl_memory_desc_t x_have, x_want, y_have, y_want;
    onednn_md(&x_have, x->rank, x->dims, b->stored[node->inputs[0]]);
    onednn_md(&x_want, x->rank, x->dims, b->claim.in);
    onednn_md(&y_have, x->rank, out_dims, b->stored[y]);
    onednn_md(&y_want, x->rank, out_dims, b->claim.out);
    onednn_note_impl(n, pd);
    dnnl_memory_t xm, ym;
    onednn_pending pending;
    vkml_status st = onednn_bind_input(n, &x_have, b->ptrs[node->inputs[0]], &x_want, &xm, err);
    if (!st)
        st = onednn_bind_output(n, &y_have, b->ptrs[y], &y_want, &ym, &pending, err);
    if (st) {
        dnnl_primitive_desc_destroy(pd);
        return st;
    }
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DST, ym}};
    if ((st = onednn_add_pd_step(n, pd, 2, args, err)))
        return st;
    return onednn_bind_output_finish(n, &pending, err);
}

int onednn_block_channels(void)
{
    /* dnnl_cpu_isa_t's avx512_core bit (0x20): 16 floats a register, else 8. */
    static int block;
    if (!block)
        block = ((unsigned)dnnl_get_effective_cpu_isa() & 0x20u) ? 16 : 8;
    return block;
}

bool onednn_int8_exact(void)
{
    /* The VNNI bits of dnnl_cpu_isa_t: 0x40 (avx512_core_vnni and above), 0x400 (avx2_vnni). */
    unsigned isa = (unsigned)dnnl_get_effective_cpu_isa();
    return (isa & 0x40u) || (isa & 0x400u);
}
