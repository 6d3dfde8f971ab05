// libFuzzer target for the ONNX importer: any byte string goes through
// compiler::load_model_bytes(bytes, "x.onnx") as `tigris analyze` and `compile` call it, then
// a compile at a 64 KiB budget when it loads. Refusals are the compiler's ir::CompileError;
// a crash, a sanitizer report or another exception type is a finding. The same file drives
// the corpus replay test fuzz_onnx_corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "compiler/api.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tigris;
  const std::vector<uint8_t> bytes(data, data + size);
  try {
    compiler::Model m = compiler::load_model_bytes(bytes, "x.onnx");
    compiler::Budgets b;
    b.fast = 64 * 1024;
    compiler::CompileResult c = compiler::compile(m, b);
    (void)c;
  } catch (const ir::CompileError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz_onnx: unexpected exception: %s\n", e.what());
    std::abort();
  }
  return 0;
}
