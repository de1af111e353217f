/* The vkml GStreamer plugin: vkmlinfer, its decoders and vkmloverlay. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvkmlclassify.h"
#include "gstvkmldetect.h"
#include "gstvkmlinfer.h"
#include "gstvkmloverlay.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ret = FALSE;

  ret |= GST_ELEMENT_REGISTER (vkmlinfer, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmlclassify, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmldetect, plugin);
  ret |= GST_ELEMENT_REGISTER (vkmloverlay, plugin);
  return ret;
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, vkml,
    "Runs ONNX models on Vulkan compute devices with libvkml",
    plugin_init, VERSION, GST_LICENSE, GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
