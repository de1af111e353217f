#!/usr/bin/python3
"""GstVkmlTensorMeta from Python through GObject introspection (GstVkml-1.0 typelib).

Runs a red frame through vkmlinfer (the colour model, model-id=colour) into an appsink,
finds the meta with GstVkml.buffer_find_vkml_tensor_meta, reads its tensor as an array
and checks it against the probabilities computed here from the model's own weights
(pipelines/make_color_model.py) with numpy. Then a red frame through the build's
detector (with its bundle) and vkmldetect: GstVkml.buffer_get_detections returns all 48
boxes (Python on GStreamer 1.22 cannot iterate metas). Exit status 0 on success.

Environment (meson test sets it): VKML_BUILD_ROOT, VKML_SOURCE_ROOT, GI_TYPELIB_PATH,
GST_PLUGIN_PATH, LD_LIBRARY_PATH.
"""
import array
import os
import sys

import gi
import numpy as np

gi.require_version("Gst", "1.0")
gi.require_version("GstVkml", "1.0")
from gi.repository import Gst, GstVkml  # noqa: E402

sys.path.insert(0, os.path.join(os.environ["VKML_SOURCE_ROOT"], "pipelines"))
from make_color_model import PROTOTYPES, classifier_weights  # noqa: E402


def expected_probabilities(rgb, temperature=10.0):
    w, b = classifier_weights(temperature)
    logits = np.asarray(rgb, dtype=np.float64) @ w + b
    e = np.exp(logits - logits.max())
    return e / e.sum()


def pull_one(launch):
    """The first sample's buffer of LAUNCH (ending in appsink name=sink), and the pipeline."""
    pipeline = Gst.parse_launch(launch)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    sample = sink.emit("pull-sample")
    if sample is None:
        msg = pipeline.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
        raise AssertionError(f"no sample: {msg.parse_error() if msg else '?'}")
    return sample.get_buffer(), pipeline


def check_detections():
    model = os.path.join(os.environ["VKML_BUILD_ROOT"], "pipelines", "detector.onnx")
    buf, pipeline = pull_one(
        "videotestsrc pattern=red num-buffers=1 "
        "! video/x-raw,format=RGB,width=320,height=240 "
        f"! vkmlinfer model=\"{model}\" ! vkmldetect ! appsink name=sink")
    boxes = GstVkml.buffer_get_detections(buf)
    assert len(boxes) == 48, len(boxes)
    ids = set()
    for s in boxes:
        assert s.get_name() == "detection", s.get_name()
        assert s.get_string("label") == "red", s.get_string("label")
        assert s.get_value("score") > 0.5, s.get_value("score")
        ok, w = s.get_uint("width")
        assert ok and w == 40, w
        ids.add(s.get_value("roi-id"))
    assert ids == set(range(48)), sorted(ids)
    print("GstVkml detections:", len(boxes), "boxes, first", boxes[0].to_string())
    pipeline.set_state(Gst.State.NULL)


def main():
    Gst.init(None)
    model = os.path.join(os.environ["VKML_BUILD_ROOT"], "pipelines", "color.onnx")
    pipeline = Gst.parse_launch(
        "videotestsrc pattern=red num-buffers=1 "
        "! video/x-raw,format=RGB,width=320,height=240 "
        f"! vkmlinfer model=\"{model}\" model-id=colour ! appsink name=sink")
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    sample = sink.emit("pull-sample")
    if sample is None:
        msg = pipeline.get_bus().timed_pop_filtered(0, Gst.MessageType.ERROR)
        print("no sample:", msg.parse_error() if msg else "?")
        return 1
    buf = sample.get_buffer()

    meta = GstVkml.buffer_find_vkml_tensor_meta(buf, "colour")
    assert meta is not None, "no GstVkmlTensorMeta of model-id colour"
    assert meta.model_id == "colour", meta.model_id
    assert GstVkml.buffer_find_vkml_tensor_meta(buf, "other") is None
    assert meta.n_tensors == 1, meta.n_tensors
    tensor = meta.get(0)
    assert tensor.name == "probabilities", tensor.name
    assert list(tensor.get_dims()) == [1, len(PROTOTYPES)], tensor.get_dims()
    assert tensor.get_dtype_name() == "float"
    data = tensor.get_data()
    values = array.array("f", data.extract_dup(0, data.get_size()))
    got = np.array(values[: len(PROTOTYPES)], dtype=np.float64)
    want = expected_probabilities((1.0, 0.0, 0.0))
    print("GstVkml tensor:", meta.describe(), "values", np.round(got, 6).tolist())
    assert np.allclose(got, want, atol=1e-5), (got, want)
    assert PROTOTYPES[int(got.argmax())][0] == "red"
    pipeline.set_state(Gst.State.NULL)
    check_detections()
    return 0


if __name__ == "__main__":
    status = main()
    # waits for GStreamer's own asynchronous calls, which may still hold a pipeline
    # (docs/element.md, "Exiting")
    Gst.deinit()
    sys.exit(status)
