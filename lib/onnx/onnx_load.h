#pragma once
/* Internals of the ONNX loader shared by onnx_load.c (graphs) and onnx_attr.c
 * (attributes, which recurse into subgraphs). */
#include "onnx/onnx_tensor.h"

typedef struct onnx_opset {
    const char *domain; /* "" for ai.onnx */
    int64_t version;
} onnx_opset;

typedef struct onnx_loader {
    const char *base_dir;
    onnx_backing *backing; /* of the top graph: keeps buffers and subgraphs */
    onnx_opset *opsets;    /* the model's imports */
    size_t n_opsets;
    const onnx_raw_span *spans; /* raw_data of the main graph's initializers */
    size_t n_spans;
    bool alias_spans;   /* constants may point into the model's bytes */
    bool realign_spans; /* ... which are writable (ONNX_CONST_REALIGN) */
} onnx_loader;

/* Deepest nesting of subgraphs (an If in a Loop body is 2) a model may have; deeper is
 * refused at load, so running or planning one never recurses without bound. */
#define ONNX_MAX_SUBGRAPH_DEPTH 16

/* Fills `g` (empty) from a GraphProto: initializers, inputs, nodes, outputs. A subgraph
 * may read names of enclosing graphs: those become inputs that are not listed in
 * g->inputs. The caller sorts the graph. */
vkml_status onnx_load_graph_body(const onnx_loader *L, Onnx__GraphProto *gp, graph *g,
                                 bool subgraph, vkml_error *err);

/* Fails (UNSUPPORTED, naming the innermost node) when subgraphs in gp are nested more than
 * ONNX_MAX_SUBGRAPH_DEPTH deep; checked before anything is loaded. */
vkml_status onnx_check_nesting(const Onnx__GraphProto *gp, vkml_error *err);

/* Adds to node `node` of g its implicit inputs: the names its subgraph attributes read
 * from enclosing graphs (graph.outer_values), each once, and records in each subgraph which
 * input carries each of its outer values (graph.outer_inputs). */
vkml_status onnx_link_outer_names(graph *g, int node,
                                  int (*find_or_add)(void *ctx, const char *name), void *ctx,
                                  vkml_error *err);

/* Decodes one attribute into `out` (arena of g); `where` names the node. */
vkml_status onnx_load_attr(const onnx_loader *L, graph *g, Onnx__AttributeProto *ap,
                           const char *where, graph_attr *out, vkml_error *err);
