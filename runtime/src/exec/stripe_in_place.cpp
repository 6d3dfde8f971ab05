// In-place slow reuse for stripes (docs/executor.md): when the slow pool has no room for a
// stripe's output, the output may take the slow buffer of the stage's one banded input if
// that input dies here and writing each band's output rows never overwrites input rows a
// later band loads. Checked band by band on the bytes within one outer block (batch), which
// is where both tensors place their rows.
#include "exec/band_tile.h"

namespace tigris_rt {

namespace {

// The stage's one non-constant input and one output, or false.
bool single_io(const RunContext &ctx, const tigris_stage_t &st, uint16_t *in_slot, uint16_t *out)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *ins = tigris_stage_inputs(plan, &st), *outs = tigris_stage_outputs(plan, &st);
    if (st.outputs_count != 1) return false;
    int32_t found = -1;
    for (uint16_t i = 0; i < st.inputs_count; ++i) {
        if (plan->tensors[ins[i]].flags & TIGRIS_TENSOR_CONSTANT) continue;
        if (found >= 0 && ins[found] != ins[i]) return false;
        if (found < 0) found = i;
    }
    if (found < 0) return false;
    *in_slot = (uint16_t)found;
    *out = outs[0];
    return true;
}

}  // namespace

bool stripe_in_place(BandRun &run, uint16_t s, uint32_t rows, uint16_t *in_slot)
{
    RunContext &ctx = *run.ctx;
    const tigris_stage_t &st = ctx.plan->stages[s];
    uint16_t out = 0;
    if (!single_io(ctx, st, in_slot, &out)) return false;
    const uint16_t in = tigris_stage_inputs(ctx.plan, &st)[*in_slot];
    const int32_t in_space = ctx.ws.roll[2 * in], out_space = ctx.ws.roll[2 * out];
    if (in_space < 0 || out_space < 0 || ctx.ws.last_stage[in] != s || ctx.ws.stage_in[*in_slot] == nullptr)
        return false;
    const CostTensor ti = band_memo_tensor(run.memo, in), to = band_memo_tensor(run.memo, out);
    if (ti.bytes != to.bytes || ti.outer != to.outer) return false;
    const int32_t R = run.spaces[run.n - 1].rows;
    const int32_t b = rows < 1 ? 1 : (rows > (uint32_t)R ? R : (int32_t)rows);
    for (int32_t o0 = 0; o0 + b < R; o0 += b) {
        if (!cost_band_ranges(run.src, run.spaces, run.n, o0, o0 + b, 0, 0)) return false;
        const uint64_t written_end = (uint64_t)run.spaces[out_space].r1 * to.cell * to.cols;
        const int32_t o2 = o0 + 2 * b < R ? o0 + 2 * b : R;
        if (!cost_band_ranges(run.src, run.spaces, run.n, o0 + b, o2, 0, 0)) return false;
        const uint64_t next_read = (uint64_t)run.spaces[in_space].r0 * ti.cell * ti.cols;
        if (written_end > next_read) return false;
    }
    return true;
}

}  // namespace tigris_rt
