#include "compiler/api.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "compiler/api_internal.h"
#include "compiler/frontend/onnx/onnx_loader.h"
#include "compiler/frontend/tflite/fold_pad.h"
#include "compiler/frontend/tflite/tflite_loader.h"
#include "compiler/passes/pipeline.h"

namespace tigris::compiler {

Model::Model() = default;
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

const ModelSummary& Model::summary() const { return impl_->summary; }
const std::vector<std::string>& Model::warnings() const { return impl_->warnings; }
const ir::Graph& Model::graph() const { return impl_->graph; }

namespace {

bool is_tflite(const std::vector<uint8_t>& bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0;
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(ErrorKind::Io, "cannot read " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw CompileError(ErrorKind::Io, "cannot read " + path + ": read error");
  return bytes;
}

}  // namespace

Model load_model(const std::string& path, const LoadOptions& options) {
  return load_model_bytes(read_file(path), path, options);
}

Model load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name, const LoadOptions& options) {
  auto impl = std::make_unique<Model::Impl>();
  if (is_tflite(bytes)) {
    // TFLite shapes are static: --input-shape has nothing to bind.
    if (!options.input_shapes.empty())
      throw CompileError(ErrorKind::Usage, "--input-shape: " + name + " is a TFLite model, whose shapes are static");
    impl->graph = frontend::tflite::load_tflite(bytes, name, impl->warnings);
  } else {
    std::vector<frontend::onnx::InputShape> shapes;
    for (const ShapeBinding& b : options.input_shapes) shapes.push_back({b.input, b.dims});
    impl->graph = frontend::onnx::load_onnx(bytes, name, shapes, impl->warnings);
  }
  for (const std::string& t : options.extra_outputs) {
    ir::TensorId id = impl->graph.find_tensor(t);
    if (id == ir::kNoTensor || impl->graph.tensor(id).constant)
      throw CompileError(ErrorKind::Usage, name + ": no activation tensor named '" + t + "'");
    if (impl->graph.is_output(id) || impl->graph.is_input(id)) continue;
    impl->graph.outputs.push_back(id);
    impl->graph.tensor(id).caller_channels_last = impl->graph.format == "tflite";
  }
  // TFLite: an explicit PAD before a convolution becomes its padding where that is exact
  // (after the extra outputs are marked, so a PAD output asked for stays).
  if (impl->graph.format == "tflite") frontend::tflite::fold_pads_into_convolutions(impl->graph);
  try {
    passes::normalize(impl->graph);
    passes::produce_constant_outputs(impl->graph);
    impl->summary = detail::summarize(impl->graph, name);
  } catch (const CompileError& e) {
    throw CompileError(e.kind(), name + ": " + e.what(), e.ops(), e.tensors());
  } catch (const std::exception& e) {
    // A malformed graph that slipped past the checker: still one line naming the file.
    throw CompileError(ErrorKind::Invalid, name + ": cannot normalize the graph (" + e.what() + ")");
  }
  return Model(std::move(impl));
}

ScheduleResult schedule(const Model& model, const Budgets& budgets) {
  return detail::schedule_report(model.graph(), budgets).first;
}

CompileResult compile(const Model& model, const Budgets& budgets, const CompileOptions& options) {
  return detail::compile_model(model, budgets, options);
}

}  // namespace tigris::compiler
