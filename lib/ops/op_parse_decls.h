/* One OP_PARSE_DECL line per attribute parser named in op_list.h (see op_decls.h). */
/* elementwise */

/* data movement and shapes */

/* reductions and normalisation */
OP_PARSE_DECL(reduce_parse);
OP_PARSE_DECL(cumsum_parse);
OP_PARSE_DECL(topk_parse);
OP_PARSE_DECL(norm_parse);
OP_PARSE_DECL(batchnorm_parse);
OP_PARSE_DECL(lrn_parse);

/* spatial */
OP_PARSE_DECL(conv_parse);
OP_PARSE_DECL(pool_parse);
OP_PARSE_DECL(resize_parse);
OP_PARSE_DECL(convtranspose_parse);
OP_PARSE_DECL(gridsample_parse);
OP_PARSE_DECL(nms_parse);
OP_PARSE_DECL(roialign_parse);
OP_PARSE_DECL(unpool_parse);

/* quantization */

