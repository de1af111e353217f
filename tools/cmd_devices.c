/* `vkml devices`: one line per device, the default marked with '*'. */
#include "cli_util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static int devices_main(int argc, char **argv);

const cli_command cli_cmd_devices = {
    .name = "devices",
    .summary = "list the devices (CPU and Vulkan) and mark the default",
    .usage = "usage: vkml devices\n"
             "Lists every device: index (cpu, 0, 1, ...), name, vendor, type, memory in MiB,\n"
             "Vulkan API version, the queues it copies values between devices on (copies:\n"
             "N on its copy engines, a transfer-only queue family, or N of its compute family;\n"
             "'-': none, the kernels' queue does) and the CPU that services its interrupts\n"
             "(irq cpu; '-' where they are spread or unknown; see keep_thread_affinity in\n"
             "vkml.h). '*' marks the\n"
             "device sessions use by default: the first discrete or integrated GPU, else cpu\n"
             "(lavapipe and other Vulkan devices on the CPU are used only when named by\n"
             "index); the last line says which and why.\n",
    .main = devices_main,
};

/* Column widths: each column fits its longest entry. */
typedef struct device_columns {
    int name;
    int vendor;
    int type;
} device_columns;

static void print_device(const vkml_device_info *info, bool is_default, const device_columns *w)
{
    char label[16], api[32] = "-", irq[16] = "-", copies[24] = "-";
    if (info->api_version)
        snprintf(api, sizeof(api), "Vulkan %u.%u.%u", info->api_version >> 22,
                 (info->api_version >> 12) & 0x3ff, info->api_version & 0xfff);
    if (info->irq_cpu >= 0)
        snprintf(irq, sizeof(irq), "%d", info->irq_cpu);
    if (info->copy_queues > 0)
        snprintf(copies, sizeof(copies), "%d %s", info->copy_queues,
                 info->copy_engines ? "engine" : "compute");
    printf("%c %-4s %-*s  %-*s  %-*s  %8llu MiB  %-14s  %-9s  %s\n", is_default ? '*' : ' ',
           cli_device_label(info->index, label, sizeof(label)), w->name, info->name, w->vendor,
           info->vendor, w->type, vkml_device_type_name(info->type),
           (unsigned long long)(info->memory_bytes >> 20), api, copies, irq);
}

static int widest(int width, const char *text)
{
    int n = (int)strlen(text);
    return n > width ? n : width;
}

static int list_devices(vkml_context *ctx)
{
    int n = vkml_context_device_count(ctx) + 1; /* the CPU first */
    vkml_device_info *infos = calloc((size_t)n, sizeof(*infos));
    if (!infos)
        return cli_error("out of memory");
    device_columns w = {.name = 4, .vendor = 6, .type = 4};
    for (int i = 0; i < n; i++) {
        vkml_error err = {0};
        vkml_status st = vkml_context_device_info(ctx, i - 1, &infos[i], &err);
        if (st != VKML_OK) {
            free(infos);
            return cli_error_vkml("reading the device list", st, &err);
        }
        w.name = widest(w.name, infos[i].name);
        w.vendor = widest(w.vendor, infos[i].vendor);
        w.type = widest(w.type, vkml_device_type_name(infos[i].type));
    }
    int def = vkml_context_default_device(ctx);
    printf("  %-4s %-*s  %-*s  %-*s  %12s  %-14s  %-9s  %s\n", "dev", w.name, "name", w.vendor,
           "vendor", w.type, "type", "memory", "api", "copies", "irq cpu");
    for (int i = 0; i < n; i++)
        print_device(&infos[i], i - 1 == def, &w);
    if (def == VKML_DEVICE_CPU)
        printf("default: cpu (no discrete or integrated GPU; a Vulkan device on the CPU, such "
               "as lavapipe, is used only when named by its index)\n");
    else
        printf("default: %d (the first discrete or integrated GPU)\n", def);
    free(infos);
    return CLI_EXIT_OK;
}

static int devices_main(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int c;
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        if (c == 'h')
            return cli_usage(&cli_cmd_devices);
        return cli_option_error(&cli_cmd_devices, c, argv);
    }
    if (optind != argc)
        return cli_usage_error(&cli_cmd_devices, "unexpected argument '%s'", argv[optind]);
    vkml_context *ctx = cli_context_create(false);
    if (!ctx)
        return CLI_EXIT_FAILURE;
    int rc = list_devices(ctx);
    vkml_context_destroy(&ctx);
    return rc;
}
