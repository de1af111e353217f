/* onednn.h in a build without oneDNN: every node runs its C kernel. */
#include "cpu/onednn/onednn.h"

bool onednn_enabled(void)
{
    return false;
}

const char *onednn_op_forms(const op_def *op)
{
    (void)op;
    return NULL;
}

bool onednn_int8_exact(void)
{
    return false;
}

bool onednn_sgemm(const struct cpu_sgemm_args *g)
{
    (void)g;
    return false;
}

const char *onednn_version(void)
{
    return "none";
}

vkml_status onednn_session_create(const device_session_desc *desc, void *const *ptrs,
                                  onednn_session **out, vkml_error *err)
{
    (void)desc;
    (void)ptrs;
    (void)err;
    *out = NULL;
    return VKML_OK;
}

void onednn_session_destroy(onednn_session **s)
{
    *s = NULL;
}

bool onednn_session_has(const onednn_session *s, int node)
{
    (void)s;
    (void)node;
    return false;
}

int onednn_session_node_count(const onednn_session *s)
{
    (void)s;
    return 0;
}

vkml_status onednn_session_run(onednn_session *s, int chunk, int node, vkml_error *err)
{
    (void)s;
    (void)chunk;
    (void)node;
    return vkml_fail(err, VKML_ERROR_DEVICE, "built without oneDNN");
}
