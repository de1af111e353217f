#!/usr/bin/python3
"""An application reading vkmlinfer's results from Python: frames go through vkmlinfer
into an appsink, and each sample's GstVkmlTensorMeta is read through GObject
introspection (the GstVkml-1.0 typelib) as an array; prints the top class of its first
tensor, as appsink.c does:

  appsink.py MODEL LABELS [PATTERN [EXPECT]]
  frame 0: red (1.00)

PATTERN is videotestsrc's pattern (default red); with EXPECT the exit status is 1 unless
every frame's top class is that label. Needs python3-gi, the typelib on GI_TYPELIB_PATH
(installed: $libdir/girepository-1.0), the meta library on the library path and
vkmlinfer on GST_PLUGIN_PATH (CI runs it as gst_appsink_py from the build folder)."""
import array
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstVkml", "1.0")
from gi.repository import Gst, GstVkml  # noqa: E402

FRAMES = 3


def top_class(tensor):
    """Index and value of the largest float of the tensor."""
    data = tensor.get_data()
    values = array.array("f", data.extract_dup(0, data.get_size()))
    best = max(range(len(values)), key=values.__getitem__)
    return best, values[best]


def run(model, labels, pattern, expect):
    """Runs the pipeline; 0 when every frame came with the expected top class."""
    pipeline = Gst.parse_launch(
        f"videotestsrc pattern={pattern} num-buffers={FRAMES} "
        "! video/x-raw,format=RGB,width=320,height=240 "
        f"! vkmlinfer model=\"{model}\" ! appsink name=sink sync=false")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    frames, ok = 0, True
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        meta = GstVkml.buffer_find_vkml_tensor_meta(sample.get_buffer(), None)
        if meta is None or meta.n_tensors == 0:
            print(f"frame {frames}: no GstVkmlTensorMeta", file=sys.stderr)
            ok = False
            break
        tensor = meta.get(0)
        if tensor.get_dtype_name() != "float":
            print(f"frame {frames}: the first tensor is not float", file=sys.stderr)
            ok = False
            break
        best, score = top_class(tensor)
        label = labels[best] if best < len(labels) else str(best)
        print(f"frame {frames}: {label} ({score:.2f})")
        ok = ok and (expect is None or label == expect)
        frames += 1
    if frames == 0:
        msg = pipeline.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
        print("error:", msg.parse_error()[0].message if msg else "no sample", file=sys.stderr)
    pipeline.set_state(Gst.State.NULL)
    return 0 if ok and frames == FRAMES else 1


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    model, labels_path = sys.argv[1], sys.argv[2]
    pattern = sys.argv[3] if len(sys.argv) > 3 else "red"
    expect = sys.argv[4] if len(sys.argv) > 4 else None
    labels = open(labels_path).read().split()
    Gst.init(None)
    status = run(model, labels, pattern, expect)
    # GStreamer may still hold the pipeline in one of its own asynchronous calls after
    # run() let go of it; the pipeline is then freed on that thread, and vkml's devices
    # with it. deinit waits for those calls, so that the process does not exit while
    # the devices are being closed.
    Gst.deinit()
    return status


if __name__ == "__main__":
    sys.exit(main())
