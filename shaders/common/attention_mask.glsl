// FusedAttention's mask (lib/ops/fused_attention.h) for attention_fused.comp and
// attention_fused_coop.comp, built with ATTENTION_MASK: binding 3 holds it, Y moves to 4.
// MASK_BATCH(i, d) is the mask's offset for index i of batch dim d (0 without a mask).
#ifdef ATTENTION_MASK
DECLARE_IN_OF(T, 3, mask_add)     // FUSED_MASK_ADD: of Y's dtype
DECLARE_IN_OF(uint, 3, mask_bits) // FUSED_MASK_SELECT: bool, a byte each
#define MASK_BATCH(i, d) ((i) * p.mask_batch[d])

// The score of key t in the row whose mask starts at element row_at: score + M, or
// M ? score : fill.
float masked_score(float score, uint row_at, uint t)
{
    uint at = row_at + t * p.mask_sn;
    if (p.mask_kind == 1u) // FUSED_MASK_ADD
        return score + float(mask_add[at]);
    return ((mask_bits[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu) != 0u ? score : p.fill;
}
#else
#define MASK_BATCH(i, d) 0u
#endif
