/* The vkml GStreamer plugin: vkmlinfer, its decoders, vkmloverlay, vkmltrack and
 * vkmlpublish. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlclassify.h"
#include "gstvkmldetect.h"
#include "gstvkmlinfer.h"
#include "gstvkmloverlay.h"
#include "gstvkmltrack.h"
#ifdef HAVE_VKML_PUBLISH
#include "gstvkmlpublish.h"
#endif

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (vkmlinfer, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmlclassify, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmldetect, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmloverlay, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmltrack, plugin);
#ifdef HAVE_VKML_PUBLISH
  ret |= GST_ELEMENT_REGISTER (vkmlpublish, plugin);
#endif
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, vkml,
    "Runs ONNX models on Vulkan compute devices with libvkml",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
