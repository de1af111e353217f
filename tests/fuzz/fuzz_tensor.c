/* libFuzzer target: bytes -> vkml_tensor_read_memory (a .pb TensorProto) -> release. */
#include <vkml/vkml.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vkml_tensor t;
    char *name = NULL;
    vkml_error err;
    if (vkml_tensor_read_memory(data, size, &t, &name, &err) == VKML_OK) {
        /* Touch every byte: the size the call reports must be really there. */
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < t.size; i++)
            sum ^= ((const uint8_t *)t.data)[i];
        /* Packed 4- and 2-bit types round up to whole bytes; strings are an array of
         * pointers to NUL-terminated strings, each read here to its end. */
        size_t n = vkml_tensor_element_count(t.rank, t.dims);
        size_t bits = n * vkml_dtype_bits(t.dtype);
        if (t.dtype == VKML_DTYPE_STRING) {
            bits = n * sizeof(const char *) * 8;
            for (size_t i = 0; t.size == bits / 8 && i < n; i++)
                sum ^= (uint8_t)strlen(((const char *const *)t.data)[i]);
        }
        if (!name || (bits + 7) / 8 != t.size)
            abort(); /* a success must describe the bytes it returns */
        (void)sum;
    }
    vkml_tensor_release(&t);
    free(name);
    return 0;
}
