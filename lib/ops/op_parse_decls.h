/* One OP_PARSE_DECL line per attribute parser named in op_list.h (see op_decls.h). */
/* elementwise */
OP_PARSE_DECL(eltwise_parse);

/* data movement and shapes */

/* reductions and normalisation */

/* spatial */

/* quantization */

