#pragma once
/* `vkml run --profile` (cli_profile.c). */
#include <vkml/vkml.h>

/* Runs a profiled session `runs` times (after one run) and prints the mean device time per
 * op and the slowest nodes. A CLI exit code. */
int cli_profile_runs(vkml_session *s, const vkml_tensor *in, size_t n_in, vkml_tensor *out,
                     size_t n_out, long runs);
