#!/usr/bin/python3
"""Writes the small ONNX models the loader tests read (tests/onnx/test_onnx_*.c).

Usage: make_models.py OUTDIR STAMP. Every model is built field by field with onnx.helper
(Debian's python3-onnx 1.12), including broken ones the loader must refuse.
"""
import os
import sys

import numpy as np
from onnx import AttributeProto, TensorProto, TypeProto, helper, numpy_helper

OUT = sys.argv[1]


def save(model, rel):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


def model(nodes, inputs, outputs, inits=(), opset=13, **kw):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    opsets = [helper.make_opsetid("", opset)] if opset else []
    return helper.make_model(graph, opset_imports=opsets, **kw)


def identity_model(inits, opset=13, **kw):
    """X -> Identity -> Y, with the given initializers beside it."""
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1])
    node = helper.make_node("Identity", ["X"], ["Y"], name="id")
    return model([node], [x], [y], inits, opset, **kw)


def typed_inits():
    """One initializer per dtype, written through the typed fields (raw=False)."""
    t = TensorProto
    specs = [
        ("f32", t.FLOAT, [2, 2], [1.5, -2.0, 3.25, 0.0]),
        ("i32", t.INT32, [3], [-7, 0, 2147483647]),
        ("i8", t.INT8, [3], [-128, 5, 127]),
        ("u8", t.UINT8, [3], [0, 200, 255]),
        ("i16", t.INT16, [2], [-32768, 1234]),
        ("u16", t.UINT16, [2], [65535, 7]),
        ("b", t.BOOL, [3], [True, False, True]),
        ("f16", t.FLOAT16, [2], np.array([1.0, -0.5], dtype=np.float16)),
        ("i64", t.INT64, [2], [-(2**40), 9]),
        ("f64", t.DOUBLE, [2], [0.125, -1e300]),
        ("u32", t.UINT32, [2], [4000000000, 1]),
        ("u64", t.UINT64, [2], [2**63 + 5, 3]),
        ("scalar", t.FLOAT, [], [42.0]),
        ("empty", t.FLOAT, [0, 3], []),
    ]
    inits = [helper.make_tensor(n, dt, dims, vals) for n, dt, dims, vals in specs]
    bf16 = helper.make_tensor("bf16", t.BFLOAT16, [2], [0, 0])
    del bf16.int32_data[:]
    bf16.int32_data.extend([0x3FC0, 0xC000])  # 1.5, -2.0
    inits.append(bf16)
    inits.append(numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "raw_f32"))
    inits.append(numpy_helper.from_array(np.arange(2048, dtype=np.float32), "raw_big"))
    inits.append(numpy_helper.from_array(np.array([-1, 2], dtype=np.int64), "raw_i64"))
    return inits


def attr_node():
    """A node (of an op vkml lacks) carrying one attribute of every type."""
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])
    sub_out = helper.make_tensor_value_info("S", TensorProto.FLOAT, [1])
    # The subgraph reads X from the enclosing graph.
    sub = helper.make_graph([helper.make_node("Neg", ["X"], ["S"])], "sub", [], [sub_out])
    sub2 = helper.make_graph([helper.make_node("Abs", ["X"], ["S"])], "sub2", [], [sub_out])
    tensor = helper.make_tensor("tv", TensorProto.INT64, [3], [4, 5, 6])
    tensor2 = helper.make_tensor("tv2", TensorProto.FLOAT, [1], [2.5])
    sparse = helper.make_sparse_tensor(
        helper.make_tensor("sv", TensorProto.FLOAT, [1], [1.0]),
        helper.make_tensor("si", TensorProto.INT64, [1], [0]), [4])
    tp = helper.make_tensor_type_proto(TensorProto.FLOAT, [2])
    node = helper.make_node("AttrTest", ["X", ""], ["Y"], name="attrs", domain="",
                            f=0.5, i=-3, s="hello", t=tensor, g=sub, floats=[1.0, 2.0],
                            ints=[7, 8, 9], strings=["a", "bc"], tensors=[tensor, tensor2],
                            graphs=[sub, sub2])
    extra = [
        AttributeProto(name="sp", type=AttributeProto.SPARSE_TENSOR, sparse_tensor=sparse),
        AttributeProto(name="sps", type=AttributeProto.SPARSE_TENSORS,
                       sparse_tensors=[sparse, sparse]),
        AttributeProto(name="tp", type=AttributeProto.TYPE_PROTO, tp=tp),
        AttributeProto(name="tps", type=AttributeProto.TYPE_PROTOS, type_protos=[tp, tp, tp]),
        # IR 1 style: no `type` field, the type follows from the field that is set.
        AttributeProto(name="untyped", i=11),
    ]
    node.attribute.extend(extra)
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1])
    return model([node], [x], [y])


def external_tensor(name, dims, location, offset=None, length=None):
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            entry = t.external_data.add()
            entry.key, entry.value = key, str(value)
    return t


def external_models():
    ext = os.path.join(OUT, "ext")
    os.makedirs(ext, exist_ok=True)
    # weights.bin: 16 bytes of padding, then [1,2,3] then [10,20] (to the end of the file).
    data = np.zeros(4, np.float32).tobytes() + np.array([1, 2, 3, 10, 20], np.float32).tobytes()
    with open(os.path.join(ext, "weights.bin"), "wb") as f:
        f.write(data)
    with open(os.path.join(OUT, "outside.bin"), "wb") as f:
        f.write(data)
    link = os.path.join(ext, "link.bin")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink("../outside.bin", link)
    os.makedirs(os.path.join(ext, "sub"), exist_ok=True)
    with open(os.path.join(ext, "odd.bin"), "wb") as f:
        f.write(b"\0" + np.array([7.5], np.float32).tobytes())
    good = [external_tensor("w3", [3], "weights.bin", 16, 12),
            external_tensor("w2", [2], "./weights.bin", 28),
            external_tensor("odd", [1], "odd.bin", 1, 4)]
    save(identity_model(good), "ext/model.onnx")
    bad = {
        "parent": external_tensor("w", [2], "../outside.bin", 0, 8),
        "dotdot": external_tensor("w", [2], "sub/../../outside.bin", 0, 8),
        "absolute": external_tensor("w", [2], os.path.abspath(os.path.join(OUT, "outside.bin")),
                                    0, 8),
        "link": external_tensor("w", [2], "link.bin", 0, 8),
        "range": external_tensor("w", [2], "weights.bin", 32, 8),
        "offset": external_tensor("w", [2], "weights.bin", 1000),
        "length": external_tensor("w", [3], "weights.bin", 0, 8),
        "missing": external_tensor("w", [2], "nothere.bin", 0, 8),
        "nolocation": external_tensor("w", [2], "", 0, 8),
    }
    for tag, t in bad.items():
        if tag == "nolocation":
            del t.external_data[0]
        save(identity_model([t]), "ext/bad_%s.onnx" % tag)


def nested_if(depth):
    """If nodes nested `depth` deep through their then/else branches."""
    out = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1])
    leaf = helper.make_graph([helper.make_node("Identity", ["X"], ["Y"])], "leaf", [], [out])
    inner = leaf
    for _ in range(depth):
        node = helper.make_node("If", ["C"], ["Y"], then_branch=inner, else_branch=leaf)
        inner = helper.make_graph([node], "level", [], [out])
    c = helper.make_tensor_value_info("C", TensorProto.BOOL, [])
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1])
    return model(list(inner.node), [c, x], [out])


def bad_models():
    f = TensorProto.FLOAT
    x = helper.make_tensor_value_info("X", f, [1])
    y = helper.make_tensor_value_info("Y", f, [1])
    ident = helper.make_node("Identity", ["X"], ["Y"], name="id")
    short = TensorProto(name="short", data_type=f, dims=[3], float_data=[1.0, 2.0])
    raw = TensorProto(name="raw", data_type=f, dims=[3], raw_data=b"\0" * 8)
    neg = TensorProto(name="neg", data_type=f, dims=[-2], raw_data=b"")
    huge = TensorProto(name="huge", data_type=f, dims=[2**40, 2**40], raw_data=b"\0" * 4)
    notype = TensorProto(name="notype", dims=[1], raw_data=b"\0" * 4)
    complex64 = TensorProto(name="cplx", data_type=TensorProto.COMPLEX64, dims=[1],
                            raw_data=b"\0" * 8)
    # Strings load; one holding a NUL byte does not (vkml's strings end at their NUL).
    string = helper.make_tensor("str", TensorProto.STRING, [1], [b"x\x00y"])
    seg = helper.make_tensor("seg", f, [1], [1.0])
    seg.segment.begin, seg.segment.end = 0, 1
    cases = {
        "typed_count": identity_model([short]),
        "raw_size": identity_model([raw]),
        "neg_dim": identity_model([neg]),
        "huge_dims": identity_model([huge]),
        "no_dtype": identity_model([notype]),
        "complex": identity_model([complex64]),
        "string_init": identity_model([string]),
        "segment": identity_model([seg]),
        "dup_init": identity_model([helper.make_tensor("d", f, [1], [1.0])] * 2),
        "no_opset": identity_model([], opset=None),
        "opset_high": identity_model([], opset=99),
        "no_output_producer": model([ident], [x], [helper.make_tensor_value_info("Z", f, [1])]),
        "unproduced_input": model([helper.make_node("Identity", ["W"], ["Y"], name="lost")],
                                  [x], [y]),
        "cycle": model([helper.make_node("Add", ["X", "B"], ["A"], name="a1"),
                        helper.make_node("Add", ["A", "X"], ["B"], name="a2"),
                        helper.make_node("Identity", ["A"], ["Y"])], [x], [y]),
        "twice": model([helper.make_node("Identity", ["X"], ["Y"], name="p1"),
                        helper.make_node("Identity", ["X"], ["Y"], name="p2")], [x], [y]),
        "no_op_type": model([helper.make_node("", ["X"], ["Y"], name="blank")], [x], [y]),
        "dup_attr": model([helper.make_node("Identity", ["X"], ["Y"], name="da", k=1)], [x], [y]),
        "unknown_op": model([helper.make_node("FooBar", ["X"], ["Y"], name="mystery")], [x], [y]),
        "unknown_domain": model([helper.make_node("Baz", ["X"], ["Y"], name="dom",
                                                  domain="com.example")], [x], [y]),
        "old_add": model([helper.make_node("Add", ["X", "X"], ["Y"], name="old")], [x], [y],
                         opset=1),
        "deep": nested_if(60),
    }
    cases["dup_attr"].graph.node[0].attribute.extend([helper.make_attribute("k", 2)])
    for tag, m in cases.items():
        save(m, "bad/%s.onnx" % tag)


def hostile_models():
    """Models that load but must be refused (or not) at session creation, and more that
    the loader refuses: the bad-input matrix of test_onnx_hostile.c."""
    f = TensorProto.FLOAT
    y = helper.make_tensor_value_info("Y", f, None)

    def relu_on(dims):
        x = helper.make_tensor_value_info("X", f, dims)
        return model([helper.make_node("Relu", ["X"], ["Y"], name="r")], [x], [y])

    def reshape_to(target):
        x = helper.make_tensor_value_info("X", f, [2, 3])
        shape = helper.make_tensor("shape", TensorProto.INT64, [len(target)], target)
        node = helper.make_node("Reshape", ["X", "shape"], ["Y"], name="rs")
        return model([node], [x], [y], [shape])

    x1 = helper.make_tensor_value_info("X", f, [1])
    ident = helper.make_node("Identity", ["X"], ["Y"], name="id")
    cases = {
        "input_overflow": relu_on([2**40, 2**40]),
        "input_petabytes": relu_on([2**20, 2**20, 2**10]),
        "input_neg_dim": relu_on([1, -3]),
        "reshape_neg": reshape_to([-5, 2]),
        "reshape_two_minus_one": reshape_to([-1, -1]),
        "reshape_absurd": reshape_to([2**62, 4]),
        "dup_input": model([ident], [x1, x1], [y]),
        "init_terabytes": identity_model([TensorProto(name="tb", data_type=f,
                                                      dims=[2**20, 2**20], raw_data=b"\0" * 4)]),
        "unknown_opset_domain": model([helper.make_node("Relu", ["X"], ["Y"], name="r",
                                                        domain="com.unknown")], [x1], [y]),
    }
    # com.microsoft's quantized ops (ONNX Runtime's contrib domain), imported properly:
    # refused at load naming the domain and the op.
    u8 = TensorProto.UINT8
    ms = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["Y"],
                          name="qc", domain="com.microsoft")
    cases["com_microsoft_qlinear"] = model(
        [ms], [helper.make_tensor_value_info(n, t, d) for n, t, d in [
            ("x", u8, [1, 1, 3, 3]), ("xs", f, []), ("xz", u8, []), ("w", u8, [1, 1, 1, 1]),
            ("ws", f, []), ("wz", u8, []), ("ys", f, []), ("yz", u8, [])]],
        [helper.make_tensor_value_info("Y", u8, None)])
    cases["com_microsoft_qlinear"].opset_import.extend([helper.make_opsetid("com.microsoft", 1)])
    for tag, m in cases.items():
        save(m, "hostile/%s.onnx" % tag)
    # External data that claims 4 TiB of a 36-byte file.
    big = external_tensor("w", [2**20, 2**20], "weights.bin", 0, 4 * 2**40)
    save(identity_model([big]), "ext/bad_terabytes.onnx")


def good_models():
    dims = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3, None, 5])
    dims.type.tensor_type.shape.dim[2].Clear()
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3, None, 5])
    noshape = helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)
    relu = helper.make_node("Relu", ["X"], ["Y"], name="r")
    relu2 = helper.make_node("Relu", ["Y"], ["Z"], name="r2")
    save(model([relu, relu2], [dims], [y, noshape]), "symbolic.onnx")
    save(identity_model(typed_inits()), "typed.onnx")
    m = identity_model([], opset=13)
    m.opset_import.extend([helper.make_opsetid("ai.onnx.ml", 3)])
    save(m, "ml_import.onnx")
    save(attr_node(), "attrs.onnx")
    save(nested_if(3), "nested_if.onnx")
    # PyTorch's avg_pool2d(padding=1): a Constant's pads, Pad, AveragePool (folded at load).
    xp = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2, 6, 6])
    pads = helper.make_node("Constant", [], ["pads"], name="pads", value=helper.make_tensor(
        "p", TensorProto.INT64, [8], [0, 0, 1, 1, 0, 0, 1, 1]))
    pad = helper.make_node("Pad", ["X", "pads"], ["P"], name="pad", mode="constant")
    pool = helper.make_node("AveragePool", ["P"], ["Y"], name="pool", kernel_shape=[3, 3])
    save(model([pads, pad, pool], [xp], [y]), "pad_pool.onnx")


good_models()
external_models()
hostile_models()
bad_models()
with open(sys.argv[2], "w") as f:
    f.write("ok\n")
