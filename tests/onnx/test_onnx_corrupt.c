/* Damaged inputs: every truncation, random bytes and bit flips of real models and .pb
 * files. Each load must return an error with a message (or, for a flip that leaves valid
 * ONNX, a usable model); none may crash, leak or read out of bounds (run under ASan or
 * valgrind to see the latter). */
#include "testutil.h"

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "open %s", path);
    if (!f)
        return NULL;
    unsigned char *bytes = malloc(1 << 20);
    *size = bytes ? fread(bytes, 1, 1 << 20, f) : 0;
    fclose(f);
    return bytes;
}

typedef enum { KIND_MODEL, KIND_TENSOR } kind;

/* Loads bytes; returns the status after checking the error contract. */
static vkml_status load(kind k, const unsigned char *bytes, size_t size)
{
    vkml_error err = {.message = "stale"};
    vkml_status st;
    if (k == KIND_MODEL) {
        vkml_model *m = NULL;
        st = vkml_model_load_memory(bytes, size, NULL, &m, &err);
        CHECK((st == VKML_OK) == (m != NULL), "model pointer matches the status");
        if (m) /* a usable model: its public view answers */
            CHECK(vkml_model_node_count(m) < 1000000 && vkml_model_opset(m) >= 0, "usable");
        vkml_model_destroy(&m);
    } else {
        vkml_tensor t = {0};
        st = vkml_tensor_read_memory(bytes, size, &t, NULL, &err);
        CHECK((st == VKML_OK) == (t.data != NULL), "tensor data matches the status");
        vkml_tensor_release(&t);
    }
    CHECK(st == VKML_OK || (err.message[0] && strcmp(err.message, "stale") != 0),
          "error %s without a message", vkml_status_name(st));
    CHECK(st == VKML_OK || st == VKML_ERROR_INVALID_MODEL || st == VKML_ERROR_UNSUPPORTED ||
              st == VKML_ERROR_OUT_OF_MEMORY || st == VKML_ERROR_IO,
          "status %s", vkml_status_name(st));
    return st;
}

/* Every proper prefix must fail: a model or tensor cut short is never valid. */
static void test_truncations(kind k, const unsigned char *bytes, size_t size, const char *what)
{
    int accepted = 0;
    for (size_t cut = 0; cut < size; cut++)
        if (load(k, bytes, cut) == VKML_OK && accepted++ < 5)
            fprintf(stderr, "%s: the first %zu of %zu bytes were accepted\n", what, cut, size);
    CHECK(accepted == 0, "%s: %d truncations accepted", what, accepted);
    CHECK(load(k, bytes, size) == VKML_OK, "%s: the whole file loads", what);
}

/* Returns how many of the damaged copies were refused. */
static int test_bit_flips(kind k, const unsigned char *bytes, size_t size, int flips, uint64_t seed)
{
    unsigned char *copy = malloc(size);
    if (!copy)
        return 0;
    int failed = 0;
    for (int i = 0; i < flips; i++) {
        memcpy(copy, bytes, size);
        uint64_t r = (uint64_t)(test_randf(&seed, 0, 1) * 16777216.0f);
        size_t at = (size_t)((double)test_randf(&seed, 0, 1) * (double)size);
        for (int j = 0; j < 1 + (int)(r % 3); j++) /* 1 to 3 flips near each other */
            copy[(at + (size_t)j * 7) % size] ^= (unsigned char)(1u << ((r >> (8 + j)) & 7));
        failed += load(k, copy, size) != VKML_OK;
    }
    /* Most flips land in weights and leave a valid model; some must not. */
    printf("bit flips: %d of %d refused\n", failed, flips);
    free(copy);
    return failed;
}

static void test_random_bytes(void)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    unsigned char buf[4096];
    for (int i = 0; i < 2000; i++) {
        size_t size = 1 + (size_t)(test_randf(&seed, 0, 1) * (float)(sizeof(buf) - 1));
        for (size_t j = 0; j < size; j++)
            buf[j] = (unsigned char)(test_randf(&seed, 0, 256));
        CHECK(load(KIND_MODEL, buf, size) != VKML_OK, "random bytes #%d accepted", i);
        load(KIND_TENSOR, buf, size);
    }
    /* Hand-made hostile encodings. */
    static const unsigned char varint_overlong[] = {0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
                                                    0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const unsigned char huge_length[] = {0x3a, 0xff, 0xff, 0xff, 0xff, 0x0f};
    static const unsigned char group[] = {0x0b, 0x0c};
    static const unsigned char field_zero[] = {0x00, 0x01};
    CHECK(load(KIND_MODEL, varint_overlong, sizeof(varint_overlong)) != VKML_OK, "overlong");
    CHECK(load(KIND_MODEL, huge_length, sizeof(huge_length)) != VKML_OK, "huge length");
    CHECK(load(KIND_MODEL, group, sizeof(group)) != VKML_OK, "group");
    CHECK(load(KIND_MODEL, field_zero, sizeof(field_zero)) != VKML_OK, "field 0");
}

/* A graph of a million empty nodes: 2 bytes each on the wire, far more once decoded. */
static void test_message_flood(void)
{
    const size_t nodes = 1u << 20, body = nodes * 2;
    unsigned char *bytes = malloc(body + 16);
    if (!bytes)
        return;
    size_t n = 0;
    bytes[n++] = 0x42; /* opset_import { version: 13 } */
    bytes[n++] = 0x02;
    bytes[n++] = 0x10;
    bytes[n++] = 0x0d;
    bytes[n++] = 0x3a; /* graph, length as a varint */
    for (size_t len = body;; len >>= 7) {
        bytes[n++] = (unsigned char)((len & 0x7f) | (len >= 0x80 ? 0x80 : 0));
        if (len < 0x80)
            break;
    }
    for (size_t i = 0; i < nodes; i++) { /* node {} */
        bytes[n++] = 0x0a;
        bytes[n++] = 0x00;
    }
    vkml_model *m = NULL;
    vkml_error err = {0};
    CHECK(vkml_model_load_memory(bytes, n, NULL, &m, &err) == VKML_ERROR_INVALID_MODEL &&
              strstr(err.message, "far more"),
          "message flood: %s", err.message);
    vkml_model_destroy(&m);
    free(bytes);
}

int main(int argc, char **argv)
{
    char path[4096];
    size_t size = 0;
    unsigned char *bytes =
        read_all(test_corpus_path(path, sizeof(path), "models/mnist-8/model.onnx"), &size);
    if (bytes) {
        test_truncations(KIND_MODEL, bytes, size, "mnist-8");
        int refused = test_bit_flips(KIND_MODEL, bytes, size, 3000, 1);
        /* Flips in the graph's structure (not its weights) are caught. */
        CHECK(refused > 50 && refused < 3000, "%d of 3000 damaged mnist-8 copies refused", refused);
    }
    free(bytes);
    bytes = read_all(
        test_corpus_path(path, sizeof(path), "models/mnist-8/test_data_set_1/input_0.pb"), &size);
    if (bytes) {
        test_truncations(KIND_TENSOR, bytes, size, "input_0.pb");
        test_bit_flips(KIND_TENSOR, bytes, size, 500, 2);
    }
    free(bytes);
    if (argc > 1) { /* every attribute type and subgraphs: the generated attrs.onnx */
        snprintf(path, sizeof(path), "%s/attrs.onnx", argv[1]);
        bytes = read_all(path, &size);
        if (bytes) {
            /* attrs.onnx has an op vkml lacks: every load fails, none may crash. */
            for (size_t cut = 0; cut <= size; cut++)
                CHECK(load(KIND_MODEL, bytes, cut) != VKML_OK, "attrs.onnx cut %zu", cut);
            test_bit_flips(KIND_MODEL, bytes, size, 3000, 3);
        }
        free(bytes);
    }
    test_random_bytes();
    test_message_flood();
    return test_finish("test_onnx_corrupt");
}
