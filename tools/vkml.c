/* vkml: command-line front end of libvkml. `vkml COMMAND [OPTIONS]`; each command lives in
 * its own cmd_*.c file and is listed here. */
#include "cli_util.h"

#include <getopt.h>
#include <string.h>

static const cli_command *const commands[] = {
    &cli_cmd_devices, &cli_cmd_inspect, &cli_cmd_ops,
    &cli_cmd_run,     &cli_cmd_show,    &cli_cmd_conformance,
};
#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void print_usage(FILE *f)
{
    fprintf(f, "usage: vkml COMMAND [OPTIONS] [ARGS]\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\n`vkml COMMAND --help` describes one command. Exit status: 0 success, "
               "1 failure, 2 bad arguments.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "vkml: error: no command given\n");
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0) {
        print_usage(stdout);
        return CLI_EXIT_OK;
    }
    opterr = 0; /* the commands print their own error line */
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (strcmp(argv[1], commands[i]->name) == 0)
            return commands[i]->main(argc - 1, argv + 1);
    }
    fprintf(stderr, "vkml: error: unknown command '%s'\n", argv[1]);
    print_usage(stderr);
    return CLI_EXIT_USAGE;
}
