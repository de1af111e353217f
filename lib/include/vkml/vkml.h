/*
 * libvkml: run ONNX models on Vulkan compute devices (and the CPU).
 *
 * Flow: create a context (finds the devices), load a model (file or memory), create a
 * session of the model on a device (plans and records the work once), run the session
 * as often as needed with host tensors, destroy everything.
 *
 * Errors: every call that can fail returns a vkml_status and, when given a vkml_error,
 * fills it with a message that says what went wrong and where (file, node name).
 * Destroy calls take T ** and set it to NULL; passing a pointer to NULL is allowed.
 */
#ifndef VKML_VKML_H
#define VKML_VKML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VKML_BUILDING_LIBRARY)
#define VKML_API __attribute__((visibility("default")))
#else
#define VKML_API
#endif

/* Highest tensor rank the library handles. */
#define VKML_MAX_RANK 8

typedef enum vkml_status {
    VKML_OK = 0,
    VKML_ERROR_INVALID_ARGUMENT, /* the caller passed something wrong */
    VKML_ERROR_IO,               /* a file could not be opened or read */
    VKML_ERROR_INVALID_MODEL,    /* the model file is malformed or inconsistent */
    VKML_ERROR_UNSUPPORTED,      /* valid ONNX that vkml does not implement */
    VKML_ERROR_OUT_OF_MEMORY,    /* host or device memory exhausted */
    VKML_ERROR_DEVICE,           /* a device call failed (Vulkan, oneDNN) */
    VKML_ERROR_DEVICE_LOST,      /* the device was lost; sessions on it are dead */
} vkml_status;

/* Filled by failing calls. Plain data: keep it on the stack. */
typedef struct vkml_error {
    vkml_status status;
    char message[1024];
} vkml_error;

/* Element types; the values are ONNX's TensorProto.DataType. */
typedef enum vkml_dtype {
    VKML_DTYPE_UNDEFINED = 0,
    VKML_DTYPE_FLOAT = 1,
    VKML_DTYPE_UINT8 = 2,
    VKML_DTYPE_INT8 = 3,
    VKML_DTYPE_UINT16 = 4,
    VKML_DTYPE_INT16 = 5,
    VKML_DTYPE_INT32 = 6,
    VKML_DTYPE_INT64 = 7,
    VKML_DTYPE_STRING = 8,
    VKML_DTYPE_BOOL = 9,
    VKML_DTYPE_FLOAT16 = 10,
    VKML_DTYPE_DOUBLE = 11,
    VKML_DTYPE_UINT32 = 12,
    VKML_DTYPE_UINT64 = 13,
    VKML_DTYPE_BFLOAT16 = 16,
    VKML_DTYPE_FLOAT8E4M3FN = 17,
    VKML_DTYPE_FLOAT8E4M3FNUZ = 18,
    VKML_DTYPE_FLOAT8E5M2 = 19,
    VKML_DTYPE_FLOAT8E5M2FNUZ = 20,
    VKML_DTYPE_UINT4 = 21, /* packed two per byte, low nibble first */
    VKML_DTYPE_INT4 = 22,
    VKML_DTYPE_FLOAT4E2M1 = 23,
    VKML_DTYPE_FLOAT8E8M0 = 24,
    VKML_DTYPE_UINT2 = 25, /* packed four per byte, lowest bits first */
    VKML_DTYPE_INT2 = 26,
} vkml_dtype;

/* Thread-safe. Name as ONNX spells it ("float", "int64", ...); "undefined" if unknown. */
VKML_API const char *vkml_dtype_name(vkml_dtype dtype);
/* Thread-safe. Bytes per element; 0 for unknown types, strings (a string tensor's data
 * is an array of const char *: see vkml_tensor) and the packed sub-byte types (int4,
 * uint4, float4e2m1, int2, uint2: see vkml_dtype_bits). */
VKML_API size_t vkml_dtype_size(vkml_dtype dtype);
/* Thread-safe. Bits per element (4 or 2 for the packed types); 0 for unknown types and
 * strings. A tensor of n elements takes (n * bits + 7) / 8 bytes. */
VKML_API size_t vkml_dtype_bits(vkml_dtype dtype);
/* Thread-safe. Element i of a dense array of dtype as a double (float8, float4 and the
 * packed integers included); false for strings and unknown types. */
VKML_API bool vkml_dtype_value(vkml_dtype dtype, const void *data, size_t i, double *out);
/* Thread-safe. Short English name of a status ("invalid model", ...). */
VKML_API const char *vkml_status_name(vkml_status status);

/* Declared type and shape of a model input or output. A dimension is -1 when symbolic
 * (its name is then in dim_names) or unknown (dim_names entry NULL). rank is -1 when the
 * model does not declare a shape. */
typedef struct vkml_tensor_info {
    const char *name;
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    const char *dim_names[VKML_MAX_RANK];
    /* A session output whose extent depends on the data (NonZero, NonMaxSuppression):
     * dims are the upper bound, and vkml_session_run sets the caller's tensor dims to
     * what this run produced. */
    bool data_dependent;
    /* A data_dependent output vkml could bound by no shape before the run (a Loop's value
     * grown each iteration by a step only the data decide: Mask R-CNN's pasted masks):
     * dims are 0 where the run decides. Give vkml_session_run its tensor with data NULL
     * and the run allocates the data (malloc; free with vkml_tensor_release), or with room
     * enough for what the run makes (else it fails saying how much). */
    bool unbounded;
} vkml_tensor_info;

/* A host tensor: dense, row-major. `data` is owned by whoever filled it.
 * Strings (VKML_DTYPE_STRING): `data` is an array of `const char *`, one UTF-8,
 * NUL-terminated string per element, and `size` the array's bytes (n * sizeof(char *)).
 * A session reads input strings during vkml_session_run only; it fills an output's array
 * with pointers to strings it owns, valid until its next run, set_input_shapes or destroy
 * (as the rest of the session, not thread-safe against those calls). */
typedef struct vkml_tensor {
    vkml_dtype dtype;
    int rank;
    int64_t dims[VKML_MAX_RANK];
    void *data;
    size_t size; /* bytes available at data */
} vkml_tensor;

/* Thread-safe. Number of elements (1 for rank 0); 0 on overflow or negative dims. */
VKML_API size_t vkml_tensor_element_count(int rank, const int64_t *dims);

/* Thread-safe. Reads a serialized ONNX TensorProto (.pb file as in the ONNX test data).
 * On success `out` holds malloc'ed data (free with vkml_tensor_release; for strings one
 * block: the pointer array, then the strings) and, when `name` is not NULL, *name a
 * malloc'ed copy of the tensor's name (free() it). */
VKML_API vkml_status vkml_tensor_read_file(const char *path, vkml_tensor *out, char **name,
                                           vkml_error *err);
/* Same, from memory. */
VKML_API vkml_status vkml_tensor_read_memory(const void *bytes, size_t size, vkml_tensor *out,
                                             char **name, vkml_error *err);
/* Frees data of a tensor filled by vkml_tensor_read_*; sets data to NULL. */
VKML_API void vkml_tensor_release(vkml_tensor *tensor);

/* ------------------------------------------------------------------------------------- */
/* Context and devices                                                                    */

typedef struct vkml_context vkml_context;

/* The CPU device's index in every device call. GPUs are 0, 1, ... */
#define VKML_DEVICE_CPU (-1)
/* Session default: the fastest device the machine has: the first discrete/integrated GPU,
 * else vkml's CPU device. A Vulkan device on the CPU (Mesa lavapipe) or a virtual GPU is
 * used only when named by index. */
#define VKML_DEVICE_DEFAULT (-2)

typedef enum vkml_device_type {
    VKML_DEVICE_TYPE_CPU = 0, /* vkml's own C kernels */
    VKML_DEVICE_TYPE_DISCRETE_GPU,
    VKML_DEVICE_TYPE_INTEGRATED_GPU,
    VKML_DEVICE_TYPE_VIRTUAL_GPU,
    VKML_DEVICE_TYPE_VULKAN_CPU, /* a Vulkan device on the CPU, e.g. Mesa lavapipe */
    VKML_DEVICE_TYPE_OTHER,
} vkml_device_type;

typedef struct vkml_device_info {
    int index; /* VKML_DEVICE_CPU or the GPU index */
    char name[256];
    char vendor[64];    /* "NVIDIA", "AMD", "Intel", "Mesa", "vkml", ... */
    uint32_t vendor_id; /* PCI vendor id; 0 for the CPU device */
    vkml_device_type type;
    uint64_t memory_bytes; /* device-local memory (host RAM for CPU devices) */
    uint32_t api_version;  /* Vulkan API version; 0 for the CPU device */
    /* The CPU that services the device's interrupts (Linux, a PCI device whose busiest
     * interrupt goes to one CPU; read at context creation), else -1. A thread polling for
     * the device's work on that CPU sees it end late: see keep_thread_affinity. */
    int irq_cpu;
    /* Queues the device copies values between devices on, beside its kernels' queue (0:
     * that one queue; VKML_NO_COPY_QUEUE=1 makes it 0), and whether they are a transfer-only
     * family's (its copy engines) rather than its compute family's (docs/architecture.md,
     * "Values"). 0 and false for the CPU device. */
    int copy_queues;
    bool copy_engines;
} vkml_device_info;

/* Thread-safe. Short name of a device type ("discrete GPU", ...). */
VKML_API const char *vkml_device_type_name(vkml_device_type type);

typedef enum vkml_log_level {
    VKML_LOG_ERROR = 0,
    VKML_LOG_WARN,
    VKML_LOG_INFO,
    VKML_LOG_DEBUG,
} vkml_log_level;

/* Receives one log message (one line, no trailing newline; `message` lives only during the
 * call). Called from any vkml thread, possibly several at once unless the library
 * serialises them (it does: one call at a time); must not call into vkml. */
typedef void (*vkml_log_callback)(void *user, vkml_log_level level, const char *message);

typedef struct vkml_context_params {
    /* Skip Vulkan entirely: only the CPU device exists. */
    bool disable_vulkan;
    /* Enable the Khronos validation layer when it is installed (for development). */
    bool validation;
    /* The context's log: messages of calls on it (its creation, its sessions' planning
     * and runs, their devices' work on vkml's threads) up to this level (default
     * VKML_LOG_WARN; the environment variable VKML_LOG=error|warn|info|debug overrides). */
    vkml_log_level log_level;
    bool log_level_set; /* false: use the default above */
    /* NULL, or where this context's messages go instead of stderr, with log_user (or a
     * session's vkml_session_params.log_user). Each context has its own; messages of calls
     * on no context go to stderr (a model load: see vkml_model_params.log_callback). */
    vkml_log_callback log_callback;
    void *log_user;
    /* Bytes vkml may allocate on each Vulkan device (all its memory: weights,
     * intermediates, host-visible buffers). A session or run that needs more fails with
     * VKML_ERROR_OUT_OF_MEMORY naming the device and the bytes. 0: 95% of the free
     * device-local memory VK_EXT_memory_budget reports at context creation (else of the
     * heap size). */
    uint64_t device_memory_limit;
    /* For tests of multi-device code on one GPU (or lavapipe): open every physical device
     * as this many logical devices (own VkDevice, queue, memory). 0 means 1; at most 16.
     * The environment variable VKML_VK_LOGICAL_DEVICES=N (or VKML_VIRTUAL_DEVICES=N)
     * overrides. */
    int logical_devices_per_gpu;
    /* Leave the CPU affinity of the threads that wait for a GPU as it is. By default, a
     * thread that polls for a GPU's work (wait_spin_us) while running on the CPU that
     * services that GPU's interrupts (vkml_device_info.irq_cpu) has that one CPU taken out
     * of its affinity, once, and moves: there the interrupt's handler holds it off the
     * CPU just as the work ends (on the H200 machine, a virtual one: mnist-8 55 us a run
     * on that CPU, 26 elsewhere). Only a thread allowed other CPUs too is moved. The
     * environment variable VKML_KEEP_AFFINITY=1 sets this. */
    bool keep_thread_affinity;
} vkml_context_params;

/* Thread-safe. Finds every Vulkan physical device with a compute queue. params may be
 * NULL. A machine without Vulkan is not an error: the context then has only the CPU. */
VKML_API vkml_status vkml_context_create(const vkml_context_params *params, vkml_context **out,
                                         vkml_error *err);
/* Not thread-safe against other calls on the same context. Sessions keep their context
 * alive: destroying a context that still has sessions logs a warning, and the context (its
 * devices) is freed when the last session is destroyed; those sessions keep working. */
VKML_API void vkml_context_destroy(vkml_context **ctx);
/* Thread-safe. Number of Vulkan (GPU) devices; the CPU is not counted. */
VKML_API int vkml_context_device_count(const vkml_context *ctx);
/* Thread-safe. index: VKML_DEVICE_CPU or 0 .. count-1. */
VKML_API vkml_status vkml_context_device_info(const vkml_context *ctx, int index,
                                              vkml_device_info *info, vkml_error *err);
/* Thread-safe. The device VKML_DEVICE_DEFAULT resolves to. */
VKML_API int vkml_context_default_device(const vkml_context *ctx);
/* Thread-safe. Parses "cpu", "default" or a GPU index ("0", "1", ...) into a device
 * index; checks that it exists. */
VKML_API vkml_status vkml_context_parse_device(const vkml_context *ctx, const char *text,
                                               int *index, vkml_error *err);
/* Thread-safe. Parses a device set for vkml_session_params.devices: "all" (every GPU; the
 * CPU when there is none), "default", "cpu", a GPU index, or a comma-separated list of
 * these ("0,1,cpu"), into at most `cap` indices (*n of them); checks that each exists and
 * none repeats. */
VKML_API vkml_status vkml_context_parse_devices(const vkml_context *ctx, const char *text,
                                                int *indices, size_t cap, size_t *n,
                                                vkml_error *err);

/* ------------------------------------------------------------------------------------- */
/* Models                                                                                 */

typedef struct vkml_model vkml_model;

typedef struct vkml_model_params {
    /* A model file (external data resolved relative to its folder), or: */
    const char *path;
    /* a model in memory (copied; external data resolved relative to base_dir, refused when
     * base_dir is NULL). */
    const void *bytes;
    size_t size;
    const char *base_dir;
    /* Load even when some nodes use operators (or opsets) vkml does not implement, to
     * inspect the model: such nodes have vkml_node_info.implemented false, and sessions of
     * the model fail naming the first of them. */
    bool allow_unsupported;
    /* NULL, or where the load's messages go instead of stderr, with log_user, up to
     * log_level when log_level_set (else VKML_LOG_WARN; VKML_LOG overrides). */
    vkml_log_callback log_callback;
    void *log_user;
    vkml_log_level log_level;
    bool log_level_set;
} vkml_model_params;

/* Thread-safe. Loads a model as params say (see the two shorthands below). */
VKML_API vkml_status vkml_model_load(const vkml_model_params *params, vkml_model **out,
                                     vkml_error *err);

/* Thread-safe. Loads an ONNX model file (memory-mapped; external data files are resolved
 * relative to the model's folder). Checks opsets, ops and attributes against what vkml
 * implements: an unknown op is VKML_ERROR_UNSUPPORTED naming the node. */
VKML_API vkml_status vkml_model_load_file(const char *path, vkml_model **out, vkml_error *err);
/* Thread-safe. Same from memory; the bytes are copied. External data is resolved relative
 * to base_dir (NULL: external data is refused). */
VKML_API vkml_status vkml_model_load_memory(const void *bytes, size_t size, const char *base_dir,
                                            vkml_model **out, vkml_error *err);
/* Models are reference counted; sessions hold a reference, so a model may be destroyed
 * while its sessions live. Thread-safe. */
VKML_API void vkml_model_destroy(vkml_model **model);
/* Thread-safe. Takes one more reference to the model (each one is let go with
 * vkml_model_destroy); returns the model. NULL passes through. */
VKML_API vkml_model *vkml_model_retain(vkml_model *model);

/* Thread-safe (a model is immutable after load). */
VKML_API size_t vkml_model_input_count(const vkml_model *model);
VKML_API size_t vkml_model_output_count(const vkml_model *model);
/* The returned pointers live as long as the model. NULL when index is out of range. */
VKML_API const vkml_tensor_info *vkml_model_input(const vkml_model *model, size_t index);
VKML_API const vkml_tensor_info *vkml_model_output(const vkml_model *model, size_t index);
/* Opset of the default ONNX domain the model imports. */
VKML_API int64_t vkml_model_opset(const vkml_model *model);

typedef struct vkml_node_info {
    const char *name; /* may be "" */
    const char *op_type;
    const char *domain; /* "" for the default ONNX domain */
    int opset;          /* the model's opset for that domain */
    bool implemented;   /* vkml has the operator at that opset (see allow_unsupported) */
    const char *fused;  /* ops fused into this node as its epilogue ("Add+Relu"), or "" */
} vkml_node_info;

VKML_API size_t vkml_model_node_count(const vkml_model *model);
VKML_API vkml_status vkml_model_node(const vkml_model *model, size_t index, vkml_node_info *info,
                                     vkml_error *err);

/* Thread-safe. Whether `device` can run node `index` of the model with the shapes it has
 * when every symbolic dimension is 1. When it cannot, `why` (if not NULL) says why. An op
 * lowered at plan time (vkml_op_info.lowered: the sequence ops) answers true when the
 * model's sequences lower at those shapes; the session places the ops it becomes. */
VKML_API bool vkml_context_device_supports_node(vkml_context *ctx, int device,
                                                const vkml_model *model, size_t index, char *why,
                                                size_t why_size);

/* ------------------------------------------------------------------------------------- */
/* Operators (the op table)                                                               */

/* Most kinds of device (CPU, Vulkan, ...) a vkml_op_info lists. */
#define VKML_MAX_DEVICE_KINDS 4

/* One kind of device's kernel for an op. */
typedef struct vkml_op_kernel {
    const char *device_kind; /* the kind's name: "CPU", "Vulkan" */
    bool present;            /* the kind has a kernel for the op */
    const char *dtypes;      /* element types it takes, e.g. "float,int64" ("" without one) */
    /* The kernel library that runs some of its forms, and which: "oneDNN: float32, 1-3
     * spatial dims, constant weights" (the CPU device's Conv); "" when none. The other
     * forms run the kind's own kernel. */
    const char *library;
} vkml_op_kernel;

typedef struct vkml_op_info {
    const char *name;   /* ONNX op type */
    const char *domain; /* "" for ai.onnx */
    int since_version;  /* oldest opset implemented */
    int last_version;   /* newest opset implemented */
    /* Per kind of device, in the device registry's order (the CPU first): its kernel. */
    vkml_op_kernel kernels[VKML_MAX_DEVICE_KINDS];
    int n_kernels;
    bool lowered; /* no kernel, by design: a session rewrites the op into other ops
                     when it plans the model (the sequence ops), which run where
                     those ops run */
    /* Runs subgraphs (If, Loop, Scan), no kernel: a session makes an If whose condition
     * it knows at plan time the nodes of its taken branch, and a node whose inputs are all
     * constants constants; any other runs its subgraphs on the host, with the CPU
     * device's kernels, after the planned part of each run (the dynamic tail). */
    bool control_flow;
} vkml_op_info;

/* Thread-safe. The operators vkml implements, in table order. */
VKML_API size_t vkml_op_count(void);
VKML_API const vkml_op_info *vkml_op(size_t index);

/* ------------------------------------------------------------------------------------- */
/* Sessions                                                                               */

typedef struct vkml_session vkml_session;

/* Most runs of one session in flight (vkml_session_params.runs_in_flight). */
#define VKML_MAX_RUNS_IN_FLIGHT 16
/* Iterations one run of a Loop node may take by default
 * (vkml_session_params.max_loop_iterations). */
#define VKML_DEFAULT_MAX_LOOP_ITERATIONS 65536
/* The most threads vkml_session_params.cpu_threads may ask for. */
#define VKML_MAX_CPU_THREADS 1024

/* Microseconds a host wait for a GPU polls before it sleeps in the driver, by default
 * (vkml_session_params.wait_spin_us), on a GPU; a CPU implementation of Vulkan (lavapipe)
 * does not poll by default. */
#define VKML_DEFAULT_WAIT_SPIN_US 20
/* The most vkml_session_params.wait_spin_us takes (one second). */
#define VKML_MAX_WAIT_SPIN_US 1000000

/* Most devices one session plans over: 16 GPUs and the CPU. */
#define VKML_MAX_SESSION_DEVICES 17

/* Arithmetic precision of a session (vkml_session_params.precision). */
typedef enum vkml_precision {
    VKML_PRECISION_FP32 = 0,    /* float32 storage and math, exact to ONNX semantics; a
                                   float16 model on the CPU device alone keeps float32
                                   between its nodes (docs/api.md) */
    VKML_PRECISION_FP32_FAST,   /* float32 tensors; MatMul/Gemm/Conv may round their inputs
                                   to float16 for tensor cores (float32 sums; docs/api.md) */
    VKML_PRECISION_FP16,        /* float16 where it pays: the float16 plan of FP16_ALWAYS,
                                   kept only where it ran no slower than the float32 plan
                                   when the session was created (timed there, on the
                                   session's devices, once per model, devices and input
                                   shapes); else the session runs at FP32
                                   (vkml_session_precision says which; docs/api.md) */
    VKML_PRECISION_FP16_ALWAYS, /* float16 tensors and weights, float32 accumulation in
                                   every kernel; ops unsafe in float16 (Exp, Pow, sums) stay
                                   float32; the session's inputs and outputs stay float32 */
} vkml_precision;

/* Thread-safe. "fp32", "fp32-fast", "fp16", "fp16-always"; "unknown" for other values. */
VKML_API const char *vkml_precision_name(vkml_precision precision);
/* Thread-safe. Parses one of the names above; false (and *out unchanged) for others. */
VKML_API bool vkml_precision_parse(const char *text, vkml_precision *out);

/* Pre-processing of a video frame into an image input (vkml_session_params.preprocess): one
 * kernel (op com.vkml.ImagePreprocess, CPU and Vulkan) reads the frame's bytes and writes
 * the model's input. Order of operations per output pixel: map it onto the frame (resize
 * mode; outside a letterbox's content: pad_value), sample each plane bilinearly (half-pixel
 * centres, edges clamped; subsampled chroma centred between its luma samples), YUV -> RGB
 * (matrix, range; samples of more than 8 bits brought to 0..255 first; clamped to 0..255), channel
 * order, then (v * scale - mean[c]) / std[c] into the input's dtype (uint8: rounded, clamped to
 * 0..255). Plain data. */
typedef enum vkml_frame_format {
    VKML_FRAME_PACKED_RGB = 0, /* 8-bit R, G, B at rgb_offsets of pixels of pixel_stride
                                  bytes: RGB, BGR, RGBA, BGRx, ARGB, ... */
    VKML_FRAME_GRAY8,          /* one byte per pixel */
    VKML_FRAME_NV12,           /* Y plane, then one interleaved U,V plane at half size */
    VKML_FRAME_I420,           /* Y, U and V planes; U and V at half size */
    VKML_FRAME_NV16,           /* Y plane, then one interleaved U,V plane at half width */
    VKML_FRAME_I422,           /* Y, U and V planes; U and V at half width (GStreamer's Y42B) */
    VKML_FRAME_I444,           /* Y, U and V planes, all at full size (GStreamer's Y444) */
} vkml_frame_format;

typedef enum vkml_resize_mode {
    VKML_RESIZE_STRETCH = 0, /* the whole frame onto the whole input, aspect not kept */
    VKML_RESIZE_LETTERBOX,   /* aspect kept, centred, the rest pad_value */
    VKML_RESIZE_CROP,        /* aspect kept, centre crop: the input is all frame */
} vkml_resize_mode;

typedef enum vkml_yuv_matrix { VKML_YUV_BT601 = 0, VKML_YUV_BT709 } vkml_yuv_matrix;

/* Most pixels per side of a frame or an image input the pre-processing takes. */
#define VKML_PREPROCESS_MAX_SIDE 16384

typedef struct vkml_preprocess {
    vkml_frame_format format;
    uint32_t width, height;    /* the frame, pixels (1 .. VKML_PREPROCESS_MAX_SIDE) */
    uint32_t pixel_stride;     /* PACKED_RGB: bytes per pixel (1 .. 16) */
    uint32_t rgb_offsets[3];   /* PACKED_RGB: byte of R, G and B in a pixel */
    uint64_t plane_offsets[3]; /* byte offset of each plane (Y, U/UV, V) in the frame */
    uint32_t plane_strides[3]; /* bytes per row of each plane */
    uint64_t frame_bytes;      /* bytes of the frame (every plane's rows lie within) */
    vkml_yuv_matrix matrix;    /* YUV formats */
    bool full_range;           /* YUV formats: 0 .. 2^bits - 1 (else Y 16..235, U, V 16..240
                                  at 8 bits, times 2^(bits - 8) above) */
    /* YUV formats: bits of a sample, 8 (0 reads as 8) .. 16. Above 8 every sample is a
     * little-endian 16-bit word holding the sample at bit sample_shift (P010: 10 bits at
     * bit 6; I420_10LE: 10 bits at bit 0); the word's other bits are ignored. */
    uint32_t sample_bits;
    uint32_t sample_shift;
    vkml_resize_mode resize;
    float pad_value; /* LETTERBOX: pixel value (0..255) of the border */
    bool bgr;        /* channel order B, G, R instead of R, G, B */
    float scale;     /* 0: 1/255 */
    float mean[3];   /* per model channel */
    float std[3];    /* per model channel; 0: 1 */
    /* The session takes one more input, its last: int32 [4] x, y, width, height of the
     * frame's rectangle the model sees (secondary inference on a detected box), read at
     * every run, so one session serves every box. Clamped to the frame (x, y within it,
     * width and height at least 1); the resize mode then maps that rectangle, not the
     * frame, onto the input; bilinear samples at its edges read the frame around it.
     * false: the whole frame, no such input. */
    bool rect_input;
} vkml_preprocess;

/* How the input image maps onto the frame: frame x = (input x - offset_x) / scale_x. */
typedef struct vkml_preprocess_geometry {
    double scale_x, scale_y;   /* input pixels per frame pixel */
    double offset_x, offset_y; /* input x, y of the frame's left, top edge */
} vkml_preprocess_geometry;

/* Thread-safe. The geometry of `pp` onto an input image of input_width x input_height. */
VKML_API void vkml_preprocess_get_geometry(const vkml_preprocess *pp, uint32_t input_width,
                                           uint32_t input_height, vkml_preprocess_geometry *out);

typedef struct vkml_session_params {
    /* VKML_DEVICE_DEFAULT, VKML_DEVICE_CPU or a GPU index. Nodes the device cannot run go
     * to the CPU device, with transfers in between. VKML_DEVICE_DEFAULT (0 is GPU 0, so
     * set it explicitly) plans over every real GPU, the default one first, as `devices` does:
     * a model that fits the first GPU stays on it. Ignored when `devices` is set. */
    int device;
    /* NULL, or n_devices device indices (GPU indices; VKML_DEVICE_CPU) to plan over, in
     * order of preference (vkml_context_parse_devices reads "all", "0,1,cpu", ...). Nodes
     * fill the first GPU up to its budget, then the next; nodes no GPU of the set runs go
     * to the CPU, which is always the fallback (listing it changes nothing unless it is
     * the only device). At most VKML_MAX_SESSION_DEVICES, no repeats. */
    const int *devices;
    size_t n_devices;
    /* Bytes the session may place on each GPU (constants, inputs, intermediates and
     * copies, by the planner's liveness estimate); 0: each device's own budget
     * (vkml_context_params.device_memory_limit, by default 95% of its free memory). A
     * model that fits no split over the set is refused with the sizes. */
    uint64_t device_budget;
    /* Runs of this session that may be in flight at once (vkml_session_submit). Each has
     * its own copy of the plan: its own intermediates (memory grows with it); the weights
     * are shared (on a GPU, by every session of the model); above 1, a discrete GPU with
     * copy queues copies large outputs out of its memory beside the next run's kernels
     * (docs/api.md, "Runs in flight"). 0 means 1; at most VKML_MAX_RUNS_IN_FLIGHT. */
    int runs_in_flight;
    /* Value given to every symbolic dimension (e.g. the batch size); 0 means 1. */
    int64_t symbolic_dim_value;
    /* NULL, or one shape per model input (vkml_model_input order; rank and dims read):
     * binds the input's symbolic dims (batch, height, width ...) for this session. Each
     * rank must match the model's, and fixed dims agree with it. Dims left -1 take
     * symbolic_dim_value. */
    const vkml_tensor_info *input_shapes;
    /* NULL, or one tensor per model input; an entry whose data is set fixes that input's
     * value for planning, so shape functions read it as a constant: an `axes`, `K`,
     * `shape` or `pads` input fed as a graph input (as the ONNX node tests do) instead of
     * an initializer. Runs must still pass the input; a run passing other values for it
     * plans the session again for them (the outputs' shapes may change with them). */
    const vkml_tensor *input_values;
    /* VKML_PRECISION_FP32 (0, the default), FP32_FAST or FP16 (plans a float16 copy of the
     * model, converted once per session: see docs/api.md). */
    vkml_precision precision;
    /* Keep elementwise chains as separate nodes (one dispatch each) instead of fusing each
     * group of float elementwise nodes into one node (one dispatch; see docs/architecture.md
     * "Fusion"). false (the default) fuses; so does an unset environment: VKML_NO_FUSE=1
     * turns fusion off for every session. */
    bool no_fuse;
    /* Microseconds a host wait for a GPU (the run's end, a CPU chunk reading a GPU's
     * output, a copy between devices) polls the GPU's progress before it sleeps in the
     * driver: polling answers sooner, sleeping frees the core. A polling wait first sleeps
     * on a host timer until shortly before the end that the same chunk's earlier runs
     * predict, and polls from there up to this long past that end. 0 means the device's default
     * (VKML_DEFAULT_WAIT_SPIN_US on a GPU; none on lavapipe, whose own work needs the core);
     * negative: no polling; at most VKML_MAX_WAIT_SPIN_US. Chunks of one GPU never wait on
     * the host between them. */
    int wait_spin_us;
    /* NULL, or: the session's input 0 is a video frame's bytes (uint8, rank 1, dims
     * [frame_bytes rounded up to 4]; pad with anything) that one pre-processing kernel,
     * on the session's first device, turns into the model's input 0 (float, float16 or
     * uint8; rank 4, NCHW [N,C,H,W] or NHWC [N,H,W,C] with C 1 or 3, N (1 .. 256), H and
     * W fixed or bound by input_shapes[0]). With N > 1 the frame input is uint8 [N, frame
     * bytes rounded up to 4], frame b converted into image b. input_shapes[0], when
     * given, is the model's input 0 shape. Copied; a frame of another size or layout
     * needs a new session. */
    const vkml_preprocess *preprocess;
    /* Time every node of every run on its device (GPU timestamps around each node's
     * kernels; the CPU device's clock), read with vkml_session_profile. Costs a timestamp
     * per node on a GPU; off by default. */
    bool profile;
    /* Data parallel: with several GPUs in the device set, each of them gets a whole copy
     * of the model (nodes it cannot run going to the CPU, within device_budget) and the
     * runs go to them in turn, instead of the model being planned over the set (split
     * only where it fits no one GPU). For throughput with runs in flight: runs_in_flight
     * is rounded up to a multiple of the GPU count (each GPU gets the same number of
     * lanes; at least one each), and run k goes to GPU k % n. Outputs still complete in
     * submission order. The plan queries describe the first GPU's copy;
     * vkml_session_replica_count says how many there are. No effect with one GPU. */
    bool data_parallel;
    /* NULL, or the pointer the context's log callback receives for this session's messages
     * (planning, runs, its devices' work on any thread) instead of the context's log_user:
     * an embedder that shares one context among several owners tells them apart. */
    void *log_user;
    /* Threads each node the CPU device runs may use at once, the caller's included (its
     * oneDNN kernels and its C kernels alike). 0: every core the process may run on;
     * the environment variable VKML_CPU_THREADS=N sets the default. At most
     * VKML_MAX_CPU_THREADS. */
    int cpu_threads;
    /* The most iterations one run of a Loop node may take (a Loop without a trip count, or
     * with a huge one, stops there with an error naming the node). 0: the default,
     * VKML_DEFAULT_MAX_LOOP_ITERATIONS. The bound a Loop's scan output reports when its
     * trip count is only known at run time is this many rows, at most 64 MiB. */
    int64_t max_loop_iterations;
} vkml_session_params;

/* Thread-safe. Plans the model for the device and records its work once. The session
 * holds a reference to the context (see vkml_context_destroy) and to the model. params may
 * be NULL (default device). */
VKML_API vkml_status vkml_session_create(vkml_context *ctx, vkml_model *model,
                                         const vkml_session_params *params, vkml_session **out,
                                         vkml_error *err);
VKML_API void vkml_session_destroy(vkml_session **session);

/* Thread-safe. Concrete input/output types and shapes of the session. */
VKML_API size_t vkml_session_input_count(const vkml_session *session);
VKML_API size_t vkml_session_output_count(const vkml_session *session);
VKML_API const vkml_tensor_info *vkml_session_input(const vkml_session *session, size_t index);
VKML_API const vkml_tensor_info *vkml_session_output(const vkml_session *session, size_t index);
/* The device the session was planned on (after VKML_DEVICE_DEFAULT is resolved). */
VKML_API int vkml_session_device(const vkml_session *session);
/* The precision the session runs at: vkml_session_params.precision, except FP32 where FP16
 * was asked and its float16 plan ran slower than float32 on these devices, and where an
 * fp16 precision was asked and no node runs in float16 (control flow plans at float32). */
VKML_API vkml_precision vkml_session_precision(const vkml_session *session);
/* Thread-safe. How many GPUs hold a copy of the model (vkml_session_params.data_parallel):
 * the GPU count of the set for a data-parallel session, else 1. replica_device, when not
 * NULL, gets the device index of each (at most max of them, in the order runs go to
 * them). */
VKML_API int vkml_session_replica_count(const vkml_session *session, int *replica_device, int max);
/* Thread-safe. How many runs the session takes in flight: runs_in_flight (1 when 0), rounded
 * up to a multiple of the GPU count for a data-parallel session. */
VKML_API int vkml_session_runs_in_flight(const vkml_session *session);
/* Thread-safe. The session's plan, one part per device it uses (the first device of its
 * set first; the CPU last when it runs any node): the part's device, its nodes, and the
 * memory placement estimated there. Strings live as long as the session's current plan
 * (until vkml_session_set_input_shapes or destroy). */
typedef struct vkml_plan_part {
    int device;             /* VKML_DEVICE_CPU or a GPU index */
    size_t n_nodes;         /* nodes that run there (not folded ones) */
    const char *first_node; /* first and last of them in execution order (name, or op
                               type when unnamed); "" when none */
    const char *last_node;
    uint64_t weight_bytes; /* constants held there */
    uint64_t peak_bytes;   /* peak of live inputs, intermediates and copies there */
    size_t n_fused;        /* of n_nodes, fused groups (each one dispatch) */
    size_t n_fused_nodes;  /* model nodes those groups replace */
    /* The device's memory plan of intermediates (docs/architecture.md): the bytes it
     * holds for the values only it computes and reads (not host-visible, not weights; one
     * range shared by liveness, alignment included), and their liveness lower bound (the
     * most bytes of those values live at one step, each counted once with its aliases). */
    uint64_t intermediate_bytes;
    uint64_t intermediate_bound;
} vkml_plan_part;
/* A group of elementwise nodes the plan runs as one fused node (one dispatch). */
typedef struct vkml_plan_fused {
    int device;       /* where it runs */
    const char *name; /* the fused node: the name (or op type) of the group's last node */
    const char *ops;  /* the group's ops in order, "Add -> Relu -> Mul" (long groups
                         elide the middle: "Add -> Add -> Add -> ... -> Add -> Add") */
    size_t n_nodes;   /* model nodes it replaces */
} vkml_plan_fused;
/* A value copied from one device to another on each run. */
typedef struct vkml_plan_transfer {
    const char *value;
    int from, to; /* device indices */
    uint64_t bytes;
    bool shared_host; /* true: both devices use one host allocation (no host copy; a GPU
                         reading it copies it into its memory in its command buffer);
                         false: the host copies it between the devices' memory */
} vkml_plan_transfer;
VKML_API size_t vkml_session_plan_part_count(const vkml_session *session);
/* false when index is out of range. */
VKML_API bool vkml_session_plan_part(const vkml_session *session, size_t index,
                                     vkml_plan_part *part);
/* Thread-safe. The fused groups of the session's plan, in execution order; false when
 * index is out of range. */
VKML_API size_t vkml_session_plan_fused_count(const vkml_session *session);
VKML_API bool vkml_session_plan_fused(const vkml_session *session, size_t index,
                                      vkml_plan_fused *fused);
VKML_API size_t vkml_session_plan_transfer_count(const vkml_session *session);
VKML_API bool vkml_session_plan_transfer(const vkml_session *session, size_t index,
                                         vkml_plan_transfer *transfer);
/* The time one node took on its device in the session's last completed run (the first
 * lane's, with runs_in_flight > 1). On a GPU: the time between the end of the node before
 * it and the end of its last kernel (exact when they depend on each other, an
 * apportioning when they overlap); on the CPU device: its wall time. The nodes of the
 * dynamic tail (shapes known only at run time, run on the host after the rest) come last,
 * device VKML_DEVICE_CPU, detail "host", their wall time. */
typedef struct vkml_node_time {
    const char *name;   /* the node's name (or op type when unnamed); a fused group: its
                           last node's */
    const char *op;     /* "Conv", "FusedElementwise" (a fused group), ... */
    const char *detail; /* a fused epilogue ("Relu", "Add+Relu", ...), a fused group's ops;
                           "" when none */
    int device;         /* VKML_DEVICE_CPU or a GPU index */
    double us;          /* microseconds */
} vkml_node_time;
/* Not thread-safe against runs of the session. Fills out[0 .. min(cap, n)) with the nodes
 * that ran in the last run, in execution order, and *n with their number. The session
 * must have been created with vkml_session_params.profile and have run. Strings live as
 * long as the session's current plan. */
VKML_API vkml_status vkml_session_profile(vkml_session *session, vkml_node_time *out, size_t cap,
                                          size_t *n, vkml_error *err);

/* Thread-safe. Where the session's nodes run: folded into constants at planning, on the
 * session's devices (any of its set), or on the CPU as the fallback for nodes they refuse
 * and for nodes of data-dependent shapes (0 for a CPU session). Any pointer may be NULL. */
VKML_API void vkml_session_node_counts(const vkml_session *session, size_t *folded,
                                       size_t *on_device, size_t *on_cpu_fallback);
/* Not thread-safe with other calls on the same session. Plans the session again for new
 * input shapes (one per input, as vkml_session_params.input_shapes): shape computations
 * fold again and the work is recorded again; vkml_session_input/output then describe the
 * new shapes. On failure the session keeps its previous shapes and plan. */
VKML_API vkml_status vkml_session_set_input_shapes(vkml_session *session,
                                                   const vkml_tensor_info *shapes, vkml_error *err);

/* Runs the model once. inputs[i] matches vkml_session_input(i) (dtype, shape; size at
 * least the tensor's bytes). outputs[i] must have dtype, rank and dims set as
 * vkml_session_output(i) says and data with room for them; the call fills the data. For
 * a data_dependent output it also sets outputs[i].dims to the extent produced (at most
 * the declared bound; the data is dense for that shape); for an unbounded one it sets
 * the dims and, when outputs[i].data is NULL, allocates the data (vkml_tensor_info).
 * Not thread-safe on one session: use one session per thread (sessions are cheap to run
 * side by side, even on one device). */
VKML_API vkml_status vkml_session_run(vkml_session *session, const vkml_tensor *inputs,
                                      size_t n_inputs, vkml_tensor *outputs, size_t n_outputs,
                                      vkml_error *err);

/* Runs without waiting. A run takes the next of the session's runs_in_flight lanes (each
 * with its own intermediates), waiting first for that lane's previous run to finish; the
 * inputs are checked and copied to the devices before the call returns, the rest runs on
 * a thread of the session's. Runs (submitted or vkml_session_run) complete in submission
 * order: the callback of run N is called, on a vkml thread, only after run N-1's, and a
 * vkml_session_run returns only after every run submitted before it completed.
 * The input data (read again by nodes of data-dependent shapes) and the output tensors
 * (dtype/shape/data as for vkml_session_run) must stay valid until the run completes.
 * `callback` (may be NULL) gets the run's status and error; it must not call into this
 * session. With `run` non-NULL the caller waits for it with vkml_run_wait (exactly once,
 * any thread, also after the session is destroyed); with `run` NULL the run is detached
 * and frees itself. An error returned here (bad tensors) means the run did not happen.
 * Not thread-safe on one session (submit, run, set_input_shapes and destroy from one
 * thread at a time); destroy waits for the runs in flight. */
typedef struct vkml_run vkml_run;
typedef void (*vkml_run_callback)(void *user, vkml_status status, const vkml_error *err);
VKML_API vkml_status vkml_session_submit(vkml_session *session, const vkml_tensor *inputs,
                                         size_t n_inputs, vkml_tensor *outputs, size_t n_outputs,
                                         vkml_run_callback callback, void *user, vkml_run **run,
                                         vkml_error *err);
/* Waits for a submitted run, returns its status (err filled on failure) and frees it;
 * sets *run to NULL. Thread-safe for different runs. */
VKML_API vkml_status vkml_run_wait(vkml_run **run, vkml_error *err);

/* ------------------------------------------------------------------------------------- */
/* Batching single items from many callers                                                */

/* A batcher gathers single items, submitted from any number of threads (one per camera
 * stream, say), into runs of a session whose inputs have a batch dimension N: dim 0 of
 * session input 0 (a pre-processing session's frame input [N, bytes] included; a session
 * without a batch dimension has N 1). A batch is submitted once a lane of the session is
 * free (fewer than vkml_session_runs_in_flight batches running) and it is full, no
 * other batch is running, or its oldest item has waited timeout_us; empty places of a
 * partial batch hold stale data and their results are dropped. Each item's outputs are its slice of
 * the batch's outputs, and items complete in submission order (a caller's items stay in its order).
 * The batcher owns a thread that submits the batches; it is the session's only user
 * while it lives (the session must not be run or submitted to by anyone else), and it
 * must be destroyed before the session.
 *
 * Concurrency: vkml_batcher_submit from any number of threads at once; the queries at any
 * time; destroy once, after every submitter has returned. */
typedef struct vkml_batcher vkml_batcher;

typedef struct vkml_batcher_params {
    /* Microseconds a partial batch may wait for more items while another batch of the
     * batcher runs, counted from its oldest item (an idle session takes a partial batch at
     * once, so a lone caller never waits): larger values give fuller batches under load,
     * each item waiting at most this long. 0: a partial batch goes whenever a lane is
     * free (batches in flight at once stay small until the GPU is saturated). At most
     * VKML_BATCHER_MAX_TIMEOUT_US. */
    int64_t timeout_us;
} vkml_batcher_params;

/* The most vkml_batcher_params.timeout_us takes (one second). */
#define VKML_BATCHER_MAX_TIMEOUT_US 1000000

/* Running totals of a batcher (vkml_batcher_stats). */
typedef struct vkml_batcher_stats {
    uint64_t items;   /* items completed (each reported to its submitter) */
    uint64_t batches; /* batches run */
    uint64_t full;    /* of them, batches with N items */
} vkml_batcher_stats;

/* Thread-safe. A batcher over `session` (params may be NULL: timeout 0). Refused, naming
 * the output, when N > 1 and an output's extent depends on the data (its rows cannot be
 * split per item); with N 1 an unbounded output (vkml_tensor_info.unbounded) is the run's
 * allocation, handed to the item (vkml_batcher_submit). */
VKML_API vkml_status vkml_batcher_create(vkml_session *session, const vkml_batcher_params *params,
                                         vkml_batcher **out, vkml_error *err);
/* Submits the remaining items, waits for every batch in flight, stops the thread, frees.
 * Not thread-safe against submits. Accepts a pointer to NULL. */
VKML_API void vkml_batcher_destroy(vkml_batcher **batcher);
/* Thread-safe. N: items per batch. */
VKML_API int vkml_batcher_batch_size(const vkml_batcher *batcher);
/* Thread-safe. The shape of an item's input or output `index`: the session's, with dim 0
 * 1 where the session's dim 0 is N (a batched tensor; a rank-1 frame input of a session
 * of N 1 stays as it is). An unbatched input (rank 0, or dim 0 not N) is read from the
 * first item of each batch: give every item the same value. An unbatched output goes
 * whole to every item. NULL when index is out of range. */
VKML_API const vkml_tensor_info *vkml_batcher_input(const vkml_batcher *batcher, size_t index);
VKML_API const vkml_tensor_info *vkml_batcher_output(const vkml_batcher *batcher, size_t index);
/* Thread-safe: any number of threads at once. Submits one item. inputs[i] has the dtype
 * of vkml_batcher_input(i) and at least its bytes (its rank and dims are not read, so a
 * [bytes] frame passes for a [1, bytes] one); the data is copied into the batch before
 * the call returns. outputs[i] has the dtype and room for the bytes of
 * vkml_batcher_output(i), and it (the array and the data) must stay valid until the item
 * completes; an unbounded output's tensor comes with data NULL, and the completed item's
 * holds the run's allocation, its dims and size (free it with vkml_tensor_release). Blocks while
 * the batcher holds a full batch that waits for a lane (the callers feel the GPU's pace). callback
 * (may be NULL) is called on a vkml thread when the item's batch completed and its outputs are
 * written, in submission order; it must not call into the batcher. *run as vkml_session_submit's
 * (wait with vkml_run_wait; NULL: detached). An error here (bad tensors, the batcher being
 * destroyed) means the item was not taken. */
VKML_API vkml_status vkml_batcher_submit(vkml_batcher *batcher, const vkml_tensor *inputs,
                                         size_t n_inputs, vkml_tensor *outputs, size_t n_outputs,
                                         vkml_run_callback callback, void *user, vkml_run **run,
                                         vkml_error *err);
/* Thread-safe. The totals so far. */
VKML_API void vkml_batcher_get_stats(const vkml_batcher *batcher, vkml_batcher_stats *out);

/* Convenience: fills `tensor` with dtype/rank/dims of the session's output `index` and a
 * malloc'ed buffer of the right size (free with vkml_tensor_release); for an unbounded
 * output no buffer (data NULL, size 0): the run allocates it. */
VKML_API vkml_status vkml_session_alloc_output(const vkml_session *session, size_t index,
                                               vkml_tensor *tensor, vkml_error *err);

/* ------------------------------------------------------------------------------------- */
/* Debugging: live Vulkan objects                                                         */

/* Kinds of Vulkan objects vkml creates. Descriptor sets are freed with their pool and
 * counted with it. */
typedef enum vkml_vk_object {
    VKML_VK_INSTANCE = 0,
    VKML_VK_DEVICE,
    VKML_VK_MEMORY, /* vkAllocateMemory allocations */
    VKML_VK_BUFFER,
    VKML_VK_SHADER_MODULE,
    VKML_VK_PIPELINE,
    VKML_VK_PIPELINE_LAYOUT,
    VKML_VK_PIPELINE_CACHE,
    VKML_VK_DESCRIPTOR_SET_LAYOUT,
    VKML_VK_DESCRIPTOR_POOL,
    VKML_VK_COMMAND_POOL,
    VKML_VK_COMMAND_BUFFER,
    VKML_VK_FENCE,
    VKML_VK_QUERY_POOL, /* profiled sessions' timestamps */
    VKML_VK_SEMAPHORE,  /* chunks that copy in another device's values */
    VKML_VK_OBJECT_KINDS
} vkml_vk_object;

typedef struct vkml_vk_counts {
    int64_t live[VKML_VK_OBJECT_KINDS]; /* created and not yet destroyed, per kind */
    int64_t memory_bytes;               /* bytes of the live VKML_VK_MEMORY allocations */
} vkml_vk_counts;

/* Thread-safe. The Vulkan objects of every context of the process that are alive now
 * (for leak tests and soak runs: all zero once every context is destroyed). Each number
 * is read atomically, but not all of them at one instant: read them while no other
 * thread creates or destroys sessions or contexts. */
VKML_API void vkml_debug_vk_counts(vkml_vk_counts *out);
/* Thread-safe. "buffer", "fence", ...; "unknown" for other values. */
VKML_API const char *vkml_vk_object_name(vkml_vk_object kind);

#ifdef __cplusplus
}
#endif

#endif /* VKML_VKML_H */
