/* One OP_PARSE_DECL line per attribute parser named in op_list.h (see op_decls.h). */
/* elementwise */
OP_PARSE_DECL(eltwise_parse);
OP_PARSE_DECL(fused_parse);
OP_PARSE_DECL(fused_attention_parse);

/* data movement and shapes */
OP_PARSE_DECL(compress_parse);
OP_PARSE_DECL(concat_parse);
OP_PARSE_DECL(constant_of_shape_parse);
OP_PARSE_DECL(eye_like_parse);
OP_PARSE_DECL(window_fn_parse);
OP_PARSE_DECL(gather_parse);
OP_PARSE_DECL(onehot_parse);
OP_PARSE_DECL(pad_parse);
OP_PARSE_DECL(shape_parse);
OP_PARSE_DECL(slice_parse);
OP_PARSE_DECL(space_parse);
OP_PARSE_DECL(split_parse);
OP_PARSE_DECL(squeeze_parse);
OP_PARSE_DECL(transpose_parse);
OP_PARSE_DECL(trilu_parse);

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
OP_PARSE_DECL(quant_parse);
OP_PARSE_DECL(einsum_parse);
OP_PARSE_DECL(attention_parse);

/* remaining ops */
OP_PARSE_DECL(loss_parse);
OP_PARSE_DECL(bitcast_parse);
OP_PARSE_DECL(revseq_parse);
OP_PARSE_DECL(rotary_parse);
OP_PARSE_DECL(dft_parse);
OP_PARSE_DECL(tscatter_parse);
/* recurrent and leftovers */
OP_PARSE_DECL(rnn_parse);
OP_PARSE_DECL(deformconv_parse);

/* strings */
OP_PARSE_DECL(strnorm_parse);
/* control flow */
OP_PARSE_DECL(if_parse);
OP_PARSE_DECL(loop_parse);
OP_PARSE_DECL(scan_parse);
/* sequences */
OP_PARSE_DECL(concat_from_sequence_parse);
OP_PARSE_DECL(sequence_empty_parse);
OP_PARSE_DECL(split_to_sequence_parse);
/* vkml's own ops */
OP_PARSE_DECL(preprocess_parse);
