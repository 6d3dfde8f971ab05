/* A program outside the TiGrIS tree, built against an installed TiGrIS (find_package or
 * pkg-config): it includes the public headers, links the runtime and calls into it. */
#include <stdio.h>
#include <string.h>

#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_loader.h"
#ifdef TIGRIS_HAS_CMSIS_NN
#include "tigris_kernels_cmsis_nn.h"
#endif

int main(void) {
  static const uint8_t not_a_plan[64] = {'N', 'O', 'P', 'E'};
  tigris_plan_t plan;
  tigris_plan_limits_t limits;
  const tigris_error_t err = tigris_plan_load(not_a_plan, sizeof not_a_plan, &plan);
  tigris_build_limits(&limits);
  printf("runtime %d.%d.%d, %u tensors at most, a foreign buffer: %s\n", TIGRIS_RUNTIME_VERSION_MAJOR,
         TIGRIS_RUNTIME_VERSION_MINOR, TIGRIS_RUNTIME_VERSION_PATCH, (unsigned)limits.tensors, tigris_error_str(err));
#ifdef TIGRIS_HAS_CMSIS_NN
  /* An installation with the adapter: its dispatcher links, with the CMSIS-NN library. */
  if (tigris_dispatch_kernel_cmsis_nn(NULL, NULL, 0, NULL, NULL) == 0) return 1;
#endif
  /* The loader must refuse it, and name why. */
  return err != TIGRIS_OK && strlen(tigris_error_str(err)) > 0 ? 0 : 1;
}
