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

// The mask of keys col0 .. col0 + 7 in the row whose mask starts at row_at, as the additive
// mask's values or the Where's 0 and 1; a key past n reads key n - 1's (its score is not
// used). The 8 loads are unconditional, so that they are in flight together.
void mask_run(uint row_at, uint col0, out float m[8])
{
    uint at[8];
    [[unroll]] for (uint i = 0u; i < 8u; i++)
        at[i] = row_at + min(col0 + i, p.n - 1u) * p.mask_sn;
    if (p.mask_kind == 1u) { // FUSED_MASK_ADD
        [[unroll]] for (uint i = 0u; i < 8u; i++)
            m[i] = float(mask_add[at[i]]);
    } else {
        [[unroll]] for (uint i = 0u; i < 8u; i++)
            m[i] = float((mask_bits[at[i] >> 2u] >> ((at[i] & 3u) * 8u)) & 0xffu);
    }
}

// Score s under mask value m (mask_run's).
float mask_apply(float s, float m)
{
    return p.mask_kind == 1u ? s + m : m != 0.0 ? s : p.fill;
}
#else
#define MASK_BATCH(i, d) 0u
#endif
