/* `vkml devices`: one line per device, the default marked with '*'. */
#include "cli_util.h"

#include <getopt.h>

static int devices_main(int argc, char **argv);

const cli_command cli_cmd_devices = {
    .name = "devices",
    .summary = "list the devices (CPU and Vulkan) and mark the default",
    .usage = "usage: vkml devices\n"
             "Lists every device: index (cpu, 0, 1, ...), name, vendor, type, memory in MiB\n"
             "and Vulkan API version. '*' marks the device sessions use by default.\n",
    .main = devices_main,
};

static void print_device(const vkml_device_info *info, bool is_default)
{
    char label[16], api[32] = "-";
    if (info->api_version)
        snprintf(api, sizeof(api), "Vulkan %u.%u.%u", info->api_version >> 22,
                 (info->api_version >> 12) & 0x3ff, info->api_version & 0xfff);
    printf("%c %-4s %-40s %-8s %-16s %8llu MiB  %s\n", is_default ? '*' : ' ',
           cli_device_label(info->index, label, sizeof(label)), info->name, info->vendor,
           vkml_device_type_name(info->type), (unsigned long long)(info->memory_bytes >> 20), api);
}

static int list_devices(vkml_context *ctx)
{
    int def = vkml_context_default_device(ctx);
    printf("  %-4s %-40s %-8s %-16s %12s  %s\n", "dev", "name", "vendor", "type", "memory", "api");
    for (int i = VKML_DEVICE_CPU; i < vkml_context_device_count(ctx); i++) {
        vkml_device_info info;
        vkml_error err = {0};
        vkml_status st = vkml_context_device_info(ctx, i, &info, &err);
        if (st != VKML_OK)
            return cli_error_vkml("reading the device list", st, &err);
        print_device(&info, i == def);
    }
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
    vkml_context *ctx = cli_context_create();
    if (!ctx)
        return CLI_EXIT_FAILURE;
    int rc = list_devices(ctx);
    vkml_context_destroy(&ctx);
    return rc;
}
