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

vkml_context *cli_context_create(void)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_context_create(NULL, &ctx, &err);
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
