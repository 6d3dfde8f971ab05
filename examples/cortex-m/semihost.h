/*
 * Minimal Arm semihosting for the QEMU example: text to the host's stdout and the exit
 * status, through the debugger's BKPT 0xAB interface (qemu-system-arm -semihosting).
 * No newlib stdio, so nothing here can pull in malloc.
 */
#ifndef TIGRIS_EXAMPLE_SEMIHOST_H
#define TIGRIS_EXAMPLE_SEMIHOST_H

#include <stdint.h>

/* SYS_WRITE0: a NUL-terminated string. */
void semihost_print(const char *text);
/* Decimal and zero-padded lowercase hex (8 digits). */
void semihost_print_u32(uint32_t value);
void semihost_print_u64(uint64_t value);
void semihost_print_hex32(uint32_t value);
/* Lowercase hex, two digits a byte, on the current line. */
void semihost_print_bytes(const uint8_t *data, uint32_t len);
/* SYS_EXIT_EXTENDED: QEMU exits with `status`. Does not return. */
void semihost_exit(int status) __attribute__((noreturn));

#endif
