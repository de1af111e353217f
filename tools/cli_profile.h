#pragma once
/* `vkml run --profile` (cli_profile.c). */
#include <vkml/vkml.h>

/* Slowest nodes listed by default (`--profile-nodes`). */
#define CLI_PROFILE_NODES 15

/* Runs a profiled session `runs` times (after one run) and prints the mean device time per
 * op and the `top` slowest nodes (0: every node). A CLI exit code. */
int cli_profile_runs(vkml_session *s, const vkml_tensor *in, size_t n_in, vkml_tensor *out,
                     size_t n_out, long runs, size_t top);
