/*
 * Instruction counting around a run. Under qemu-system-arm -icount shift=0 QEMU's virtual
 * clock advances exactly 1 ns per executed instruction, and SysTick, clocked from the
 * processor clock (BOARD_CLOCK_HZ, the board's CPU clock in QEMU), counts that clock: the
 * instructions between two reads are the elapsed ticks x 1e9 / BOARD_CLOCK_HZ (to within
 * one tick, 1e9 / BOARD_CLOCK_HZ instructions). Without -icount the figure is host time
 * and means nothing.
 */
#ifndef TIGRIS_EXAMPLE_COUNTER_H
#define TIGRIS_EXAMPLE_COUNTER_H

#include <stdint.h>

/* Starts SysTick free-running from the processor clock, its wrap interrupt counting. */
void counter_start(void);
/* Ticks since counter_start. */
uint64_t counter_ticks(void);
/* Ticks converted to instructions (see above). */
uint64_t counter_instructions(uint64_t ticks);

#endif
