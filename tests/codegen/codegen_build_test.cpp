// The generated C built the way firmware would build it and run against `tigris run`:
// the same plan and input bytes must give the same output bytes.
#include "codegen/codegen_fixture.h"
#include "compiler_support/tflite_accumulator.h"

#include <filesystem>

#include "tools/tigris/arrays.h"

using namespace tigris::codegentest;
using tigris::cli::Array;
using tigris::cli::read_npy;
using tigris::cli::write_npy;

namespace {

class CodegenBuild : public ::testing::Test {
 protected:
  CliResult tigris(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  CliResult program(const std::string& name, const std::vector<std::string>& args) {
    return run_program(dir.file(name), args, dir.path());
  }
  // `tigris run` on the host: stored axis order, raw bytes in and out.
  std::vector<uint8_t> host_run(const std::string& plan, const std::string& input) {
    const std::string out = dir.file(plan + ".host.bin");
    std::filesystem::remove(out);
    const CliResult r = tigris({"run", plan, "--input", input, "--stored-order", "--output", out});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return read_bytes(out);
  }
  // The demo network (tools/demo-model) compiled at 192 KiB fast + 1 MiB slow: 2 stages.
  void compile_demo() {
    ASSERT_EQ(run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()}).exit_code, 0);
    const CliResult r = tigris({"compile", "demo.onnx", "-m", "192K+1M", "-o", "demo.tgrs"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void expect_app_matches_run(const std::string& plan, const std::string& input) {
    const std::string app = plan + ".app";
    ASSERT_EQ(tigris({"codegen", plan, "-o", app + ".c"}).exit_code, 0);
    const CliResult built = build_c({app + ".c"}, app, dir.path());
    ASSERT_EQ(built.exit_code, 0) << built.err;
    const CliResult ran = program(app, {plan, "app_out.bin", input});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    EXPECT_NE(ran.out.find(plan + ": fast peak "), std::string::npos) << ran.out;
    const std::vector<uint8_t> expected = host_run(plan, input);
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(read_bytes(dir.file("app_out.bin")), expected);
    EXPECT_NE(expected, std::vector<uint8_t>(expected.size(), 0)) << "a trivial output proves nothing";
  }
  TempDir dir;
};

}  // namespace

TEST_F(CodegenBuild, ReferenceAppRunsTheDemoPlanLikeTigrisRun) {
  compile_demo();
  write_bytes(dir.file("image.bin"), float_input(3 * 64 * 64));
  expect_app_matches_run("demo.tgrs", "image.bin");
}

// The demo's own input, moved to the plan's stored order (NCHW -> NHWC), gives the output of
// tools/demo-model's independent forward pass.
TEST_F(CodegenBuild, ReferenceAppMatchesTheDemoModelsIndependentForwardPass) {
  compile_demo();
  const Array nchw = read_npy(read_bytes(dir.file("demo_input.npy")), "demo_input.npy");
  ASSERT_EQ(nchw.shape, (std::vector<int64_t>{1, 3, 64, 64}));
  std::vector<uint8_t> nhwc(nchw.data.size());
  for (size_t c = 0; c < 3; ++c) {
    for (size_t hw = 0; hw < 64 * 64; ++hw) std::memcpy(&nhwc[(hw * 3 + c) * 4], &nchw.data[(c * 64 * 64 + hw) * 4], 4);
  }
  write_bytes(dir.file("image.bin"), nhwc);
  ASSERT_EQ(tigris({"codegen", "demo.tgrs", "-o", "app.c"}).exit_code, 0);
  ASSERT_EQ(build_c({"app.c"}, "app", dir.path()).exit_code, 0);
  ASSERT_EQ(program("app", {"demo.tgrs", "logits.bin", "image.bin"}).exit_code, 0);
  write_bytes(dir.file("logits.npy"),
              write_npy(Array{TIGRIS_DTYPE_FLOAT32, {1, 10}, read_bytes(dir.file("logits.bin"))}));
  const CliResult cmp =
      run_program(TIGRIS_DEMO_MODEL_BINARY, {"compare", "logits.npy", "demo_expected.npy"}, dir.path());
  EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
}

TEST_F(CodegenBuild, ReferenceAppRunsAnInt8PlanLikeTigrisRun) {
  // Declared float32 in and out, int8 inside: the interface quantizes, the int8 kernels run.
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  write_bytes(dir.file("x.bin"), relu8_input());
  expect_app_matches_run("relu8.tgrs", "x.bin");
  EXPECT_EQ(read_bytes(dir.file("app_out.bin")), relu8_expected());
}

TEST_F(CodegenBuild, ReferenceAppRunsARealModelLikeTigrisRun) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " TIGRIS_MODELS_DIR " is absent";
  // DS-CNN at 64 KiB: several stages, activations spilled to the slow buffer.
  const CliResult c = tigris({"compile", TIGRIS_MODELS_DIR "/onnx/ds_cnn.onnx", "-m", "64K+1M", "-o", "ds_cnn.tgrs"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string source_probe = dir.file("probe.c");
  ASSERT_EQ(tigris({"codegen", "ds_cnn.tgrs", "-o", "probe.c"}).exit_code, 0);
  const std::string probe = read_text(source_probe);
  const size_t at = probe.find("_INPUT_0_BYTES ");
  ASSERT_NE(at, std::string::npos);
  const size_t input_bytes = std::stoul(probe.substr(at + 15));
  write_bytes(dir.file("in.bin"), float_input(input_bytes / 4, 99));
  expect_app_matches_run("ds_cnn.tgrs", "in.bin");
}

TEST_F(CodegenBuild, AppRefusesTheWrongInputCountAndSize) {
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  ASSERT_EQ(tigris({"codegen", "relu8.tgrs", "-o", "app.c"}).exit_code, 0);
  ASSERT_EQ(build_c({"app.c"}, "app", dir.path()).exit_code, 0);
  write_bytes(dir.file("short.bin"), float_input(3));
  EXPECT_EQ(program("app", {"relu8.tgrs", "out.bin"}).exit_code, 2);
  const CliResult r = program("app", {"relu8.tgrs", "out.bin", "short.bin"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Error: short.bin: cannot read exactly 16 bytes\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.bin")));
}

// Two cores in one program, each with its own prefix, driven by a firmware-style main that
// also provokes the cores' refusals.
TEST_F(CodegenBuild, TwoCoresCoexistAndRefuseMisuse) {
  compile_demo();
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  ASSERT_EQ(tigris({"codegen", "demo.tgrs", "--format", "core", "--name", "demo", "-o", "demo_core.c"}).exit_code, 0);
  ASSERT_EQ(tigris({"codegen", "relu8.tgrs", "--format", "core", "--name", "relu", "-o", "relu_core.c"}).exit_code, 0);
  write_bytes(dir.file("image.bin"), float_input(3 * 64 * 64));
  write_bytes(dir.file("x.bin"), relu8_input());
  const std::string main_c = R"C(
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "demo_core.h"
#include "relu_core.h"

static unsigned char *slurp(const char *path, long *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    fseek(f, 0, SEEK_END);
    *len = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = malloc((size_t)*len + 64);
    if (fread(data, 1, (size_t)*len, f) != (size_t)*len) return NULL;
    fclose(f);
    return data;
}

static void spill(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    fwrite(data, 1, len, f);
    fclose(f);
}

/* Arenas on a 64-byte boundary (the host's TIGRIS_TENSOR_ALIGN is 32). */
static void *arena(size_t size)
{
    void *p = NULL;
    return posix_memalign(&p, 64, size + 1) == 0 ? p : NULL;
}

static unsigned char out_a[DEMO_OUTPUTS_BYTES], out_b[RELU_OUTPUTS_BYTES];

int main(void)
{
    long demo_len, relu_len, image_len, x_len;
    unsigned char *demo_plan = slurp("demo.tgrs", &demo_len), *relu_plan = slurp("relu8.tgrs", &relu_len);
    unsigned char *image = slurp("image.bin", &image_len), *x = slurp("x.bin", &x_len);
    void *fast_a = arena(DEMO_FAST_ARENA_BYTES), *slow_a = arena(DEMO_SLOW_ARENA_BYTES);
    void *fast_b = arena(RELU_FAST_ARENA_BYTES), *slow_b = arena(RELU_SLOW_ARENA_BYTES);
    const void *in_a[1], *in_b[1];
    void *o_a[1], *o_b[1];
    in_a[0] = image; in_b[0] = x; o_a[0] = out_a; o_b[0] = out_b;
    printf("before init %d\n", demo_run(in_a, o_a) == DEMO_ERR_STATE);
    printf("wrong plan %d\n", demo_init(relu_plan, (uint32_t)relu_len, fast_a, DEMO_FAST_ARENA_BYTES, slow_a, DEMO_SLOW_ARENA_BYTES) == DEMO_ERR_PLAN);
    printf("small arena %d\n", demo_init(demo_plan, (uint32_t)demo_len, fast_a, DEMO_FAST_ARENA_BYTES - 1, slow_a, DEMO_SLOW_ARENA_BYTES) == DEMO_ERR_ARENA);
    if (demo_init(demo_plan, (uint32_t)demo_len, fast_a, DEMO_FAST_ARENA_BYTES, slow_a, DEMO_SLOW_ARENA_BYTES) != DEMO_OK ||
        relu_init(relu_plan, (uint32_t)relu_len, fast_b, RELU_FAST_ARENA_BYTES, slow_b, RELU_SLOW_ARENA_BYTES) != RELU_OK) {
        printf("init failed: %s / %s\n", demo_error(), relu_error());
        return 1;
    }
    /* Interleaved runs: each core keeps its own plan, arenas and workspace. */
    if (demo_run(in_a, o_a) != DEMO_OK || relu_run(in_b, o_b) != RELU_OK || demo_run(in_a, o_a) != DEMO_OK) {
        printf("run failed: %s / %s\n", demo_error(), relu_error());
        return 1;
    }
    printf("peak %d\n", demo_memory()->fast_peak <= DEMO_FAST_ARENA_BYTES && demo_memory()->slow_peak <= DEMO_SLOW_ARENA_BYTES);
    spill("demo_out.bin", out_a, sizeof out_a);
    spill("relu_out.bin", out_b, sizeof out_b);
    demo_deinit();
    relu_deinit();
    printf("after deinit %d\n", relu_run(in_b, o_b) == RELU_ERR_STATE);
    free(demo_plan); free(relu_plan); free(image); free(x);
    free(fast_a); free(slow_a); free(fast_b); free(slow_b);
    return 0;
}
)C";
  write_bytes(dir.file("main.c"), std::vector<uint8_t>(main_c.begin(), main_c.end()));
  const CliResult built = build_c({"main.c", "demo_core.c", "relu_core.c"}, "two", dir.path());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const CliResult ran = program("two", {});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  EXPECT_EQ(ran.out, "before init 1\nwrong plan 1\nsmall arena 1\npeak 1\nafter deinit 1\n");
  EXPECT_EQ(read_bytes(dir.file("demo_out.bin")), host_run("demo.tgrs", "image.bin"));
  EXPECT_EQ(read_bytes(dir.file("relu_out.bin")), host_run("relu8.tgrs", "x.bin"));
  EXPECT_EQ(read_bytes(dir.file("relu_out.bin")), relu8_expected());
}

TEST_F(CodegenBuild, StaticAssertionsRejectARuntimeBuiltWithSmallerLimits) {
  write_bytes(dir.file("conv.tgrs"), write_plan(conv_relu_plan()));
  ASSERT_EQ(tigris({"codegen", "conv.tgrs", "--format", "core", "-o", "core.c"}).exit_code, 0);
  EXPECT_EQ(build_c({"-c", "core.c"}, "", dir.path()).exit_code, 0);
  const CliResult small = build_c({"-c", "core.c"}, "", dir.path(), {"-DTIGRIS_MAX_TENSORS=2"});
  EXPECT_NE(small.exit_code, 0);
  EXPECT_NE(small.err.find("needs_TIGRIS_MAX_TENSORS_3"), std::string::npos) << small.err;
}

TEST_F(CodegenBuild, CmsisNnAppCrossCompilesForCortexM4) {
  if (run_program("/bin/sh", {"-c", "command -v arm-none-eabi-gcc"}).exit_code != 0) {
    GTEST_SKIP() << "arm-none-eabi-gcc is not installed (make test installs it)";
  }
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  write_bytes(dir.file("conv.tgrs"), write_plan(conv_relu_plan()));
  ASSERT_EQ(tigris({"codegen", "relu8.tgrs", "-b", "cmsis-nn", "-o", "int8.c"}).exit_code, 0);
  ASSERT_EQ(tigris({"codegen", "conv.tgrs", "-b", "cmsis-nn", "-o", "float.c"}).exit_code, 0);
  const std::vector<std::string> flags = {"-std=c99",
                                          "-pedantic",
                                          "-Wall",
                                          "-Wextra",
                                          "-Werror",
                                          "-mcpu=cortex-m4",
                                          "-mthumb",
                                          "-mfloat-abi=hard",
                                          "-mfpu=fpv4-sp-d16",
                                          "-I",
                                          TIGRIS_RUNTIME_INCLUDE,
                                          "-c"};
  const auto cross = [&](const std::string& source, const std::vector<std::string>& extra) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(source);
    return run_program("arm-none-eabi-gcc", args, dir.path());
  };
  const CliResult with = cross("int8.c", {"-DTIGRIS_HAS_CMSIS_NN"});
  EXPECT_EQ(with.exit_code, 0) << with.err;
  const CliResult without = cross("int8.c", {});
  EXPECT_NE(without.exit_code, 0);
  EXPECT_NE(without.err.find("build the runtime and this file with CMSIS-NN"), std::string::npos) << without.err;
  const CliResult float_app = cross("float.c", {});
  EXPECT_EQ(float_app.exit_code, 0) << float_app.err;
}

// The ESP-IDF app checked for syntax and types against declarations of the ESP-IDF calls it
// makes (the signatures of ESP-IDF 5's esp_partition.h, esp_heap_caps.h and esp_log.h).
TEST_F(CodegenBuild, EspIdfAppCompilesAgainstTheIdfDeclarations) {
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  ASSERT_EQ(tigris({"codegen", "relu8.tgrs", "-b", "esp-nn", "-o", "esp.c"}).exit_code, 0);
  const std::string idf = R"C(
#include <stddef.h>
#include <stdint.h>
typedef int esp_err_t;
#define ESP_OK 0
typedef enum { ESP_PARTITION_TYPE_DATA = 1 } esp_partition_type_t;
typedef enum { ESP_PARTITION_SUBTYPE_ANY = 0xff } esp_partition_subtype_t;
typedef enum { ESP_PARTITION_MMAP_DATA, ESP_PARTITION_MMAP_INST } esp_partition_mmap_memory_t;
typedef uint32_t esp_partition_mmap_handle_t;
typedef struct { esp_partition_type_t type; uint32_t address; uint32_t size; char label[17]; } esp_partition_t;
const esp_partition_t *esp_partition_find_first(esp_partition_type_t, esp_partition_subtype_t, const char *);
esp_err_t esp_partition_read(const esp_partition_t *, size_t, void *, size_t);
esp_err_t esp_partition_mmap(const esp_partition_t *, size_t, size_t, esp_partition_mmap_memory_t, const void **,
                             esp_partition_mmap_handle_t *);
void esp_partition_munmap(esp_partition_mmap_handle_t);
#define MALLOC_CAP_8BIT (1 << 2)
#define MALLOC_CAP_SPIRAM (1 << 10)
#define MALLOC_CAP_INTERNAL (1 << 11)
void *heap_caps_aligned_alloc(size_t, size_t, uint32_t);
void *heap_caps_calloc(size_t, size_t, uint32_t);
void heap_caps_free(void *);
void esp_log_write_stub(const char *, const char *, ...);
#define ESP_LOGE(tag, ...) esp_log_write_stub(tag, __VA_ARGS__)
#define ESP_LOGI(tag, ...) esp_log_write_stub(tag, __VA_ARGS__)
void esp_log_buffer_hex_stub(const char *, const void *, uint16_t);
#define ESP_LOG_BUFFER_HEX(tag, buffer, len) esp_log_buffer_hex_stub(tag, buffer, len)
)C";
  for (const char* name : {"esp_partition.h", "esp_heap_caps.h", "esp_log.h"}) {
    const std::string guarded = std::string("#pragma once\n") +
                                (std::string(name) == "esp_partition.h" ? idf : "#include \"esp_partition.h\"\n");
    write_bytes(dir.file(name), std::vector<uint8_t>(guarded.begin(), guarded.end()));
  }
  const CliResult r = build_c({"-c", "-DTIGRIS_HAS_ESP_NN", "esp.c"}, "", dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A plan with state (a TFLite resource variable, compiler_support/tflite_accumulator.h, values
// derived by hand there): the generated core keeps the variable in its own static buffer from
// one run to the next, and init starts it over from its initial value.
TEST_F(CodegenBuild, StatefulCoreKeepsItsVariablesBetweenRuns) {
  write_bytes(dir.file("acc.tflite"), tigris::test::tflite_accumulator_model());
  ASSERT_EQ(tigris({"compile", "acc.tflite", "-m", "64K", "-o", "acc.tgrs"}).exit_code, 0);
  ASSERT_EQ(tigris({"codegen", "acc.tgrs", "--format", "core", "--name", "acc", "-o", "acc_core.c"}).exit_code, 0);
  const std::string main_c = R"C(
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include "acc_core.h"

int main(void)
{
    static unsigned char plan[1 << 16];
    FILE *f = fopen("acc.tgrs", "rb");
    long len = (long)fread(plan, 1, sizeof plan, f);
    void *fast = NULL, *slow = NULL;
    const float x1[4] = {10, 20, 30, 40}, x2[4] = {-100, 1, 1, 1};
    float y[4];
    const void *in[1];
    void *out[1];
    int run, i;
    fclose(f);
    if (posix_memalign(&fast, 64, ACC_FAST_ARENA_BYTES + 1) != 0 || posix_memalign(&slow, 64, ACC_SLOW_ARENA_BYTES + 1) != 0)
        return 1;
    out[0] = y;
    for (run = 0; run < 3; ++run) {
        if (run != 1 && acc_init(plan, (uint32_t)len, fast, ACC_FAST_ARENA_BYTES, slow, ACC_SLOW_ARENA_BYTES) != ACC_OK)
            return 1;
        in[0] = run == 0 ? x1 : x2;
        if (acc_run(in, out) != ACC_OK) {
            printf("run failed: %s\n", acc_error());
            return 1;
        }
        for (i = 0; i < 4; ++i) printf("%g%c", (double)y[i], i == 3 ? '\n' : ' ');
    }
    acc_deinit();
    free(fast);
    free(slow);
    return 0;
}
)C";
  write_bytes(dir.file("main.c"), std::vector<uint8_t>(main_c.begin(), main_c.end()));
  const CliResult built = build_c({"main.c", "acc_core.c"}, "acc", dir.path());
  ASSERT_EQ(built.exit_code, 0) << built.err;
  const CliResult ran = program("acc", {});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  // x1 from the initial value; x2 on what x1 left; init again, x2 from the initial value.
  EXPECT_EQ(ran.out, "11 18 33 36\n0 19 34 37\n0 0 4 0\n");
}
