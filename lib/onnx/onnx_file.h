#pragma once
/* Files the loader reads: private read-only copies of models and .pb files, and external data
 * resolved safely inside the model's folder. */
#include "core/common.h"

typedef struct onnx_mapping {
    void *data; /* NULL for an empty file */
    size_t size;
} onnx_mapping;

/* Reads a regular file into private read-only memory (a copy, so rewriting or truncating
 * the file later changes nothing loaded). Errors (VKML_ERROR_IO) name the path. With
 * `writable` the copy stays writable (the loader realigns weights in it) until
 * onnx_map_seal. */
vkml_status onnx_map_file(const char *path, bool writable, onnx_mapping *map, vkml_error *err);
/* Makes a writable copy read-only. */
void onnx_map_seal(onnx_mapping *map);
void onnx_unmap(onnx_mapping *map);

/* Where a tensor's external data lies (TensorProto.external_data). */
typedef struct onnx_external_ref {
    const char *location; /* relative to the model's folder */
    uint64_t offset;
    bool has_length;
    uint64_t length;
} onnx_external_ref;

/* External data files mapped during a load, each once; they stay mapped (constants point
 * into them) until onnx_ext_files_release. Zero-initialise. */
typedef struct onnx_ext_files {
    struct onnx_ext_file *items;
    size_t count, capacity;
} onnx_ext_files;

/* Finds `size` bytes of external data: *data points into the file's mapping (NULL when
 * size is 0). The location must stay inside base_dir: absolute paths, `..` components
 * and symlinks leading outside are refused, as are ranges past the end of the file and a
 * length other than `size` (VKML_ERROR_INVALID_MODEL naming `what`). A missing file is
 * VKML_ERROR_IO. */
vkml_status onnx_external_data(const char *base_dir, onnx_ext_files *files,
                               const onnx_external_ref *ref, size_t size, const char *what,
                               const void **data, vkml_error *err);
void onnx_ext_files_release(onnx_ext_files *files);
