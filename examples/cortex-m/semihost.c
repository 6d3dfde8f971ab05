/* Arm semihosting calls (see semihost.h). Operation numbers and the exit reason code are
 * those of Arm's semihosting specification. */
#include "semihost.h"

#define SYS_WRITE0                   0x04u
#define SYS_EXIT_EXTENDED            0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

/* r0 = operation, r1 = argument; the host answers in r0. */
static uint32_t semihost_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void semihost_print(const char *text) { semihost_call(SYS_WRITE0, text); }

void semihost_print_u32(uint32_t value)
{
    char text[11];
    int n = 10;
    text[n] = '\0';
    do {
        text[--n] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value != 0u);
    semihost_print(text + n);
}

void semihost_print_u64(uint64_t value)
{
    char text[21];
    int n = 20;
    text[n] = '\0';
    do {
        text[--n] = (char)('0' + (int)(value % 10u));
        value /= 10u;
    } while (value != 0u);
    semihost_print(text + n);
}

static const char hex_digits[] = "0123456789abcdef";

void semihost_print_hex32(uint32_t value)
{
    char text[9];
    int i;
    for (i = 7; i >= 0; --i, value >>= 4) text[i] = hex_digits[value & 15u];
    text[8] = '\0';
    semihost_print(text);
}

void semihost_print_bytes(const uint8_t *data, uint32_t len)
{
    char chunk[129];
    uint32_t i, n = 0;
    for (i = 0; i < len; ++i) {
        chunk[n++] = hex_digits[data[i] >> 4];
        chunk[n++] = hex_digits[data[i] & 15u];
        if (n == sizeof chunk - 1u || i + 1u == len) {
            chunk[n] = '\0';
            semihost_print(chunk);
            n = 0;
        }
    }
}

void semihost_exit(int status)
{
    const uint32_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uint32_t)status};
    semihost_call(SYS_EXIT_EXTENDED, block);
    for (;;) {}
}
