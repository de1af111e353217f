#pragma once
/*
 * What the GPU lowerings (lib/vulkan/ops_*.c) see: the device capabilities and the
 * recorder. A lowering turns one graph node into dispatches of embedded kernels; the
 * recorder binds values to their memory, inserts barriers where dispatches depend on
 * each other, and records the command buffer when the chunk is complete.
 *
 * Thread safety: a recorder belongs to the thread recording one chunk.
 */
#include "ops/op.h"
#include "vulkan/vk_common.h"

#include "push.h"
#include "vk_kernels.h"

/* What gemm_coop.comp needs of a device (vk_probe.c checks them): its cooperative-matrix
 * fragment (M = N = K, float16 A/B, float32 C/D, subgroup scope), its subgroup size, and
 * the shared memory of its largest tile (128x128: two stages of A and B, 128 x 40 halves
 * each, staging 4 x 16 x 20 floats). */
#define VK_COOP_FRAGMENT 16
#define VK_COOP_SUBGROUP 32
#define VK_COOP_SHARED_BYTES (2 * 2 * 128 * 40 * 2 + 4 * 16 * 20 * 4)
/* The shared memory of gemm_tiled.comp's largest tile (128x64, BK 16: two stages of 16
 * lines of 33 and 17 vec4); a device with less (Vulkan's minimum is 16 KiB) keeps the
 * plain kernels (gpu_caps.prefer_tiled). */
#define VK_GEMM_SHARED_BYTES (2 * 16 * (33 + 17) * 16)

/* What a device offers; lowerings choose kernels and refuse nodes by it. */
struct gpu_caps {
    uint32_t subgroup_size;
    /* Subgroups of 32 invocations or more with clustered operations in compute shaders:
     * 32 adjacent invocations combine without shared memory (the _lanes kernels of
     * norm.comp). */
    bool subgroup_lanes32;
    /* Subgroup arithmetic (subgroupAdd) in compute shaders, of any subgroup size. */
    bool subgroup_arith;
    uint32_t max_workgroup_invocations;
    uint32_t max_workgroup_size[3];
    uint32_t max_workgroup_count[3];
    uint32_t max_push_constants; /* bytes */
    uint32_t max_bindings;       /* storage buffers a kernel may bind (VK_MAX_BINDINGS at most) */
    uint32_t max_shared_memory;  /* bytes per workgroup */
    uint64_t max_storage_buffer_range; /* bytes one binding may cover */
    uint64_t storage_offset_alignment; /* bytes */
    bool fp16;                         /* shaderFloat16 and 16-bit storage buffers */
    /* Shader features enabled on the VkDevice; vk_dtype_supported reads them. */
    bool storage8;  /* storageBuffer8BitAccess + shaderInt8 (int8, uint8, bool) */
    bool storage16; /* storageBuffer16BitAccess + shaderInt16 (int16, uint16, float16) */
    bool int64;     /* shaderInt64 */
    bool float64;   /* shaderFloat64 */
    /* gemm_coop.comp runs here (VK_NV_cooperative_matrix: vk_probe.c's probe_coopmat);
     * float16 products, and float32 ones under precision fp32-fast, take it. */
    bool cooperative_matrix;
    /* qmatmul_coop.comp runs here too: int8 cooperative matrices of 16x16x32 (the integer
     * products MatMulInteger and QLinearMatMul) */
    bool coop_int8;
    /* gemm_cm2.comp runs here (VK_NV_cooperative_matrix2: vk_coopmat2.c) in the tiles of
     * ops_gemm.c's vk_cm2_tiles whose bits cm2_tiles has (float16 products, when forced). */
    bool coopmat2;
    uint32_t cm2_tiles;
    bool timestamps;         /* the compute queue writes timestamps (profiling) */
    uint32_t timestamp_bits; /* their valid bits */
    /* Shared-memory tiled kernels pay off (GPUs). False on CPU implementations (lavapipe),
     * where workgroup barriers are costly: plain per-output kernels run faster there. */
    bool prefer_tiled;
    /* Tests and tests/bench/bench_gemm only. 0: float32 MatMul/Gemm/Conv pick their
     * gemm_tiled.comp tile by shape; t > 0: tile t of lib/vulkan/ops_gemm.c's table (1 the
     * largest); -1: the kernels before gemm_tiled.comp (matmul.comp, conv_window.comp). */
    int gemm_force;
    /* Tests and bench_gemm only, with gemm_force 0 and cooperative_matrix: 0 picks a
     * gemm_coop.comp tile by shape for products large enough; t > 0: tile t of ops_gemm.c's
     * coop table for every product it can take (any size); -1: never gemm_coop.comp. */
    int coop_force;
    /* Tests and bench_gemm only, with gemm_force 0: 0 splits K by shape (vk_gemm_pick_split,
     * vk_qprod_pick); s > 1: s slices for every gemm_tiled.comp product and every integer
     * product (ops_qprod.h); -1: never. */
    int splitk_force;
    /* The kernel choice by measurement and bench_gemm only, with splitk_force s > 1: plain
     * products of at least 128 rows split on the 128 x 64 tile rather than 64 x 64. */
    bool splitk_wide;
    /* Tests and bench_gemm only, with coopmat2: t > 0: tile t of vk_cm2_tiles for every
     * float16 product it can take; 0 or -1: never (it is slower: ops_gemm.h). A forced
     * gemm_tiled.comp or gemm_coop.comp tile (gemm_force, coop_force > 0) or split-K
     * (splitk_force) leaves it out too. */
    int cm2_force;
    /* The kernel choice by measurement (vk_gemm_tune.h) only, with the others 0: s > 1
     * slices of K for the products gemm_coop.comp takes by shape, whatever their size. */
    int coop_splits;
    /* The kernel choice by measurement only, for convs over taps (vk_conv_pick_taps): t > 0
     * takes tile t of ops_gemm.c's taps table (0: by shape); taps_splits 1 keeps K whole,
     * s > 1 splits it in s slices on a tile 64 pixels wide (0: by shape). */
    int taps_force;
    int taps_splits;
    uint64_t memory_budget; /* bytes of device-local memory vkml may use */
};

typedef struct gpu_recorder gpu_recorder;

/* Push-constant bytes the pipelines of a device take (VK_PUSH_CONSTANT_MAX at most). */
static inline uint32_t vk_push_constant_bytes(const struct gpu_caps *caps)
{
    return caps->max_push_constants < VK_PUSH_CONSTANT_MAX ? caps->max_push_constants
                                                           : VK_PUSH_CONSTANT_MAX;
}

/* One kernel dispatch. bind[i] is the value (index into the session's values) bound at
 * binding i; write_mask bit i says binding i is written. The push constants are copied. */
typedef struct vk_dispatch {
    vk_kernel_id kernel;
    vkml_dtype dtype; /* picks the kernel's variant (UNDEFINED: float) */
    int bind[VK_MAX_BINDINGS];
    unsigned write_mask;
    const void *push;
    uint32_t push_size;
    uint32_t groups[3];
    /* A generated pipeline (vk_fused_gen.h) run instead of the kernel's, with its layout. */
    VkPipeline pipeline;
    /* The fused epilogue of a kernel that has one (shaders/common/epilogue.glsl), also in
     * push: its activation and flags become constants of the pipeline
     * (vk_pipeline_get_epilogue). NULL: the kernel's own pipeline reads them from push. */
    const vk_epilogue_push *epi;
} vk_dispatch;

const struct gpu_caps *vk_rec_caps(const gpu_recorder *rec);
/* Whether the session's precision is fp32-fast: float32 products may take float16 inputs
 * with float32 accumulation (gemm_coop.comp). */
bool vk_rec_fast_math(const gpu_recorder *rec);
/* Whether value's buffer holds conv weights packed over taps (vk_conv_packs_weights). */
bool vk_rec_packed(const gpu_recorder *rec, int value);
vkml_status vk_rec_dispatch(gpu_recorder *rec, const vk_dispatch *d, vkml_error *err);
/* Dispatch of a kernel whose last binding is its only output (the common case): bind has
 * vk_kernels[kernel].n_bindings values. */
vkml_status vk_rec_kernel(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype, const int *bind,
                          const void *push, uint32_t push_size, const uint32_t groups[3],
                          vkml_error *err);
/* Same for a kernel with the fused epilogue epi (vk_dispatch.epi; NULL: none). */
vkml_status vk_rec_kernel_epilogue(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype,
                                   const int *bind, const void *push, uint32_t push_size,
                                   const uint32_t groups[3], const vk_epilogue_push *epi,
                                   vkml_error *err);
/* Same for a 1-D kernel with `invocations` threads (vk_groups_1d). */
vkml_status vk_rec_kernel_1d(gpu_recorder *rec, vk_kernel_id kernel, vkml_dtype dtype,
                             const int *bind, const void *push, uint32_t push_size,
                             uint64_t invocations, vkml_error *err);
/* Scratch buffers: device-local memory for the chunk's kernels alone, shared by every
 * node of the chunk that asks for the same slot. The recorder's barriers order its uses (a
 * later node's writes wait for an earlier node's reads), so a slot holds what one node
 * needs between two of its own dispatches; a node that needs two at once takes two slots. */
typedef enum vk_scratch_slot {
    VK_SCRATCH_SPLITK, /* split-K's partial sums (vk_rec_gemm_split) */
    VK_SCRATCH_SLOTS
} vk_scratch_slot;
/* At least `bytes` of slot's buffer (the slot's latest, or a new larger one): *value is its
 * id for vk_dispatch.bind, valid in this recorder only. Freed with the session. */
vkml_status vk_rec_scratch(gpu_recorder *rec, vk_scratch_slot slot, uint64_t bytes, int *value,
                           vkml_error *err);
/* Whether two values share the same memory (an alias: a copy between them is a no-op). */
bool vk_rec_same_memory(const gpu_recorder *rec, int a, int b);
/* Whether byte a_at of value a is byte b_at of value b (one inside the other: views). */
bool vk_rec_same_bytes(const gpu_recorder *rec, int a, uint64_t a_at, int b, uint64_t b_at);

/* Workgroup counts for `invocations` threads of a 1-D kernel (VK_WG_SIZE_1D per group),
 * spread over x and y so that x stays under the device limit. */
void vk_groups_1d(const struct gpu_caps *caps, uint64_t invocations, uint32_t groups[3]);

/* Helpers for gpu_supports functions (ops_util.c): fill why and return false. */
bool vk_unsupported(char *why, size_t why_size, const char *fmt, ...) VKML_PRINTF(3, 4);
/* Every present input and output is float (or, with any_dtype, has a known dtype) and
 * fits one storage binding and 32-bit indexing. */
bool vk_check_tensors(const graph_value *values, const graph_node *node,
                      const struct gpu_caps *caps, bool any_dtype, char *why, size_t why_size);
/* uint32 value of a size the supports check already bounded. */
static inline uint32_t vk_u32(int64_t v)
{
    return (uint32_t)v;
}

/* For gpu_supports: a params parse failed; its message becomes why. */
bool vk_parse_failed(const vkml_error *err, char *why, size_t why_size);

/* The registry (vk_kernel_list.h): signatures, declarations and lookup. */
#define VKML_GPU_DECL(fn)                                                                          \
    vkml_status fn(struct gpu_recorder *rec, const graph_value *values, const graph_node *node,    \
                   vkml_error *err)
#define VKML_GPU_SUPPORTS_DECL(fn)                                                                 \
    bool fn(const graph_value *values, const graph_node *node, const struct gpu_caps *caps,        \
            char *why, size_t why_size)
typedef VKML_GPU_DECL((*gpu_record_fn));
typedef VKML_GPU_SUPPORTS_DECL((*gpu_supports_fn));
#define GPU_KERNEL(op_, record_, supports_, dtypes_)                                               \
    VKML_GPU_DECL(record_);                                                                        \
    VKML_GPU_SUPPORTS_DECL(supports_);
#include "vulkan/vk_kernel_list.h"
#undef GPU_KERNEL
/* Every tensor of the node fits a binding (vk_check_tensors with any dtype). */
VKML_GPU_SUPPORTS_DECL(gpu_supports_any);

typedef struct gpu_kernel {
    gpu_record_fn record;
    gpu_supports_fn supports;
    uint32_t dtypes; /* DT() mask of node types */
} gpu_kernel;

/* The Vulkan kernel of an op, or NULL. */
const gpu_kernel *vk_kernel_for(const op_def *op);
/* Whether the device's shader features cover a dtype in storage buffers (float16: 16-bit
 * storage; int8/uint8/bool: 8-bit storage; int64/uint64: shaderInt64; double:
 * shaderFloat64). */
bool vk_dtype_supported(const struct gpu_caps *caps, vkml_dtype dtype);
