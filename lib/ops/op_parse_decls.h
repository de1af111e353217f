/* One OP_PARSE_DECL line per attribute parser named in op_list.h (see op_decls.h). */
/* elementwise */
OP_PARSE_DECL(eltwise_parse);

/* data movement and shapes */

/* reductions and normalisation */
OP_PARSE_DECL(reduce_parse);
OP_PARSE_DECL(cumsum_parse);
OP_PARSE_DECL(topk_parse);
OP_PARSE_DECL(norm_parse);
OP_PARSE_DECL(batchnorm_parse);
OP_PARSE_DECL(lrn_parse);

/* spatial */

/* quantization */

