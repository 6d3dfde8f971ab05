// libFuzzer target for the TFLite paths: any byte string goes through the TFLite reader
// (strict and lenient), the compiler's frontend (load_model_bytes as `tigris analyze` and
// `compile` call it, then a compile at a 64 KiB budget when it loads) and the export search
// (export_to_memory, as `tigris export` calls it). Refusals are expected: the reader's
// tflite::ModelError and the compiler's ir::CompileError. Anything else (a crash, a
// sanitizer report, another exception type) is a finding. The same file drives the
// corpus replay test fuzz_tflite_corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <vector>

#include "compiler/api.h"
#include "export/command.h"
#include "export/tflite/model.h"
#include "export/tflite/reader.h"

namespace {

[[noreturn]] void finding(const char* where, const char* what) {
  std::fprintf(stderr, "fuzz_tflite: unexpected exception from %s: %s\n", where, what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tigris;
  const std::vector<uint8_t> bytes(data, data + size);
  for (bool lenient : {false, true}) {
    try {
      tflite::ReadOptions ro;
      ro.lenient = lenient;
      tflite::Model m = tflite::read_model(std::span<const uint8_t>(bytes), "x.tflite", ro);
      (void)m;
    } catch (const tflite::ModelError&) {
    } catch (const std::exception& e) {
      finding("tflite::read_model", e.what());
    }
  }
  try {
    compiler::Model m = compiler::load_model_bytes(bytes, "x.tflite");
    compiler::Budgets b;
    b.fast = 64 * 1024;
    compiler::CompileResult c = compiler::compile(m, b);
    (void)c;
  } catch (const ir::CompileError&) {
  } catch (const std::exception& e) {
    finding("load_model_bytes/compile", e.what());
  }
  try {
    exporter::ExportOptions options;
    std::vector<uint8_t> out;
    exporter::ExportResult r = exporter::export_to_memory(bytes, "x.tflite", options, out);
    (void)r;
  } catch (const std::exception& e) {
    finding("export_to_memory", e.what());
  }
  return 0;
}
