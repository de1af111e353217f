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

/* quantization */
OP_PARSE_DECL(quant_parse);
OP_PARSE_DECL(einsum_parse);
OP_PARSE_DECL(attention_parse);

