#include "onnx/onnx_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Opens a regular file read-only and returns its size. */
static vkml_status open_regular(const char *path, const char *what, int *fd_out, size_t *size,
                                vkml_error *err)
{
    /* O_NONBLOCK: opening a FIFO must not hang; it is then refused as not a regular file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return vkml_fail(err, VKML_ERROR_IO, "%s '%s': cannot open: %s", what, path,
                         strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return vkml_fail(err, VKML_ERROR_IO, "%s '%s': not a regular file", what, path);
    }
    if ((uint64_t)st.st_size > SIZE_MAX) {
        close(fd);
        return vkml_fail(err, VKML_ERROR_IO, "%s '%s': too large", what, path);
    }
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return VKML_OK;
}

/* Reads exactly size bytes from fd into dst; false on an error or a file that shrank. */
static bool read_all(int fd, uint8_t *dst, size_t size)
{
    size_t done = 0;
    while (done < size) {
        ssize_t n = read(fd, dst + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        done += (size_t)n;
    }
    return true;
}

/* The file is read into private anonymous memory, not mapped: constants point into these
 * bytes for the model's life, and a shared file mapping would let a file rewritten or
 * truncated in place (`cp new.onnx model.onnx` under a running pipeline) change the
 * weights or kill the process with SIGBUS. The cost is the file's size in anonymous RSS,
 * where a mapping's clean pages were reclaimable page cache. */
vkml_status onnx_map_file(const char *path, bool writable, onnx_mapping *map, vkml_error *err)
{
    map->data = NULL;
    map->size = 0;
    int fd = -1;
    size_t size = 0;
    vkml_status st = open_regular(path, "file", &fd, &size, err);
    if (st != VKML_OK)
        return st;
    if (size > 0) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            close(fd);
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "file '%s': no memory for %zu bytes",
                             path, size);
        }
        int saved = 0;
        errno = 0;
        if (fcntl(fd, F_SETFL, 0) != 0 || !read_all(fd, p, size)) {
            saved = errno;
            munmap(p, size);
            close(fd);
            return vkml_fail(err, VKML_ERROR_IO, "file '%s': cannot read %zu bytes: %s", path, size,
                             saved ? strerror(saved) : "it shrank while being read");
        }
        map->data = p;
        map->size = size;
        if (!writable)
            onnx_map_seal(map);
    }
    close(fd);
    return VKML_OK;
}

void onnx_map_seal(onnx_mapping *map)
{
    if (map->data) /* the bytes are the model's: nothing writes them any more */
        mprotect(map->data, map->size, PROT_READ);
}

void onnx_unmap(onnx_mapping *map)
{
    if (map->data)
        munmap(map->data, map->size);
    map->data = NULL;
    map->size = 0;
}

/* Refuses locations that name something outside the folder by their spelling alone. */
static bool location_is_relative_inside(const char *location)
{
    if (!location[0] || location[0] == '/')
        return false;
    const char *p = location;
    while (*p) {
        size_t len = strcspn(p, "/");
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += len;
        if (*p == '/')
            p++;
    }
    return true;
}

/* Resolves base_dir/location with every symlink followed; it must lie inside base_dir. */
static vkml_status resolve_inside(const char *base_dir, const char *location, char *resolved,
                                  const char *what, vkml_error *err)
{
    char base_real[PATH_MAX], joined[PATH_MAX];
    if (!location_is_relative_inside(location))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: external data location '%s' is not a relative path inside the "
                         "model's folder",
                         what, location);
    if (!realpath(base_dir, base_real))
        return vkml_fail(err, VKML_ERROR_IO, "%s: model folder '%s': %s", what, base_dir,
                         strerror(errno));
    if ((size_t)snprintf(joined, sizeof(joined), "%s/%s", base_real, location) >= sizeof(joined))
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL, "%s: external data path too long", what);
    if (!realpath(joined, resolved))
        return vkml_fail(err, VKML_ERROR_IO, "%s: external data file '%s': %s", what, joined,
                         strerror(errno));
    size_t base_len = strlen(base_real);
    bool inside = strncmp(resolved, base_real, base_len) == 0 &&
                  (resolved[base_len] == '/' || (base_len == 1 && base_real[0] == '/'));
    if (!inside)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: external data location '%s' leads outside the model's folder "
                         "(to '%s')",
                         what, location, resolved);
    return VKML_OK;
}

typedef struct onnx_ext_file {
    char *path; /* resolved */
    onnx_mapping map;
} onnx_ext_file;

/* The mapping of a resolved path, mapped on first use. */
static vkml_status ext_file(onnx_ext_files *files, const char *resolved, const char *what,
                            const onnx_mapping **out, vkml_error *err)
{
    for (size_t i = 0; i < files->count; i++) {
        if (strcmp(files->items[i].path, resolved) == 0) {
            *out = &files->items[i].map;
            return VKML_OK;
        }
    }
    if (files->count == files->capacity) {
        size_t capacity = files->capacity ? files->capacity * 2 : 4;
        onnx_ext_file *items = realloc(files->items, capacity * sizeof(*items));
        if (!items)
            return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
        files->items = items;
        files->capacity = capacity;
    }
    onnx_ext_file *f = &files->items[files->count];
    f->path = strdup(resolved);
    if (!f->path)
        return vkml_fail(err, VKML_ERROR_OUT_OF_MEMORY, "%s: out of memory", what);
    vkml_status st = onnx_map_file(resolved, false, &f->map, err);
    if (st != VKML_OK) {
        free(f->path);
        vkml_error_prefix(err, "%s: external data", what);
        return st;
    }
    files->count++;
    *out = &f->map;
    return VKML_OK;
}

static vkml_status check_range(const onnx_external_ref *ref, size_t file_size, size_t size,
                               const char *what, vkml_error *err)
{
    uint64_t length = ref->has_length ? ref->length : 0;
    if (!ref->has_length && ref->offset <= file_size)
        length = file_size - ref->offset;
    if (ref->offset > file_size || length > file_size - ref->offset)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: external data range [%llu, +%llu) lies past the end of '%s' (%zu "
                         "bytes)",
                         what, (unsigned long long)ref->offset, (unsigned long long)length,
                         ref->location, file_size);
    if (length != size)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: external data holds %llu bytes, its shape needs %zu", what,
                         (unsigned long long)length, size);
    return VKML_OK;
}

vkml_status onnx_external_data(const char *base_dir, onnx_ext_files *files,
                               const onnx_external_ref *ref, size_t size, const char *what,
                               const void **data, vkml_error *err)
{
    *data = NULL;
    if (!base_dir || !files)
        return vkml_fail(err, VKML_ERROR_INVALID_MODEL,
                         "%s: uses external data ('%s') but the model was loaded from memory "
                         "without a base folder",
                         what, ref->location);
    char resolved[PATH_MAX];
    const onnx_mapping *map = NULL;
    vkml_status st = resolve_inside(base_dir, ref->location, resolved, what, err);
    if (st == VKML_OK)
        st = ext_file(files, resolved, what, &map, err);
    if (st == VKML_OK)
        st = check_range(ref, map->size, size, what, err);
    if (st == VKML_OK && size)
        *data = (const uint8_t *)map->data + ref->offset;
    return st;
}

void onnx_ext_files_release(onnx_ext_files *files)
{
    for (size_t i = 0; i < files->count; i++) {
        onnx_unmap(&files->items[i].map);
        free(files->items[i].path);
    }
    free(files->items);
    memset(files, 0, sizeof(*files));
}
