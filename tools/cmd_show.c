/* `vkml show FILE.pb`: prints a serialized TensorProto (as in the ONNX test data). */
#include "cli_util.h"

#include <getopt.h>
#include <stdlib.h>

static int show_main(int argc, char **argv);

const cli_command cli_cmd_show = {
    .name = "show",
    .summary = "print a tensor file (.pb): name, dtype, shape, first values",
    .usage = "usage: vkml show FILE.pb... [--values N]\n"
             "  --values N   print the first N values (default 10)\n",
    .main = show_main,
};

static int show_file(const char *path, size_t max_values)
{
    vkml_tensor t = {0};
    char *name = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_tensor_read_file(path, &t, &name, &err);
    if (st != VKML_OK)
        return cli_error_vkml(path, st, &err);
    cli_print_tensor(name && name[0] ? name : path, &t, max_values);
    free(name);
    vkml_tensor_release(&t);
    return CLI_EXIT_OK;
}

static int show_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"values", required_argument, NULL, 'v'}, {0}};
    long values = 10;
    int c;
    while ((c = getopt_long(argc, argv, ":hv:", opts, NULL)) != -1) {
        if (c == 'h')
            return cli_usage(&cli_cmd_show);
        if (c != 'v')
            return cli_option_error(&cli_cmd_show, c, argv);
        if (!cli_parse_count(optarg, &values))
            return cli_usage_error(&cli_cmd_show, "--values needs a count >= 1");
    }
    if (optind == argc)
        return cli_usage_error(&cli_cmd_show, "expected a FILE.pb argument");
    for (int i = optind; i < argc; i++) {
        int rc = show_file(argv[i], (size_t)values);
        if (rc != CLI_EXIT_OK)
            return rc;
    }
    return CLI_EXIT_OK;
}
