/* The CPU that services a GPU's interrupts, and polling threads kept off it
 * (core/irq_cpu.c, vk_session_submit.c's leave_irq_cpu).
 * - vkml_pci_irq_cpu_at on trees of its own: the busiest of the device's interrupts and
 *   its routing (effective, else configured affinity), the counts where the routing is
 *   several CPUs, nothing where they are spread, the first interrupt's routing before any
 *   count, a legacy irq file, an unknown device.
 * - vkml_thread_avoid_cpu: a thread allowed two CPUs loses the one named and runs on the
 *   other; a thread allowed one CPU keeps it.
 * - A session run on the first Vulkan device (lavapipe: no PCI address, irq_cpu -1, set by
 *   hand here to the CPU the thread runs on) with polling moves the thread off that CPU;
 *   not with keep_thread_affinity, and not without polling (the CPU device keeps -1). */
#include "plan/context.h"
#include "test_graph.h"
#include "vulkan/vk_device.h"

#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#define ADDR "0000:00:06.0"

static char parent[200], root[256];

static void put(const char *rel, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", root, rel);
    for (char *s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) { /* parents */
        *s = '\0';
        mkdir(path, 0700);
        *s = '/';
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void fresh_root(const char *name)
{
    if (!parent[0]) {
        snprintf(parent, sizeof(parent), "%s/vkml_irq_XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        CHECK(mkdtemp(parent) != NULL, "no temporary folder");
    }
    snprintf(root, sizeof(root), "%s/%s", parent, name);
    mkdir(root, 0700);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int irq_cpu(void)
{
    return vkml_pci_irq_cpu_at(root, 0, 0, 6, 0);
}

static void msi(int irq)
{
    char rel[128];
    snprintf(rel, sizeof(rel), "sys/bus/pci/devices/" ADDR "/msi_irqs/%d", irq);
    put(rel, "msix\n");
}

static const char *const header = "           CPU0       CPU1       CPU2       CPU3\n";

static void test_lookup(void)
{
    char text[1024];
    /* the GPU's vector 42 takes nearly all, routed to CPU 3; an unrelated busier line */
    fresh_root("routed");
    msi(42), msi(43), msi(44);
    snprintf(text, sizeof(text),
             "%s  10:   9999999        0        0        0   IO-APIC   10-edge  other\n"
             "  42:         0        0        0   213496   PCI-MSIX-" ADDR "   0-edge  nvidia\n"
             "  43:         0        0        0        0   PCI-MSIX-" ADDR "   1-edge  nvidia\n"
             "  44:        14        0        0        0   PCI-MSIX-" ADDR "   2-edge  nvidia\n"
             " NMI:         0        0        0        0   Non-maskable interrupts\n",
             header);
    put("proc/interrupts", text);
    put("proc/irq/42/effective_affinity_list", "3\n");
    put("proc/irq/42/smp_affinity_list", "0-3\n");
    put("proc/irq/44/effective_affinity_list", "0\n");
    CHECK(irq_cpu() == 3, "routed: CPU %d, expected 3", irq_cpu());

    /* rerouted since: the routing, not where most were counted */
    fresh_root("rerouted");
    msi(42);
    snprintf(text, sizeof(text),
             "%s  42:   900000   0   1000   0   PCI-MSIX-" ADDR "  0-edge  nvidia\n", header);
    put("proc/interrupts", text);
    put("proc/irq/42/effective_affinity_list", "2\n");
    CHECK(irq_cpu() == 2, "rerouted: CPU %d, expected 2", irq_cpu());

    /* routed to several CPUs (no effective list): the counts, 9 in 10 on CPU 1 */
    fresh_root("counted");
    msi(50);
    snprintf(text, sizeof(text), "%s  50:   5   95   0   0   PCI-MSI-" ADDR "  0-edge  amdgpu\n",
             header);
    put("proc/interrupts", text);
    put("proc/irq/50/smp_affinity_list", "0-3\n");
    CHECK(irq_cpu() == 1, "counted: CPU %d, expected 1", irq_cpu());

    /* spread: no CPU */
    fresh_root("spread");
    msi(50);
    snprintf(text, sizeof(text), "%s  50:   40   60   0   0   PCI-MSI-" ADDR "  0-edge  amdgpu\n",
             header);
    put("proc/interrupts", text);
    put("proc/irq/50/smp_affinity_list", "0-3\n");
    CHECK(irq_cpu() == -1, "spread: CPU %d, expected -1", irq_cpu());

    /* nothing counted yet: the lowest vector's routing */
    fresh_root("uncounted");
    msi(61), msi(60);
    snprintf(text, sizeof(text), "%s  60:   0   0   0   0   x\n  61:   0   0   0   0   x\n",
             header);
    put("proc/interrupts", text);
    put("proc/irq/60/effective_affinity_list", "2\n");
    put("proc/irq/61/effective_affinity_list", "1\n");
    CHECK(irq_cpu() == 2, "uncounted: CPU %d, expected 2", irq_cpu());

    /* a legacy interrupt line (no msi_irqs) */
    fresh_root("legacy");
    put("sys/bus/pci/devices/" ADDR "/irq", "11\n");
    snprintf(text, sizeof(text), "%s  11:   0   0   7   0   IO-APIC  11-fasteoi  gpu\n", header);
    put("proc/interrupts", text);
    CHECK(irq_cpu() == 2, "legacy: CPU %d, expected 2", irq_cpu());

    /* no such device, here or on this machine */
    fresh_root("none");
    CHECK(irq_cpu() == -1, "no device: CPU %d", irq_cpu());
    CHECK(vkml_pci_irq_cpu(0xffff, 0xff, 0x1f, 7) == -1, "a device that is not there");
    CHECK(vkml_pci_irq_cpu_at(NULL, 0, 0, 6, 0) == -1, "no root");
}

static bool allowed(cpu_set_t *set)
{
    CPU_ZERO(set);
    return pthread_getaffinity_np(pthread_self(), sizeof(*set), set) == 0;
}

/* The thread on CPU a, allowed a and b (b < 0: a only). */
static void pin(int a, int b)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(a, &set);
    CHECK(pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0, "pin to %d", a);
    CHECK(sched_getcpu() == a, "on CPU %d after pinning to %d", sched_getcpu(), a);
    if (b >= 0) { /* still on a: widening does not move a running thread */
        CPU_SET(b, &set);
        CHECK(pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0, "allow %d", b);
    }
}

/* Two CPUs this thread may use; false where it has one. */
static bool two_cpus(int *a, int *b)
{
    cpu_set_t set;
    *a = *b = -1;
    if (!allowed(&set))
        return false;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            if (*a < 0)
                *a = c;
            else if (*b < 0)
                *b = c;
        }
    return *b >= 0;
}

static void test_avoid(int a, int b)
{
    cpu_set_t set;
    pin(b, -1);
    CHECK(!vkml_thread_avoid_cpu(b), "the only CPU is kept");
    pin(a, b);
    CHECK(vkml_thread_avoid_cpu(b), "avoiding CPU %d of {%d, %d} while on %d", b, a, b, a);
    CHECK(allowed(&set) && CPU_COUNT(&set) == 1 && CPU_ISSET(a, &set), "left with CPU %d only", a);
    pin(a, b);
    CHECK(vkml_thread_avoid_cpu(a), "avoiding CPU %d of {%d, %d}", a, a, b);
    CHECK(allowed(&set) && CPU_COUNT(&set) == 1 && CPU_ISSET(b, &set), "left with CPU %d only", b);
    CHECK(sched_getcpu() == b, "running on %d, not %d", sched_getcpu(), b);
    CHECK(!vkml_thread_avoid_cpu(b), "the only CPU is kept");
    CHECK(allowed(&set) && CPU_ISSET(b, &set), "CPU %d still allowed", b);
    CHECK(!vkml_thread_avoid_cpu(-1) && !vkml_thread_avoid_cpu(CPU_SETSIZE), "no such CPU");
}

/* y = x + x over 16 floats */
static vkml_model *add_model(void)
{
    graph *g = graph_create();
    const int64_t dims[1] = {16};
    int x = tg_value(g, "x", VKML_DTYPE_FLOAT, 1, dims);
    int y = tg_value(g, "y", VKML_DTYPE_FLOAT, 1, dims);
    tg_node(g, "add", "Add", x, x, y, 14);
    return tg_model(g, (int[]){x}, 1, (int[]){y}, 1, 14);
}

/* One run on device 0 with spin_us, from a thread allowed {a, b} and running on a, which
 * the device says takes its interrupts. Returns whether the thread may still run on a. */
static bool run_on_irq_cpu(bool keep, int spin_us, int a, int b)
{
    vkml_context_params cp = {.keep_thread_affinity = keep};
    vkml_context *ctx = NULL;
    vkml_error err = {0};
    CHECK_OK(vkml_context_create(&cp, &ctx, &err), &err);
    test_require_vulkan(ctx);
    vkml_device_info info;
    CHECK_OK(vkml_context_device_info(ctx, 0, &info, &err), &err);
    CHECK(info.irq_cpu == -1 || info.irq_cpu >= 0, "irq_cpu %d", info.irq_cpu);
    CHECK_OK(vkml_context_device_info(ctx, VKML_DEVICE_CPU, &info, &err), &err);
    CHECK(info.irq_cpu == -1, "the CPU device's irq_cpu is %d", info.irq_cpu);
    vk_device *vd = (vk_device *)context_device(ctx, 0);
    vd->base.info.irq_cpu = a;
    vkml_model *model = add_model();
    vkml_session *s = NULL;
    vkml_session_params sp = {.device = 0, .wait_spin_us = spin_us};
    CHECK_OK(vkml_session_create(ctx, model, &sp, &s, &err), &err);
    float in[16], out[16];
    for (int i = 0; i < 16; i++)
        in[i] = (float)i;
    vkml_tensor ti = {
        .dtype = VKML_DTYPE_FLOAT, .rank = 1, .dims = {16}, .data = in, .size = sizeof(in)};
    vkml_tensor to = ti;
    to.data = out;
    /* the scheduler may move the thread to b before the wait: then tried again */
    cpu_set_t set;
    bool still = true;
    for (int attempt = 0; attempt < 5 && still; attempt++) {
        pin(a, b);
        CHECK_OK(vkml_session_run(s, &ti, 1, &to, 1, &err), &err);
        for (int i = 0; i < 16; i++)
            CHECK(out[i] == 2.0f * (float)i, "y[%d] = %g", i, out[i]);
        still = allowed(&set) && CPU_ISSET(a, &set);
    }
    vkml_session_destroy(&s);
    vkml_model_destroy(&model);
    vkml_context_destroy(&ctx);
    return still;
}

int main(void)
{
    test_lookup();
    nftw(parent, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    int a, b;
    cpu_set_t start;
    if (!two_cpus(&a, &b) || !allowed(&start)) {
        printf("one CPU: thread moves not tested\n");
        return test_finish("test_irq_cpu");
    }
    test_avoid(a, b);
    CHECK(!run_on_irq_cpu(false, 50, a, b), "a polling run stayed allowed on the interrupts' CPU");
    CHECK(sched_getcpu() == b, "after the run on CPU %d, not %d", sched_getcpu(), b);
    CHECK(run_on_irq_cpu(true, 50, a, b), "keep_thread_affinity: the thread was moved");
    CHECK(run_on_irq_cpu(false, -1, a, b), "a run that does not poll moved the thread");
    pthread_setaffinity_np(pthread_self(), sizeof(start), &start);
    return test_finish("test_irq_cpu");
}
