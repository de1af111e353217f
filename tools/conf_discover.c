/* Finds the test folders (model.onnx + test_data_set_N/) under the given folders. */
#include "conformance.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How deep below a DIR test folders are looked for (onnx-extra/simple/test_x is 2). */
#define CONF_MAX_DEPTH 4

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_test_dir(const char *path)
{
    char model[4096];
    struct stat st;
    snprintf(model, sizeof(model), "%s/model.onnx", path);
    return stat(model, &st) == 0 && S_ISREG(st.st_mode);
}

static bool name_matches(const char *name, char *const *filters, size_t n_filters)
{
    if (n_filters == 0)
        return true;
    for (size_t i = 0; i < n_filters; i++) {
        if (strstr(name, filters[i]))
            return true;
    }
    return false;
}

static bool add_test(conf_test_list *list, const char *name, const char *dir)
{
    if (list->count == list->capacity) {
        size_t cap = list->capacity ? 2 * list->capacity : 256;
        conf_test *grown = realloc(list->tests, cap * sizeof(*grown));
        if (!grown)
            return false;
        list->tests = grown;
        list->capacity = cap;
    }
    conf_test *t = &list->tests[list->count];
    t->name = strdup(name);
    t->dir = strdup(dir);
    if (!t->name || !t->dir) {
        free(t->name);
        free(t->dir);
        return false;
    }
    list->count++;
    return true;
}

typedef struct scan_state {
    conf_test_list *list;
    char *const *filters;
    size_t n_filters;
    size_t found; /* test folders seen, filtered or not */
    bool oom;
} scan_state;

/* Looks at dir (named `name` in the results) and, when it is no test, below it. */
static void scan(scan_state *s, const char *dir, const char *name, int depth)
{
    if (is_test_dir(dir)) {
        s->found++;
        if (name_matches(name, s->filters, s->n_filters) && !add_test(s->list, name, dir))
            s->oom = true;
        return;
    }
    DIR *d = depth < CONF_MAX_DEPTH ? opendir(dir) : NULL;
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && !s->oom) {
        char path[4096], sub[4096];
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        snprintf(sub, sizeof(sub), "%s%s%s", name, name[0] ? "/" : "", e->d_name);
        if (is_dir(path))
            scan(s, path, sub, depth + 1);
    }
    closedir(d);
}

/* The last component of a path, without trailing slashes. */
static void base_name(const char *path, char *buf, size_t size)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    snprintf(buf, size, "%.*s", (int)(len - start), path + start);
}

static int compare_tests(const void *a, const void *b)
{
    return strcmp(((const conf_test *)a)->name, ((const conf_test *)b)->name);
}

bool conf_find_tests(char *const *dirs, size_t n_dirs, char *const *filters, size_t n_filters,
                     conf_test_list *out)
{
    *out = (conf_test_list){0};
    scan_state s = {.list = out, .filters = filters, .n_filters = n_filters};
    for (size_t i = 0; i < n_dirs; i++) {
        char name[1024];
        if (!is_dir(dirs[i])) {
            cli_error("%s: no such folder", dirs[i]);
            return false;
        }
        size_t before = s.found;
        char *real = realpath(dirs[i], NULL); /* "." is named after the folder */
        base_name(real ? real : dirs[i], name, sizeof(name));
        free(real);
        scan(&s, dirs[i], is_test_dir(dirs[i]) ? name : "", 0);
        if (s.oom) {
            cli_error("out of memory listing the tests");
            return false;
        }
        if (s.found == before) {
            cli_error("%s: no test folder (one with model.onnx) in it", dirs[i]);
            return false;
        }
    }
    qsort(out->tests, out->count, sizeof(*out->tests), compare_tests);
    return true;
}

void conf_free_tests(conf_test_list *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->tests[i].name);
        free(list->tests[i].dir);
    }
    free(list->tests);
    *list = (conf_test_list){0};
}
