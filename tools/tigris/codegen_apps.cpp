// The `app` programs of `tigris codegen`, one per platform the backend implies:
//   reference -> POSIX: reads the plan and the inputs from files, malloc'd arenas
//   cmsis-nn  -> Cortex-M bare metal: plan and inputs linked in, static arenas
//   esp-nn    -> ESP-IDF: plan in a flash partition, heap_caps arenas (slow in PSRAM)
#include "tools/tigris/codegen_source.h"

namespace tigris::cli {
namespace {

using Vars = std::map<std::string, std::string>;

const char* kPosix = R"C(
/* ---- POSIX program -------------------------------------------------------------------- */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A zeroed block of `size` bytes (at least one) on a 64-byte boundary. */
static unsigned char *$p$_block(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? size : 1) != 0) return NULL;
    memset(p, 0, size ? size : 1);
    return (unsigned char *)p;
}

/* Reads exactly `bytes` bytes from `path` into `dst`; 0 or -1 with a message. */
static int $p$_read_exact(const char *path, unsigned char *dst, uint32_t bytes)
{
    FILE *f = fopen(path, "rb");
    int ok = f != NULL && fread(dst, 1, bytes, f) == bytes && fgetc(f) == EOF;
    if (f != NULL) fclose(f);
    if (!ok) fprintf(stderr, "Error: %s: cannot read exactly %u bytes\n", path, (unsigned)bytes);
    return ok ? 0 : -1;
}

/* The whole plan file in an aligned block (its XIP weights are read in place). */
static unsigned char *$p$_read_plan(const char *path, uint32_t *len)
{
    unsigned char *data = NULL;
    long size = -1;
    FILE *f = fopen(path, "rb");
    if (f != NULL && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = $p$_block((size_t)size)) != NULL &&
        $p$_read_exact(path, data, (uint32_t)size) == 0) {
        *len = (uint32_t)size;
    } else {
        if (data == NULL) fprintf(stderr, "Error: %s: cannot read the plan\n", path);
        free(data);
        data = NULL;
    }
    if (f != NULL) fclose(f);
    return data;
}

int main(int argc, char **argv)
{
    static const uint32_t input_bytes[] = $P$_INPUT_SIZES;
    static const uint32_t output_bytes[] = $P$_OUTPUT_SIZES;
    const void *inputs[$P$_NUM_INPUTS + 1];
    void *outputs[$P$_NUM_OUTPUTS + 1];
    unsigned char *plan_data = NULL, *fast, *slow, *in_data, *out_data;
    uint32_t plan_len = 0, offset = 0;
    FILE *out_file = NULL;
    int k, rc = 1;
    if (argc != 3 + (int)$P$_NUM_INPUTS) {
        fprintf(stderr, "usage: %s PLAN.tgrs OUTPUT.bin$usage_inputs$\n", argv[0]);
        return 2;
    }
    fast = $p$_block($P$_FAST_ARENA_BYTES);
    slow = $p$_block($P$_SLOW_ARENA_BYTES);
    in_data = $p$_block($P$_INPUTS_BYTES);
    out_data = $p$_block($P$_OUTPUTS_BYTES);
    if (fast == NULL || slow == NULL || in_data == NULL || out_data == NULL) {
        fprintf(stderr, "Error: out of memory\n");
        goto done;
    }
    /* Each INPUT file holds one model input: the dtype the model declares, stored axis order. */
    for (k = 0; k < (int)$P$_NUM_INPUTS; offset += input_bytes[k], ++k) {
        inputs[k] = in_data + offset;
        if ($p$_read_exact(argv[3 + k], in_data + offset, input_bytes[k]) != 0) goto done;
    }
    for (k = 0, offset = 0; k < (int)$P$_NUM_OUTPUTS; offset += output_bytes[k], ++k) outputs[k] = out_data + offset;
    plan_data = $p$_read_plan(argv[1], &plan_len);
    if (plan_data == NULL) goto done;
    if ($p$_init(plan_data, plan_len, fast, $P$_FAST_ARENA_BYTES, slow, $P$_SLOW_ARENA_BYTES) != $P$_OK ||
        $p$_run(inputs, outputs) != $P$_OK) {
        fprintf(stderr, "Error: %s: %s\n", argv[1], $p$_error());
        goto done;
    }
    out_file = fopen(argv[2], "wb");
    if (out_file == NULL || fwrite(out_data, 1, $P$_OUTPUTS_BYTES, out_file) != $P$_OUTPUTS_BYTES) {
        fprintf(stderr, "Error: %s: cannot write the outputs\n", argv[2]);
        goto done;
    }
    printf("%s: fast peak %u of %u bytes, slow peak %u of %u bytes, %u tiles; wrote %s (%u bytes)\n", argv[1],
           (unsigned)$p$_memory()->fast_peak, (unsigned)$P$_FAST_ARENA_BYTES, (unsigned)$p$_memory()->slow_peak,
           (unsigned)$P$_SLOW_ARENA_BYTES, (unsigned)$p$_stats()->total_tiles, argv[2], (unsigned)$P$_OUTPUTS_BYTES);
    rc = 0;
done:
    $p$_deinit();
    if (out_file != NULL && fclose(out_file) != 0) rc = 1;
    free(plan_data);
    free(fast);
    free(slow);
    free(in_data);
    free(out_data);
    return rc;
}
)C";

const char* kBareMetal = R"C(
/* ---- Bare-metal program --------------------------------------------------------------- */

/* Provided by the firmware: the plan (16-byte aligned; .incbin in a .S file, or objcopy) and
 * the model inputs one after another, linked in; and where text goes (UART, semihosting). */
extern const uint8_t tigris_plan_start[];
extern const uint8_t tigris_plan_end[];
extern const uint8_t tigris_input_start[];
void tigris_app_print(const char *text);

/* Static arenas: a linker script can place .bss.tigris_fast in SRAM, .bss.tigris_slow in PSRAM. */
static uint8_t $p$_fast_arena[$P$_FAST_ARENA_BYTES] __attribute__((aligned(32), section(".bss.tigris_fast")));
static uint8_t $p$_slow_arena[$P$_SLOW_ARENA_BYTES + 1u] __attribute__((aligned(32), section(".bss.tigris_slow")));
static uint8_t $p$_outputs[$P$_OUTPUTS_BYTES + 1u] __attribute__((aligned(8)));

static void $p$_print_u32(uint32_t value)
{
    char text[11];
    int n = 10;
    text[n] = '\0';
    do {
        text[--n] = (char)('0' + value % 10u);
        value /= 10u;
    } while (value != 0u);
    tigris_app_print(text + n);
}

/* Lowercase hex, 64 digits a line. */
static void $p$_print_hex(const uint8_t *data, uint32_t len)
{
    static const char digits[] = "0123456789abcdef";
    char line[66];
    uint32_t i, n = 0;
    for (i = 0; i < len; ++i) {
        line[n++] = digits[data[i] >> 4];
        line[n++] = digits[data[i] & 15u];
        if (n == 64u || i + 1u == len) {
            line[n++] = '\n';
            line[n] = '\0';
            tigris_app_print(line);
            n = 0;
        }
    }
}

int main(void)
{
    static const uint32_t input_bytes[] = $P$_INPUT_SIZES;
    static const uint32_t output_bytes[] = $P$_OUTPUT_SIZES;
    const void *inputs[$P$_NUM_INPUTS + 1];
    void *outputs[$P$_NUM_OUTPUTS + 1];
    uint32_t offset = 0;
    int k;
    for (k = 0; k < (int)$P$_NUM_INPUTS; offset += input_bytes[k], ++k) inputs[k] = tigris_input_start + offset;
    for (k = 0, offset = 0; k < (int)$P$_NUM_OUTPUTS; offset += output_bytes[k], ++k) outputs[k] = $p$_outputs + offset;
    if ($p$_init(tigris_plan_start, (uint32_t)(tigris_plan_end - tigris_plan_start), $p$_fast_arena,
                 $P$_FAST_ARENA_BYTES, $p$_slow_arena, $P$_SLOW_ARENA_BYTES) != $P$_OK ||
        $p$_run(inputs, outputs) != $P$_OK) {
        tigris_app_print("tigris: ");
        tigris_app_print($p$_error());
        tigris_app_print("\n");
        $p$_deinit();
        return 1;
    }
    tigris_app_print("fast peak ");
    $p$_print_u32($p$_memory()->fast_peak);
    tigris_app_print(" of ");
    $p$_print_u32($P$_FAST_ARENA_BYTES);
    tigris_app_print(" bytes, slow peak ");
    $p$_print_u32($p$_memory()->slow_peak);
    tigris_app_print(" bytes, ");
    $p$_print_u32($p$_stats()->total_tiles);
    tigris_app_print(" tiles\n");
    for (k = 0; k < (int)$P$_NUM_OUTPUTS; ++k) {
        tigris_app_print("output ");
        $p$_print_u32((uint32_t)k);
        tigris_app_print("\n");
        $p$_print_hex((const uint8_t *)outputs[k], output_bytes[k]);
    }
    $p$_deinit();
    return 0;
}
)C";

const char* kEspIdf = R"C(
/* ---- ESP-IDF application -------------------------------------------------------------- */

#include <string.h>

#include "esp_heap_caps.h"
#include "esp_log.h"
#include "esp_partition.h"

static const char *$p$_tag = "tigris";

void app_main(void)
{
    static const uint32_t input_bytes[] = $P$_INPUT_SIZES;
    static const uint32_t output_bytes[] = $P$_OUTPUT_SIZES;
    const void *inputs[$P$_NUM_INPUTS + 1];
    void *outputs[$P$_NUM_OUTPUTS + 1];
    const void *plan_data = NULL;
    esp_partition_mmap_handle_t mapping = 0;
    uint8_t header[12];
    uint32_t plan_len = 0, offset = 0;
    uint8_t *fast = NULL, *slow = NULL, *in_data = NULL, *out_data = NULL;
    int k;
    /* The plan is flashed to a data partition named "tigris_plan" and read in place. */
    const esp_partition_t *part =
        esp_partition_find_first(ESP_PARTITION_TYPE_DATA, ESP_PARTITION_SUBTYPE_ANY, "tigris_plan");
    if (part == NULL || esp_partition_read(part, 0, header, sizeof header) != ESP_OK) {
        ESP_LOGE($p$_tag, "no readable \"tigris_plan\" data partition; flash the plan there");
        return;
    }
    memcpy(&plan_len, header + 8, sizeof plan_len); /* the plan states its size at offset 8 */
    if (plan_len > part->size ||
        esp_partition_mmap(part, 0, plan_len, ESP_PARTITION_MMAP_DATA, &plan_data, &mapping) != ESP_OK) {
        ESP_LOGE($p$_tag, "cannot map the plan (%u bytes)", (unsigned)plan_len);
        return;
    }
    /* The fast arena in internal SRAM, the slow one in PSRAM; fill in_data with the model's input. */
    fast = heap_caps_aligned_alloc($P$_ARENA_ALIGN, $P$_FAST_ARENA_BYTES, MALLOC_CAP_INTERNAL | MALLOC_CAP_8BIT);
    slow = heap_caps_aligned_alloc($P$_ARENA_ALIGN, $P$_SLOW_ARENA_BYTES + 1u, MALLOC_CAP_SPIRAM | MALLOC_CAP_8BIT);
    in_data = heap_caps_calloc(1, $P$_INPUTS_BYTES + 1u, MALLOC_CAP_8BIT);
    out_data = heap_caps_calloc(1, $P$_OUTPUTS_BYTES + 1u, MALLOC_CAP_8BIT);
    if (fast == NULL || slow == NULL || in_data == NULL || out_data == NULL) {
        ESP_LOGE($p$_tag, "out of memory for the arenas");
        goto done;
    }
    for (k = 0; k < (int)$P$_NUM_INPUTS; offset += input_bytes[k], ++k) inputs[k] = in_data + offset;
    for (k = 0, offset = 0; k < (int)$P$_NUM_OUTPUTS; offset += output_bytes[k], ++k) outputs[k] = out_data + offset;
    if ($p$_init((const uint8_t *)plan_data, plan_len, fast, $P$_FAST_ARENA_BYTES, slow, $P$_SLOW_ARENA_BYTES) !=
            $P$_OK ||
        $p$_run(inputs, outputs) != $P$_OK) {
        ESP_LOGE($p$_tag, "%s", $p$_error());
        goto done;
    }
    ESP_LOGI($p$_tag, "fast peak %u of %u bytes, slow peak %u bytes, %u tiles", (unsigned)$p$_memory()->fast_peak,
             (unsigned)$P$_FAST_ARENA_BYTES, (unsigned)$p$_memory()->slow_peak, (unsigned)$p$_stats()->total_tiles);
    for (k = 0; k < (int)$P$_NUM_OUTPUTS; ++k) ESP_LOG_BUFFER_HEX($p$_tag, outputs[k], output_bytes[k]);
done:
    $p$_deinit();
    heap_caps_free(fast);
    heap_caps_free(slow);
    heap_caps_free(in_data);
    heap_caps_free(out_data);
    esp_partition_munmap(mapping);
}
)C";

}  // namespace

std::string posix_app(const CodegenPlan& plan, std::map<std::string, std::string> vars) {
  std::string usage;
  for (const CodegenIface& io : plan.inputs) usage += " " + io.name + ".bin";
  // Input names come from the model; keep the usage string a plain C literal.
  for (char& c : usage) {
    if (c == '"' || c == '\\' || c == '%' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  vars["usage_inputs"] = usage;
  return fill_template(kPosix, vars);
}

std::string bare_metal_app(const CodegenPlan&, std::map<std::string, std::string> vars) {
  return fill_template(kBareMetal, vars);
}

std::string esp_idf_app(const CodegenPlan&, std::map<std::string, std::string> vars) {
  return fill_template(kEspIdf, vars);
}

}  // namespace tigris::cli
