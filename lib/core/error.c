#include "core/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

vkml_status vkml_fail(vkml_error *err, vkml_status status, const char *fmt, ...)
{
    char message[sizeof(err->message)];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    VKML_LOGD("error (%s): %s", vkml_status_name(status), message);
    if (err) {
        err->status = status;
        memcpy(err->message, message, sizeof(message));
    }
    return status;
}

void vkml_error_prefix(vkml_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    /* prefix + ": " + message, cut to the buffer; built by hand so the compiler sees the
     * truncation is meant. */
    char joined[sizeof(err->message)];
    size_t used = strnlen(prefix, sizeof(joined) - 3);
    memcpy(joined, prefix, used);
    memcpy(joined + used, ": ", 2);
    used += 2;
    size_t rest = strnlen(err->message, sizeof(joined) - used - 1);
    memcpy(joined + used, err->message, rest);
    joined[used + rest] = '\0';
    memcpy(err->message, joined, sizeof(joined));
}

const char *vkml_status_name(vkml_status status)
{
    switch (status) {
    case VKML_OK: return "ok";
    case VKML_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case VKML_ERROR_IO: return "i/o error";
    case VKML_ERROR_INVALID_MODEL: return "invalid model";
    case VKML_ERROR_UNSUPPORTED: return "unsupported";
    case VKML_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VKML_ERROR_DEVICE: return "device error";
    case VKML_ERROR_DEVICE_LOST: return "device lost";
    }
    return "unknown status";
}
