/* One OP_PARSE_DECL line per attribute parser named in op_list.h (see op_decls.h). */
/* elementwise */

/* data movement and shapes */

/* reductions and normalisation */

/* spatial */

/* quantization */
OP_PARSE_DECL(quant_parse);
OP_PARSE_DECL(einsum_parse);
OP_PARSE_DECL(attention_parse);

