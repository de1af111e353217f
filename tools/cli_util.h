#pragma once
/* Helpers shared by the `vkml` commands: error lines, argument parsing, tensor and shape
 * printing, symbolic dimensions, timing. Only the public API (vkml/vkml.h) is used. */
#include "vkml/vkml.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit codes of every command (docs/cli.md). */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1 /* a runtime error, or a conformance FAIL/ERROR */
#define CLI_EXIT_USAGE 2   /* bad arguments */

/* One command: its name, its one-line summary, its usage text and its entry point. */
typedef struct cli_command {
    const char *name;
    const char *summary;
    const char *usage;
    int (*main)(int argc, char **argv);
} cli_command;

extern const cli_command cli_cmd_devices;
extern const cli_command cli_cmd_inspect;
extern const cli_command cli_cmd_ops;
extern const cli_command cli_cmd_run;
extern const cli_command cli_cmd_show;
extern const cli_command cli_cmd_conformance;

/* Prints "vkml: error: <message>" on stderr; returns CLI_EXIT_FAILURE. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same for a failed library call: "<what>: <message of err>" (or the status name); just
 * the message when it already contains `what`. */
int cli_error_vkml(const char *what, vkml_status status, const vkml_error *err);
/* Prints "vkml: error: <message>" and the command's usage on stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* For getopt_long's '?' or ':' (optstring "+:..."; opterr is 0): names the bad option,
 * prints the usage; returns CLI_EXIT_USAGE. */
int cli_option_error(const cli_command *cmd, int c, char **argv);
/* Prints the command's usage on stdout; returns CLI_EXIT_OK. */
int cli_usage(const cli_command *cmd);
/* "vkml: note: ..." on stderr. */
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parses a positive integer option value into *out; false when it is not one. */
/* --no-fuse: sessions of this process (and the processes it starts) keep elementwise
 * chains unfused (sets VKML_NO_FUSE=1). */
void cli_set_no_fuse(void);
bool cli_parse_count(const char *text, long *out);

/* Creates the context (cpu_only: without Vulkan, for a run on the CPU device alone: no GPU
 * driver is loaded); prints the error and returns NULL on failure. */
vkml_context *cli_context_create(bool cpu_only);
/* Resolves --device text ("cpu", "default", "0", ...; NULL means "default"). Prints the
 * error on failure. */
bool cli_device_parse(const vkml_context *ctx, const char *text, int *index);
/* "cpu" or the GPU index, into buf. */
const char *cli_device_label(int index, char *buf, size_t size);

/* A --device set and --budget, as the library takes them (vkml_session_params.devices,
 * device_budget). n 0: the library's default (every GPU, the default one first). */
typedef struct cli_devices {
    int indices[VKML_MAX_SESSION_DEVICES];
    size_t n;
    uint64_t budget;          /* bytes per GPU; 0: each device's own budget */
    vkml_precision precision; /* --precision (default fp32) */
} cli_devices;
/* Parses --device text (NULL or "default": the library's default; "all", "cpu", "1",
 * "0,1,cpu") and --budget text (NULL, or a size: "512M", "2G", "65536"). Prints the
 * error on failure. */
bool cli_devices_parse(const vkml_context *ctx, const char *devices, const char *budget,
                       cli_devices *out);
/* Parses --precision text (NULL: fp32; "fp32", "fp32-fast", "fp16", "fp16-always") into
 * out->precision.
 * Prints the error on failure. */
bool cli_precision_parse(const char *text, cli_devices *out);
/* Sets params->devices, n_devices, device_budget and precision (d must outlive the session call).
 */
void cli_devices_apply(const cli_devices *d, vkml_session_params *params);
/* "0", "0,1,cpu"; the default device's label for the default set. */
const char *cli_devices_label(const vkml_context *ctx, const cli_devices *d, char *buf,
                              size_t size);
/* Parses a byte size with an optional K/M/G suffix (powers of 1024); false when it is not
 * one (or is 0). */
bool cli_parse_size(const char *text, uint64_t *out);
/* "1.50 MiB", "812 bytes". */
const char *cli_format_bytes(uint64_t bytes, char *buf, size_t size);

/* "[1,3,N,224]": symbolic dims by name, unknown ones as "?", "[?]" for unknown rank. */
const char *cli_format_info_shape(const vkml_tensor_info *info, char *buf, size_t size);
/* "[1,10]". */
const char *cli_format_dims(int rank, const int64_t *dims, char *buf, size_t size);

/* Element i of a tensor as a double (float16/bfloat16/bool/ints included). false for
 * types without a numeric value (strings, undefined). */
bool cli_tensor_value(const vkml_tensor *t, size_t i, double *out);
/* Writes up to `max_values` values of the tensor, space separated ("%g" style). */
void cli_print_values(FILE *f, const vkml_tensor *t, size_t max_values);

/* "NAME: dtype [dims]", then "  values: v0 v1 ... (k of n)" and, for more than one
 * numeric value, "  argmax: i (value)". On stdout. */
void cli_print_tensor(const char *name, const vkml_tensor *t, size_t max_values);

/* The value every symbolic dimension of the model's inputs takes in `inputs` (one per
 * model input, in order; an entry with data NULL is skipped). 0 when the model has no
 * symbolic input dimension or the inputs disagree; the session then uses its default. */
int64_t cli_symbolic_value(const vkml_model *model, const vkml_tensor *inputs, size_t count);
/* One shape per model input for vkml_session_params.input_shapes: the given tensor's dims
 * where one of the model's rank is given (binding symbolic dims), else the model's.
 * free() the result; NULL on out of memory. */
vkml_tensor_info *cli_input_shapes(const vkml_model *model, const vkml_tensor *inputs,
                                   size_t count);

/* Checks that a host tensor has the dtype and shape a session input wants; fills msg. */
bool cli_tensor_matches_info(const vkml_tensor *t, const vkml_tensor_info *info, char *msg,
                             size_t msg_size);

/* Monotonic clock in milliseconds. */
double cli_now_ms(void);
/* The q-quantile (0..1, nearest rank) of n samples; sorts them in place. */
double cli_quantile(double *samples, size_t n, double q);
