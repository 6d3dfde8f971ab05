// Paths not built yet. Control flow fails closed with KERNEL (as for an operator this
// runtime cannot execute) so a plan that needs it is refused, never run wrongly. A path
// that lands moves its function into its own file and out of this one.
#include "exec/exec_internal.h"

namespace tigris_rt {

// If/While: the subgraph executor is not built yet.
tigris_exec_error_t run_stage_control(RunContext &, uint16_t) { return TIGRIS_EXEC_ERR_KERNEL; }

}  // namespace tigris_rt
