// Paths not built yet. Each fails closed with TILE (control flow: KERNEL, as for an
// operator this runtime cannot execute) so a plan that needs one is refused, never run
// wrongly. A path that lands moves its function into its own file and out of this one.
#include "exec/exec_internal.h"

namespace tigris_rt {

tigris_exec_error_t run_stage_stripe(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }
tigris_exec_error_t run_stage_tiled_2d(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }
tigris_exec_error_t run_stage_by_input(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }
tigris_exec_error_t run_stage_transpose(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }
tigris_exec_error_t run_stage_rows(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }
tigris_exec_error_t run_stage_reshape(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }
tigris_exec_error_t run_stage_leading(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_TILE; }

tigris_exec_error_t run_chain(RunContext &, uint16_t, uint16_t *consumed)
{
    *consumed = 1;
    return TIGRIS_EXEC_ERR_TILE;
}

// If/While: the subgraph executor is not built yet.
tigris_exec_error_t run_stage_control(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_KERNEL; }

}  // namespace tigris_rt
