/* What the GstCheck tests of vkmlinfer share: the build folder, the Vulkan device they
 * name (device 0, lavapipe in CI; testutil.h's rule for a missing one), a harness around
 * vkmlinfer on it, and the resident set size with the rule for bounding it. Include after
 * gstcheck.h, gstharness.h and testutil.h. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* AddressSanitizer's quarantine holds freed memory on purpose, so RSS grows there: a
 * bound on it is then reported, not enforced (LeakSanitizer checks for leaks). */
#if defined(__SANITIZE_ADDRESS__)
#define RSS_BOUND_ENFORCED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RSS_BOUND_ENFORCED 0
#endif
#endif
#ifndef RSS_BOUND_ENFORCED
#define RSS_BOUND_ENFORCED 1
#endif

/* VKML_BUILD_ROOT (meson test sets it); exits when it is not set. */
static inline const gchar *
gst_test_build_root (void)
{
  const gchar *build = g_getenv ("VKML_BUILD_ROOT");

  if (!build) {
    fprintf (stderr, "VKML_BUILD_ROOT is not set: run through meson test\n");
    exit (1);
  }
  return build;
}

/* A Vulkan device exists for the tests that name device 0 (testutil.h: a skip, or a
 * failure with CI=true); exits when libvkml cannot start. */
static inline void
gst_test_require_vulkan_device (void)
{
  vkml_context *ctx = NULL;
  vkml_error err = { 0 };

  if (vkml_context_create (NULL, &ctx, &err) != VKML_OK) {
    fprintf (stderr, "vkml_context_create: %s\n", err.message);
    exit (1);
  }
  test_require_vulkan (ctx);
  vkml_context_destroy (&ctx);
}

/* Resident set size of this process, bytes. */
static inline gsize
gst_test_rss_bytes (void)
{
  FILE *f = fopen ("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;

  fail_unless (f != NULL);
  fail_unless (fscanf (f, "%lu %lu", &size, &resident) == 2);
  fclose (f);
  return (gsize) resident *(gsize) sysconf (_SC_PAGESIZE);
}

/* A harness around vkmlinfer on device 0 with the model file @path, @props and source
 * caps @caps; with @bus, the element reports to a new bus (before the caps are set). */
static inline GstHarness *
gst_test_vkmlinfer_harness (const gchar * path, const gchar * props,
    const gchar * caps, GstBus ** bus)
{
  gchar *launch = g_strdup_printf ("vkmlinfer model=\"%s\" device=0 %s", path,
      props);
  GstHarness *h = gst_harness_new_parse (launch);

  g_free (launch);
  if (bus) {
    *bus = gst_bus_new ();
    gst_element_set_bus (h->element, *bus);
  }
  gst_harness_set_src_caps_str (h, caps);
  return h;
}
