/* The CPU that services a PCI device's interrupts, and keeping a polling thread off it.
 *
 * Why: a GPU raises an interrupt when a submission completes, and the kernel services it
 * on one CPU (its affinity). A thread polling for that completion on the same CPU is held
 * off it while the handler runs, so it sees the end late. In a virtual machine the
 * handler's register reads cross the bus: on the H200 machine (KVM, 2026-11-25) every
 * interrupt of the GPU went to CPU 14, and a thread there saw an empty submit's end 42.8 us
 * after it (10.2 us on any other CPU); mnist-8 ran in 55-57 us there, 25-27 elsewhere.
 * Which CPU a process lands on is the scheduler's choice, so one process in a few ran at
 * the slow figure.
 *
 * Linux: the device's interrupts from sysfs (/sys/bus/pci/devices/ADDR/msi_irqs, else its
 * irq file), their counts from /proc/interrupts and the busiest one's routing from
 * /proc/irq/N/effective_affinity_list (or smp_affinity_list); all readable without
 * privileges. Elsewhere nothing is known (-1). */
#include "core/common.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_IRQS 256

/* The device's interrupt numbers (at most `cap`). */
static int device_irqs(const char *root, const char *addr, int *irqs, int cap)
{
    char path[4200];
    int n = 0;
    snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/msi_irqs", root, addr);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) && n < cap) {
            char *end;
            long v = strtol(e->d_name, &end, 10);
            if (end != e->d_name && *end == '\0' && v >= 0)
                irqs[n++] = (int)v;
        }
        closedir(d);
    }
    if (n == 0) { /* legacy INTx */
        snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/irq", root, addr);
        FILE *f = fopen(path, "r");
        int v;
        if (f && fscanf(f, "%d", &v) == 1 && v > 0)
            irqs[n++] = v;
        if (f)
            fclose(f);
    }
    return n;
}

/* The single CPU of a cpu list ("14"), or -1 for several ("0-15", "1,3") or none. */
static int single_cpu(const char *list)
{
    char *end;
    long v = strtol(list, &end, 10);
    while (*end == '\n' || *end == ' ')
        end++;
    return end != list && *end == '\0' && v >= 0 && v < CPU_SETSIZE ? (int)v : -1;
}

/* The CPU interrupt `irq` is routed to, when it is one. */
static int routed_cpu(const char *root, int irq)
{
    static const char *const names[] = {"effective_affinity_list", "smp_affinity_list"};
    for (int i = 0; i < 2; i++) {
        char path[4200], line[256];
        snprintf(path, sizeof(path), "%s/proc/irq/%d/%s", root, irq, names[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        bool got = fgets(line, sizeof(line), f) != NULL;
        fclose(f);
        if (got)
            return single_cpu(line);
    }
    return -1;
}

/* From /proc/interrupts: which of `irqs` counted the most interrupts (-1: none counted),
 * and the CPU that counted most of them, when it counted at least 9 in 10 (*cpu, else
 * -1). */
static int busiest_irq(const char *root, const int *irqs, int n, int *cpu)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/proc/interrupts", root);
    *cpu = -1;
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t cap = 0;
    char *line = NULL;
    int best = -1;
    unsigned long long best_total = 0;
    if (getline(&line, &cap, f) < 0) { /* the header: CPU0 CPU1 ... */
        free(line);
        fclose(f);
        return -1;
    }
    while (getline(&line, &cap, f) >= 0) {
        char *p = line, *end;
        long irq = strtol(p, &end, 10);
        if (end == p || *end != ':')
            continue;
        bool mine = false;
        for (int i = 0; i < n && !mine; i++)
            mine = irqs[i] == irq;
        if (!mine)
            continue;
        unsigned long long total = 0, top = 0;
        int top_cpu = -1;
        p = end + 1;
        for (int c = 0;; c++) { /* one count per CPU, then the chip's name */
            unsigned long long v = strtoull(p, &end, 10);
            if (end == p)
                break;
            total += v;
            if (v > top) {
                top = v;
                top_cpu = c;
            }
            p = end;
        }
        if (total > best_total) {
            best_total = total;
            best = (int)irq;
            *cpu = top * 10 >= total * 9 ? top_cpu : -1;
        }
    }
    free(line);
    fclose(f);
    return best;
}

int vkml_pci_irq_cpu_at(const char *root, uint32_t domain, uint32_t bus, uint32_t device,
                        uint32_t function)
{
    char addr[32];
    int irqs[MAX_IRQS];
    if (!root || strlen(root) > 4000)
        return -1;
    snprintf(addr, sizeof(addr), "%04x:%02x:%02x.%x", domain, bus, device, function);
    int n = device_irqs(root, addr, irqs, MAX_IRQS);
    if (n == 0)
        return -1;
    int lowest = irqs[0];
    for (int i = 1; i < n; i++)
        lowest = irqs[i] < lowest ? irqs[i] : lowest;
    int counted_cpu, irq = busiest_irq(root, irqs, n, &counted_cpu);
    if (irq < 0) /* nothing counted yet: the first vector's routing */
        return routed_cpu(root, lowest);
    int routed = routed_cpu(root, irq);
    return routed >= 0 ? routed : counted_cpu;
}

int vkml_pci_irq_cpu(uint32_t domain, uint32_t bus, uint32_t device, uint32_t function)
{
    return vkml_pci_irq_cpu_at("", domain, bus, device, function);
}

bool vkml_thread_avoid_cpu(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE)
        return false;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) != 0 || !CPU_ISSET(cpu, &set) ||
        CPU_COUNT(&set) < 2)
        return false;
    CPU_CLR(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}
