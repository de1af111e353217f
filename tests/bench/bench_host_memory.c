/* Host memory of a session by stage: `bench_host_memory MODEL [DEVICE] [RUNS]` (DEVICE: a
 * Vulkan index or "cpu", default 0; RUNS default 3). After each stage (context, model
 * load, session creation, model destroyed, runs) it prints the heap in use (mallinfo2:
 * arena + mmapped chunks in use), RssAnon and RssFile (/proc/self/status) and the peak
 * RSS so far (VmHWM). On a Vulkan device on the CPU (lavapipe) device memory is host
 * memory too: compare with DEVICE cpu, and look at the heap, which is vkml's own. */
#include "vkml/vkml.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A field of /proc/self/status in KiB, or -1. */
static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    size_t n = strlen(field);
    while (f && fgets(line, sizeof(line), f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            kib = strtol(line + n + 1, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

static void report(const char *stage)
{
    struct mallinfo2 mi = mallinfo2();
    printf("%-22s heap %7.1f MiB  RssAnon %7.1f MiB  RssFile %6.1f MiB  peak RSS %7.1f MiB\n",
           stage, (double)(mi.uordblks + mi.hblkhd) / (1 << 20),
           (double)status_kib("RssAnon") / 1024, (double)status_kib("RssFile") / 1024,
           (double)status_kib("VmHWM") / 1024);
    fflush(stdout);
}

static int fail(const char *what, const vkml_error *err)
{
    fprintf(stderr, "bench_host_memory: %s: %s\n", what, err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_host_memory MODEL [DEVICE|cpu] [RUNS]\n");
        return 2;
    }
    int device = argc > 2 && strcmp(argv[2], "cpu") == 0 ? VKML_DEVICE_CPU
                 : argc > 2                              ? atoi(argv[2])
                                                         : 0;
    int runs = argc > 3 ? atoi(argv[3]) : 3;
    vkml_error err = {0};
    vkml_context *ctx = NULL;
    vkml_model *model = NULL;
    vkml_session *session = NULL;
    report("start");
    vkml_context_params cp = {.disable_vulkan = device == VKML_DEVICE_CPU};
    if (vkml_context_create(&cp, &ctx, &err) != VKML_OK)
        return fail("context", &err);
    report("context");
    if (vkml_model_load_file(argv[1], &model, &err) != VKML_OK)
        return fail("model", &err);
    report("model loaded");
    vkml_session_params sp = {.device = device};
    if (vkml_session_create(ctx, model, &sp, &session, &err) != VKML_OK)
        return fail("session", &err);
    report("session created");
    vkml_model_destroy(&model); /* the session keeps what it needs */
    report("model destroyed");
    size_t n_in = vkml_session_input_count(session), n_out = vkml_session_output_count(session);
    vkml_tensor *in = calloc(n_in + 1, sizeof(*in)), *out = calloc(n_out + 1, sizeof(*out));
    int rc = 0;
    for (size_t i = 0; i < n_in && !rc; i++) {
        const vkml_tensor_info *info = vkml_session_input(session, i);
        size_t bytes =
            vkml_tensor_element_count(info->rank, info->dims) * vkml_dtype_size(info->dtype);
        if (info->dtype == VKML_DTYPE_STRING || vkml_dtype_size(info->dtype) == 0) {
            fprintf(stderr, "bench_host_memory: input %zu has no fixed size\n", i);
            rc = 1;
        }
        in[i] = (vkml_tensor){.dtype = info->dtype,
                              .rank = info->rank,
                              .size = bytes,
                              .data = calloc(1, bytes ? bytes : 1)};
        memcpy(in[i].dims, info->dims, sizeof(in[i].dims));
    }
    for (size_t i = 0; i < n_out && !rc; i++)
        if (vkml_session_alloc_output(session, i, &out[i], &err) != VKML_OK)
            rc = fail("output", &err);
    for (int r = 0; r < runs && !rc; r++)
        if (vkml_session_run(session, in, n_in, out, n_out, &err) != VKML_OK)
            rc = fail("run", &err);
    if (!rc)
        report("after runs");
    for (size_t i = 0; i < n_in; i++)
        free(in[i].data);
    for (size_t i = 0; i < n_out; i++)
        free(out[i].data);
    free(in);
    free(out);
    vkml_session_destroy(&session);
    vkml_context_destroy(&ctx);
    report("all destroyed");
    return rc;
}
