// Load plus run: one plan, loaded and, when it loads, run on every kernel set of the build.
// Shared by the libFuzzer target (fuzz_run.cpp), the corpus replay and the mutation check.
#pragma once

#include <stddef.h>
#include <stdint.h>

struct FuzzRunResult {
  bool loaded;     // tigris_plan_load returned TIGRIS_OK
  int runs;        // runs started (one per kernel set that applies)
  int runs_ok;     // runs that returned TIGRIS_EXEC_OK
};

// Loads `data` from an exactly sized 16-aligned copy and runs what loads with arenas of at
// most a few hundred KiB (a run may fail for lack of memory; it must never misbehave).
FuzzRunResult fuzz_run_plan(const uint8_t* data, size_t size);
