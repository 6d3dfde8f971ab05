/*
 * Start-up for the Cortex-M boards of QEMU (mps2-an386, mps2-an500, mps3-an547): the vector table, the reset handler
 * (FPU on, .data copied, .bss zeroed, main, exit through semihosting) and a fault handler
 * that reports what went wrong instead of hanging. Symbols come from the board's linker script (sections.ld).
 */
#include <stdint.h>

#include "semihost.h"

int main(void);

extern uint32_t __stack_top[];
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];

/* System control block registers (ARMv7-M architecture reference manual, B3.2). */
#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u) /* coprocessor access control */
#define SCB_CFSR  (*(volatile uint32_t *)0xE000ED28u) /* configurable fault status */
#define SCB_HFSR  (*(volatile uint32_t *)0xE000ED2Cu) /* hard fault status */
#define SCB_BFAR  (*(volatile uint32_t *)0xE000ED38u) /* bus fault address */

void reset_handler(void);
void fault_handler(void);
void unexpected_handler(void);
void systick_handler(void); /* counter.c */

void reset_handler(void)
{
    uint32_t *src = __data_load, *dst;
    /* Full access to CP10 and CP11 (the FPU) before any floating-point instruction: the
     * runtime is built for the hard-float ABI. */
    SCB_CPACR |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    for (dst = __data_start; dst < __data_end;) *dst++ = *src++;
    for (dst = __bss_start; dst < __bss_end;) *dst++ = 0u;
    semihost_exit(main());
}

void fault_handler(void)
{
    semihost_print("\nfault: CFSR 0x");
    semihost_print_hex32(SCB_CFSR);
    semihost_print(" HFSR 0x");
    semihost_print_hex32(SCB_HFSR);
    semihost_print(" BFAR 0x");
    semihost_print_hex32(SCB_BFAR);
    semihost_print("\n");
    semihost_exit(3);
}

void unexpected_handler(void)
{
    semihost_print("\nunexpected exception or interrupt\n");
    semihost_exit(4);
}

typedef void (*vector_t)(void);

/* Entry 0 is the initial stack pointer, then the 15 system exceptions and the 32
 * interrupts of the AN386 image; none of the interrupts is enabled. */
__attribute__((section(".vectors"), used)) static const vector_t vector_table[16 + 32] = {
    (vector_t)(uintptr_t)__stack_top,
    reset_handler,
    unexpected_handler, /* NMI */
    fault_handler,      /* HardFault */
    fault_handler,      /* MemManage */
    fault_handler,      /* BusFault */
    fault_handler,      /* UsageFault */
    0,
    0,
    0,
    0,                  /* reserved */
    unexpected_handler, /* SVCall */
    unexpected_handler, /* DebugMonitor */
    0,                  /* reserved */
    unexpected_handler, /* PendSV */
    systick_handler,    /* SysTick */
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
    unexpected_handler,
};
