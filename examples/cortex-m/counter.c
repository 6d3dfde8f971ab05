/* SysTick as a 64-bit tick counter (see counter.h). Registers: Armv7-M / Armv8-M
 * architecture reference manuals, B3.3 "The system timer, SysTick". */
#include "counter.h"

#define SYST_CSR           (*(volatile uint32_t *)0xE000E010u) /* control and status */
#define SYST_RVR           (*(volatile uint32_t *)0xE000E014u) /* reload value */
#define SYST_CVR           (*(volatile uint32_t *)0xE000E018u) /* current value (counts down) */
#define SYST_CSR_ENABLE    (1u << 0)
#define SYST_CSR_TICKINT   (1u << 1)
#define SYST_CSR_CLKSOURCE (1u << 2)   /* the processor clock */
#define SYST_PERIOD        0x01000000u /* 24-bit counter: reload 0xFFFFFF */

#ifndef BOARD_CLOCK_HZ
#  error "BOARD_CLOCK_HZ (the board's processor clock in QEMU) must be defined"
#endif

static volatile uint32_t wraps;

void systick_handler(void);
void systick_handler(void) { wraps++; }

void counter_start(void)
{
    SYST_CSR = 0u;
    SYST_RVR = SYST_PERIOD - 1u;
    SYST_CVR = 0u; /* any write clears it; counting starts from the reload value */
    wraps = 0u;
    SYST_CSR = SYST_CSR_ENABLE | SYST_CSR_TICKINT | SYST_CSR_CLKSOURCE;
    while (SYST_CVR == 0u) {} /* until the first reload: from then on a read is P-1 .. 1 or 0 */
}

uint64_t counter_ticks(void)
{
    uint32_t before, value;
    /* Retried when a wrap falls between the two reads (an old count with a new value) and
     * while the counter shows 0, the one tick where the wrap may not be counted yet. */
    do {
        before = wraps;
        value = SYST_CVR;
    } while (value == 0u || before != wraps);
    return (uint64_t)before * SYST_PERIOD + (SYST_PERIOD - 1u - value);
}

uint64_t counter_instructions(uint64_t ticks) { return ticks * 1000000000ull / (uint64_t)BOARD_CLOCK_HZ; }
