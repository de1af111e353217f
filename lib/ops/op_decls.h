#pragma once
/* Declarations of the parse and shape functions op_list.h names, generated from the list
 * itself (a parse of NULL declares nothing: see op_parse_decls.h). */
#include "ops/op.h"

#define OP(name_, domain_, since_, last_, flags_, params_, parse_, infer_)                         \
    vkml_status infer_(graph_value *values, const graph_node *node, vkml_error *err);
#include "ops/op_list.h"
#undef OP

/* Parsers of op_list.h, one line per distinct name (C cannot skip NULL entries in an
 * X-macro; a missing line is a compile error, a stale one a link error). */
#define OP_PARSE_DECL(fn) vkml_status fn(const graph_node *node, void *params, vkml_error *err)
#include "ops/op_parse_decls.h"
