/*
 * Bare-metal TiGrIS on QEMU's Cortex-M boards (mps2-an386, mps2-an500, mps3-an547): run a
 * compiled model once on an embedded input and print its output bytes as hex through
 * semihosting, with the instructions the run took (counter.h: meaningful under
 * qemu-system-arm -icount shift=0).
 *
 * model.h and model.c are generated at build time by
 *   tigris codegen MODEL.tgrs --format core --name model
 * (arena sizes, the runtime-limit assertions, model_init/_run/_deinit). This file owns
 * what a firmware owns: the entry point, the arenas and where the input comes from.
 */
#include <stdint.h>

#include "counter.h"
#include "model.h"
#include "semihost.h"

/* The plan and the model's inputs (one after another), embedded by model_data.S. */
extern const uint8_t tigris_plan_start[];
extern const uint8_t tigris_plan_end[];
extern const uint8_t tigris_input_start[];
extern const uint8_t tigris_input_end[];

/* The fast arena in SRAM and the slow one in PSRAM (mps2_an386.ld places the sections),
 * exactly the sizes the generated header states. */
static uint8_t fast_arena[MODEL_FAST_ARENA_BYTES] __attribute__((aligned(32), section(".bss.tigris_fast")));
static uint8_t slow_arena[MODEL_SLOW_ARENA_BYTES + 1u] __attribute__((aligned(32), section(".bss.tigris_slow")));
static uint8_t output_bytes[MODEL_OUTPUTS_BYTES + 1u] __attribute__((aligned(8)));

static const uint32_t input_sizes[] = MODEL_INPUT_SIZES;
static const uint32_t output_sizes[] = MODEL_OUTPUT_SIZES;

static void print_line(const char *label, uint32_t value, const char *unit)
{
    semihost_print(label);
    semihost_print_u32(value);
    semihost_print(unit);
}

static int fail(const char *what)
{
    semihost_print("error: ");
    semihost_print(what);
    semihost_print("\n");
    return 1;
}

int main(void)
{
    const void *inputs[MODEL_NUM_INPUTS + 1];
    void *outputs[MODEL_NUM_OUTPUTS + 1];
    const uint32_t plan_len = (uint32_t)(tigris_plan_end - tigris_plan_start);
    uint32_t offset = 0;
    int k;

    uint64_t ticks;
    print_line("tigris cortex-m: plan ", plan_len, " bytes");
    print_line(", input ", (uint32_t)(tigris_input_end - tigris_input_start), " bytes\n");
    if ((uint32_t)(tigris_input_end - tigris_input_start) != MODEL_INPUTS_BYTES) {
        return fail("the embedded input is not the size the model takes");
    }
    for (k = 0; k < (int)MODEL_NUM_INPUTS; offset += input_sizes[k], ++k) inputs[k] = tigris_input_start + offset;
    for (k = 0, offset = 0; k < (int)MODEL_NUM_OUTPUTS; offset += output_sizes[k], ++k) {
        outputs[k] = output_bytes + offset;
    }

    if (model_init(tigris_plan_start, plan_len, fast_arena, MODEL_FAST_ARENA_BYTES, slow_arena,
                   MODEL_SLOW_ARENA_BYTES) != MODEL_OK) {
        return fail(model_error());
    }
    /* One inference: the inputs written, every stage run, the outputs read. */
    counter_start();
    ticks = counter_ticks();
    if (model_run(inputs, outputs) != MODEL_OK) return fail(model_error());
    ticks = counter_ticks() - ticks;
    semihost_print("instructions ");
    semihost_print_u64(counter_instructions(ticks));
    semihost_print(" (");
    semihost_print_u64(ticks);
    print_line(" SysTick ticks at ", BOARD_CLOCK_HZ, " Hz)\n");
    print_line("fast arena peak ", model_memory()->fast_peak, "");
    print_line(" of ", MODEL_FAST_ARENA_BYTES, " bytes (SRAM)\n");
    print_line("slow arena peak ", model_memory()->slow_peak, "");
    print_line(" of ", MODEL_SLOW_ARENA_BYTES, " bytes (PSRAM)\n");
    print_line("stages ", model_stats()->stages_normal, " normal, ");
    print_line("", model_stats()->stages_tiled, " tiled, ");
    print_line("", model_stats()->stages_chain, " chained, ");
    print_line("", model_stats()->total_tiles, " tiles\n");
    for (k = 0; k < (int)MODEL_NUM_OUTPUTS; ++k) {
        print_line("output ", (uint32_t)k, " ");
        semihost_print_bytes((const uint8_t *)outputs[k], output_sizes[k]);
        semihost_print("\n");
    }
    model_deinit();
    semihost_print("done\n");
    return 0;
}
