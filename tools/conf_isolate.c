/* Runs the conformance tests, in this process or in worker processes.
 *
 * Isolated mode: a forked worker opens its own context (no Vulkan state crosses a fork)
 * and runs the tests from a start index on, writing one fixed-size record per test into a
 * pipe. When the pipe closes early the worker crashed: the test it was on becomes ERROR
 * "crashed (signal N)" and a new worker starts at the next test. A test that takes longer
 * than the timeout has its worker killed and becomes ERROR "timed out". */
#include "conformance.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a worker writes per test; index -1 is the header (device opened or not).
 * Smaller than PIPE_BUF, so each write is atomic. */
typedef struct conf_record {
    int32_t index;
    int32_t ok; /* header: device opened */
    conf_result res;
    char device_label[64];
    char device_name[256];
} conf_record;

_Static_assert(sizeof(conf_record) <= 4096, "a record must fit in one pipe write");

vkml_context *conf_open_device(conf_run_params *p, cli_devices *devices, char *msg, size_t msg_size)
{
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    vkml_status st = vkml_context_create(NULL, &ctx, &err);
    if (st != VKML_OK) {
        snprintf(msg, msg_size, "%s", err.message[0] ? err.message : vkml_status_name(st));
        return NULL;
    }
    /* "default" names the default device, so that the report names a real one. */
    const char *text = p->device && strcmp(p->device, "default") ? p->device : NULL;
    *devices = (cli_devices){0};
    if (p->budget && !cli_parse_size(p->budget, &devices->budget)) {
        snprintf(msg, msg_size, "--budget %s is not a size", p->budget);
        vkml_context_destroy(&ctx);
        return NULL;
    }
    if (p->precision && !vkml_precision_parse(p->precision, &devices->precision)) {
        snprintf(msg, msg_size, "--precision %s: expected fp32, fp32-fast, fp16 or fp16-always",
                 p->precision);
        vkml_context_destroy(&ctx);
        return NULL;
    }
    /* conformance checks the float16 kernels: fp16 runs them all, as fp16-always does, and is
     * not timed against float32 */
    if (devices->precision == VKML_PRECISION_FP16)
        devices->precision = VKML_PRECISION_FP16_ALWAYS;
    if (text)
        st = vkml_context_parse_devices(ctx, text, devices->indices, VKML_MAX_SESSION_DEVICES,
                                        &devices->n, &err);
    else
        devices->indices[devices->n++] = vkml_context_default_device(ctx);
    if (st != VKML_OK) {
        snprintf(msg, msg_size, "%s", err.message[0] ? err.message : vkml_status_name(st));
        vkml_context_destroy(&ctx);
        return NULL;
    }
    vkml_device_info info;
    cli_devices_label(ctx, devices, p->device_label, sizeof(p->device_label));
    if (vkml_context_device_info(ctx, devices->indices[0], &info, &err) == VKML_OK)
        snprintf(p->device_name, sizeof(p->device_name), "%s", info.name);
    return ctx;
}

static bool run_in_process(conf_run_params *p)
{
    cli_devices devices;
    char msg[1024];
    vkml_context *ctx = conf_open_device(p, &devices, msg, sizeof(msg));
    if (!ctx) {
        cli_error("--device %s: %s", p->device ? p->device : "default", msg);
        return false;
    }
    for (size_t i = 0; i < p->count; i++) {
        conf_result res = {0};
        conf_run_test(ctx, &devices, &p->tests[i], &res);
        p->report(i, &res, p->user);
    }
    vkml_context_destroy(&ctx);
    return true;
}

static bool write_record(int fd, const conf_record *r)
{
    const char *b = (const char *)r;
    size_t left = sizeof(*r);
    while (left) {
        ssize_t n = write(fd, b, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        b += n;
        left -= (size_t)n;
    }
    return true;
}

/* 1: a record, 0: end of file, -1: timeout (or a read error). */
static int read_record(int fd, conf_record *r, int timeout_ms)
{
    char *b = (char *)r;
    size_t got = 0;
    while (got < sizeof(*r)) {
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, timeout_ms);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            return -1;
        ssize_t n = read(fd, b + got, sizeof(*r) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            return got ? -1 : 0;
        got += (size_t)n;
    }
    return 1;
}

/* Test hooks for tests/cli: a worker crashes (SIGSEGV) or hangs on the tests whose name
 * contains $VKML_CLI_TEST_CRASH or $VKML_CLI_TEST_HANG, to show both become ERROR. */
static void test_hooks(const conf_test *test)
{
    const char *crash = getenv("VKML_CLI_TEST_CRASH");
    const char *hang = getenv("VKML_CLI_TEST_HANG");
    if (crash && crash[0] && strstr(test->name, crash)) {
        signal(SIGSEGV, SIG_DFL); /* a real crash even under a sanitizer's handler */
        raise(SIGSEGV);
    }
    if (hang && hang[0] && strstr(test->name, hang))
        pause();
}

static void worker_main(conf_run_params *p, size_t start, int fd)
{
    conf_record r = {.index = -1};
    cli_devices devices;
    vkml_context *ctx = conf_open_device(p, &devices, r.res.reason, sizeof(r.res.reason));
    r.ok = ctx != NULL;
    memcpy(r.device_label, p->device_label, sizeof(r.device_label));
    memcpy(r.device_name, p->device_name, sizeof(r.device_name));
    if (!write_record(fd, &r) || !ctx)
        _exit(1);
    for (size_t i = start; i < p->count; i++) {
        memset(&r, 0, sizeof(r));
        r.index = (int32_t)i;
        test_hooks(&p->tests[i]);
        conf_run_test(ctx, &devices, &p->tests[i], &r.res);
        if (!write_record(fd, &r))
            _exit(1);
    }
    vkml_context_destroy(&ctx);
    _exit(0);
}

/* Why the worker ended (after its pipe closed or it was killed). */
static void worker_end_reason(pid_t pid, bool killed, double timeout_s, conf_result *res)
{
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    res->status = CONF_ERROR;
    if (killed)
        snprintf(res->reason, sizeof(res->reason), "timed out after %g s", timeout_s);
    else if (WIFSIGNALED(ws))
        snprintf(res->reason, sizeof(res->reason), "crashed (signal %d, %s)", WTERMSIG(ws),
                 strsignal(WTERMSIG(ws)));
    else
        snprintf(res->reason, sizeof(res->reason), "worker exited with status %d",
                 WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
}

/* Forks a worker that runs the tests from `start` on; returns its pid (-1 on failure) and
 * the read end of its pipe in *fd. */
static pid_t start_worker(conf_run_params *p, size_t start, int *fd)
{
    int fds[2];
    if (pipe(fds) != 0) {
        cli_error("pipe: %s", strerror(errno));
        return -1;
    }
    fflush(stdout); /* or the child's copy of the buffers would print twice */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        cli_error("fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        worker_main(p, start, fds[1]);
    }
    close(fds[1]);
    *fd = fds[0];
    return pid;
}

/* Reports each record until the pipe ends (0) or a test takes too long (-1). */
static int read_results(conf_run_params *p, int fd, size_t *next, double *t0)
{
    int timeout_ms = (int)(p->timeout_s * 1000);
    conf_record r;
    int got;
    while ((got = read_record(fd, &r, timeout_ms)) == 1) {
        if (r.index < 0 || (size_t)r.index >= p->count)
            return -1;
        p->report((size_t)r.index, &r.res, p->user);
        *next = (size_t)r.index + 1;
        *t0 = cli_now_ms();
    }
    return got;
}

/* Starts a worker at test *next and reads its records until it ends; *next moves past
 * every test reported, and past the one it was on when it crashed or hung. false when
 * the worker could not open the device. */
static bool run_worker(conf_run_params *p, size_t *next, bool first)
{
    int fd;
    pid_t pid = start_worker(p, *next, &fd);
    if (pid < 0)
        return false;
    double t0 = cli_now_ms();
    conf_record r;
    int got = read_record(fd, &r, (int)(p->timeout_s * 1000));
    bool ok = got != 1 || r.index != -1 || r.ok;
    if (got == 1 && r.index == -1 && !r.ok)
        cli_error("--device %s: %s", p->device ? p->device : "default", r.res.reason);
    if (got == 1 && r.index == -1 && r.ok) {
        if (first) {
            memcpy(p->device_label, r.device_label, sizeof(p->device_label));
            memcpy(p->device_name, r.device_name, sizeof(p->device_name));
        }
        got = read_results(p, fd, next, &t0);
    }
    bool killed = ok && got < 0;
    if (killed)
        kill(pid, SIGKILL);
    close(fd);
    conf_result res = {0};
    worker_end_reason(pid, killed, p->timeout_s, &res);
    if (ok && *next < p->count) {
        res.ms = cli_now_ms() - t0;
        p->report(*next, &res, p->user);
        (*next)++;
    }
    return ok;
}

static bool run_isolated(conf_run_params *p)
{
    size_t next = 0;
    bool first = true;
    while (next < p->count) {
        if (!run_worker(p, &next, first))
            return false;
        first = false;
    }
    return true;
}

bool conf_run_all(conf_run_params *p)
{
    signal(SIGPIPE, SIG_IGN);
    return p->isolate ? run_isolated(p) : run_in_process(p);
}
