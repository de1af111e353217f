#pragma once
/* Files the loader reads: read-only mappings of models and .pb files, and external data
 * resolved safely inside the model's folder. */
#include "core/common.h"

typedef struct onnx_mapping {
    void *data;  /* NULL for an empty file */
    size_t size;
} onnx_mapping;

/* Maps a regular file read-only. Errors (VKML_ERROR_IO) name the path. */
vkml_status onnx_map_file(const char *path, onnx_mapping *map, vkml_error *err);
void onnx_unmap(onnx_mapping *map);

/* Where a tensor's external data lies (TensorProto.external_data). */
typedef struct onnx_external_ref {
    const char *location; /* relative to the model's folder */
    uint64_t offset;
    bool has_length;
    uint64_t length;
} onnx_external_ref;

/* Reads `size` bytes of external data into dst. The location must stay inside base_dir:
 * absolute paths, `..` components and symlinks leading outside are refused, as are
 * ranges past the end of the file and a length other than `size` (all
 * VKML_ERROR_INVALID_MODEL naming `what`). */
vkml_status onnx_read_external(const char *base_dir, const onnx_external_ref *ref, void *dst,
                               size_t size, const char *what, vkml_error *err);
