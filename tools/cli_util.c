/* Error lines, usage, option values, the context and device names, timing. */
#include "cli_util.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void vprint_line(const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_line("vkml: error: ", fmt, ap);
    va_end(ap);
    return CLI_EXIT_FAILURE;
}

void cli_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_line("vkml: note: ", fmt, ap);
    va_end(ap);
}

int cli_error_vkml(const char *what, vkml_status status, const vkml_error *err)
{
    const char *msg = err && err->message[0] ? err->message : vkml_status_name(status);
    if (strstr(msg, what)) /* the library's message already names it (a file, mostly) */
        return cli_error("%s", msg);
    return cli_error("%s: %s", what, msg);
}

int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprint_line("vkml: error: ", fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s", cmd->usage);
    return CLI_EXIT_USAGE;
}

int cli_option_error(const cli_command *cmd, int c, char **argv)
{
    const char *arg = argv[optind - 1];
    if (c == ':')
        return cli_usage_error(cmd, "option '%s' needs a value", arg);
    return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_usage(const cli_command *cmd)
{
    printf("%s", cmd->usage);
    return CLI_EXIT_OK;
}

bool cli_parse_count(const char *text, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < 1)
        return false;
    *out = v;
    return true;
}

vkml_context *cli_context_create(bool cpu_only)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    vkml_context_params params = {.disable_vulkan = cpu_only};
    vkml_status st = vkml_context_create(&params, &ctx, &err);
    if (st != VKML_OK) {
        cli_error_vkml("creating the context", st, &err);
        return NULL;
    }
    return ctx;
}

bool cli_device_parse(const vkml_context *ctx, const char *text, int *index)
{
    vkml_error err = {0};
    vkml_status st = vkml_context_parse_device(ctx, text ? text : "default", index, &err);
    if (st != VKML_OK) {
        cli_error_vkml("--device", st, &err);
        return false;
    }
    return true;
}

const char *cli_device_label(int index, char *buf, size_t size)
{
    if (index == VKML_DEVICE_CPU)
        snprintf(buf, size, "cpu");
    else
        snprintf(buf, size, "%d", index);
    return buf;
}

bool cli_parse_size(const char *text, uint64_t *out)
{
    if (!text || !*text)
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || text[0] == '-')
        return false;
    int shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        end++;
        break;
    case 'M':
    case 'm':
        shift = 20;
        end++;
        break;
    case 'G':
    case 'g':
        shift = 30;
        end++;
        break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')
        end += *end == 'i' && end[1] == 'B' ? 2 : 1;
    if (*end || v == 0 || v > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

const char *cli_format_bytes(uint64_t b, char *buf, size_t size)
{
    if (b >= (1ull << 30))
        snprintf(buf, size, "%.2f GiB", (double)b / (double)(1ull << 30));
    else if (b >= (1ull << 20))
        snprintf(buf, size, "%.2f MiB", (double)b / (double)(1ull << 20));
    else if (b >= (1ull << 10))
        snprintf(buf, size, "%.2f KiB", (double)b / (double)(1ull << 10));
    else
        snprintf(buf, size, "%llu bytes", (unsigned long long)b);
    return buf;
}

bool cli_devices_parse(const vkml_context *ctx, const char *devices, const char *budget,
                       cli_devices *out)
{
    *out = (cli_devices){0};
    if (budget && !cli_parse_size(budget, &out->budget)) {
        cli_error("--budget %s: not a size (bytes, or with K, M or G: 256M)", budget);
        return false;
    }
    if (!devices || strcmp(devices, "default") == 0)
        return true;
    vkml_error err = {0};
    vkml_status st = vkml_context_parse_devices(ctx, devices, out->indices,
                                                VKML_MAX_SESSION_DEVICES, &out->n, &err);
    if (st != VKML_OK) {
        cli_error_vkml("--device", st, &err);
        return false;
    }
    return true;
}

void cli_devices_apply(const cli_devices *d, vkml_session_params *params)
{
    params->device = VKML_DEVICE_DEFAULT;
    params->devices = d->n ? d->indices : NULL;
    params->n_devices = d->n;
    params->device_budget = d->budget;
    params->precision = d->precision;
}

bool cli_precision_parse(const char *text, cli_devices *out)
{
    if (!text || vkml_precision_parse(text, &out->precision))
        return true;
    cli_error("--precision %s: expected fp32, fp32-fast, fp16 or fp16-always", text);
    return false;
}

const char *cli_devices_label(const vkml_context *ctx, const cli_devices *d, char *buf, size_t size)
{
    if (!d->n)
        return cli_device_label(vkml_context_default_device(ctx), buf, size);
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < d->n && used < size; i++) {
        char one[16];
        int w = snprintf(buf + used, size - used, "%s%s", i ? "," : "",
                         cli_device_label(d->indices[i], one, sizeof(one)));
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_quantile(double *samples, size_t n, double q)
{
    if (n == 0)
        return 0.0;
    qsort(samples, n, sizeof(*samples), compare_doubles);
    /* Nearest rank: the smallest sample with at least q*n samples at or below it. */
    size_t rank = (size_t)(q * (double)n + 0.999999);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return samples[rank - 1];
}

void cli_set_no_fuse(void)
{
    setenv("VKML_NO_FUSE", "1", 1);
}
