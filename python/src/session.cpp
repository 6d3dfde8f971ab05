// tigris.Session's compiled half: a plan loaded by the runtime loader, its arenas, workspace
// and state kept across runs (cli::HostSession), arrays checked and reordered as `tigris run`
// does (cli::iface_spec, array_to_plan, plan_to_array).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>

#include "compiler/report/format.h"
#include "python/src/convert.h"
#include "tools/tigris/arrays.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/host_run.h"
#include "tools/tigris/iface_arrays.h"
#include "tools/tigris/model_file.h"
#include "tools/tigris/trace_report.h"

namespace tigris::python {
namespace {

uint32_t arena_size(const py::object& value, const char* option, uint32_t fallback) {
  const std::optional<int64_t> bytes = size_of(value, option);
  if (!bytes) return fallback;
  if (*bytes < 0 || *bytes > UINT32_MAX) {
    throw cli::UsageError(std::string(option) + " must be between 0 and 4294967295 bytes, not " +
                          std::to_string(*bytes));
  }
  return static_cast<uint32_t>(*bytes);
}

py::dict tensor_info(const cli::IfaceSpec& s) {
  py::dict d;
  d["name"] = s.name;
  d["dtype"] = cli::descr_of_dtype(s.dtype);
  d["shape"] = py::tuple(py::cast(s.shape));
  d["stored_shape"] = py::tuple(py::cast(s.stored_shape));
  return d;
}

const char* event_kind(uint8_t kind) {
  static const char* const names[] = {"",      "stage_begin", "stage_end", "tile_begin", "load", "spill",
                                      "alloc", "reset",       "move",      "weights",    "op",   "copy"};
  return kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

py::object u16(uint16_t v) { return v == 0xFFFF ? py::object(py::none()) : py::object(py::int_(v)); }

py::dict event_dict(const tigris_plan_t& plan, const tigris_trace_event_t& e) {
  py::dict d;
  d["kind"] = event_kind(e.kind);
  d["stage"] = u16(e.stage);
  d["tensor"] = e.tensor < plan.header->num_tensors
                    ? py::object(py::str(tigris_tensor_name(&plan, &plan.tensors[e.tensor])))
                    : py::object(py::none());
  d["op"] = u16(e.op);
  d["pool"] = e.pool == TIGRIS_TRACE_POOL_FAST   ? py::object(py::str("fast"))
              : e.pool == TIGRIS_TRACE_POOL_SLOW ? py::object(py::str("slow"))
                                                 : py::object(py::none());
  if (e.kind == TIGRIS_TRACE_STAGE_BEGIN) d["path"] = cli::trace_kind_name(e.path, 1, cli::stage_band_mode(plan, e.stage));
  d["offset"] = e.offset;
  d["src_offset"] = e.src_offset;
  d["bytes"] = e.bytes;
  d["rows"] = e.row0 < 0 ? py::object(py::none()) : py::object(py::make_tuple(e.row0, e.row1));
  d["cols"] = e.col0 < 0 ? py::object(py::none()) : py::object(py::make_tuple(e.col0, e.col1));
  d["fast_used"] = e.fast_used;
  d["slow_used"] = e.slow_used;
  d["text"] = cli::trace_event_text(plan, e);
  return d;
}

class Session {
 public:
  Session(const py::bytes& plan, const std::string& name, const py::object& fast, const py::object& slow,
          bool stored_order)
      : name_(name) {
    const std::vector<uint8_t> bytes = to_vector(plan);
    if (cli::sniff_kind(bytes) != cli::FileKind::kPlan) {
      throw cli::Failure(name + ": not a TiGrIS plan; compile the model first (tigris.compile)");
    }
    loaded_ = std::make_unique<cli::LoadedPlan>(name, bytes);
    const tigris_plan_t& p = loaded_->plan();
    for (uint32_t i = 0; i < p.header->num_model_inputs; ++i) {
      inputs_.push_back(cli::iface_spec(p, p.model_inputs[i], stored_order));
    }
    for (uint32_t i = 0; i < p.header->num_model_outputs; ++i) {
      outputs_.push_back(cli::iface_spec(p, p.model_outputs[i], stored_order));
    }
    cli::HostRunConfig config;
    config.fast_bytes = arena_size(fast, "fast", tigris_fast_arena_required(&p));
    config.slow_bytes = arena_size(slow, "slow", cli::default_slow_bytes(p));
    session_ = std::make_unique<cli::HostSession>(p, config);
  }

  py::list inputs() const { return specs(inputs_); }
  py::list outputs() const { return specs(outputs_); }

  // `arrays`: per input in plan order, (NumPy dtype string, shape, C-order bytes).
  py::list run(const py::list& arrays) { return outputs_of(run_once(arrays)); }

  py::tuple trace(const py::list& arrays) {
    std::vector<tigris_trace_event_t> events;
    session().set_trace(cli::collect_event, &events);
    cli::HostRunResult r;
    try {
      r = run_once(arrays);
    } catch (...) {
      session().set_trace(nullptr, nullptr);
      throw;
    }
    session().set_trace(nullptr, nullptr);
    const tigris_plan_t& plan = loaded_->plan();
    const cli::TraceSummary t = cli::summarize_trace(plan, std::move(events), r.stats, r.fast_peak);
    py::list event_list;
    for (const tigris_trace_event_t& e : t.events) event_list.append(event_dict(plan, e));
    py::dict counters = stats_dict(r.stats);
    counters["fast_peak"] = r.fast_peak;
    counters["slow_peak"] = r.slow_peak;
    counters["events"] = t.events.size();
    counters["event_read_bytes"] = t.read;
    counters["event_written_bytes"] = t.written;
    counters["event_weight_bytes"] = t.weights;
    counters["event_copy_bytes"] = t.copies;
    counters["event_tiles"] = t.tiles;
    counters["mismatches"] = t.mismatches;
    return py::make_tuple(outputs_of(r), event_list, counters);
  }

  // The fields of `tigris run --json`'s "memory", for the last run, and the runs so far.
  py::dict memory() const {
    const tigris_plan_t& plan = loaded_->plan();
    py::dict d;
    d["fast_peak_bytes"] = last_ ? py::object(py::int_(last_->fast_peak)) : py::object(py::none());
    d["slow_peak_bytes"] = last_ ? py::object(py::int_(last_->slow_peak)) : py::object(py::none());
    d["fast_capacity_bytes"] = session_ ? session_->config().fast_bytes : 0;
    d["slow_capacity_bytes"] = session_ ? session_->config().slow_bytes : 0;
    d["fast_required_bytes"] = tigris_fast_arena_required(&plan);
    d["workspace_bytes"] = tigris_executor_workspace_required(&plan);
    d["state_bytes"] = tigris_state_required(&plan);
    d["runs"] = runs_;
    return d;
  }

  py::dict stats() const { return last_ ? stats_dict(last_->stats) : py::dict(); }
  std::string kernels() const {
    return tigris_plan_data_dtype(&loaded_->plan()) == TIGRIS_DTYPE_INT8 ? "int8" : "float32";
  }
  std::string model_name() const { return tigris_model_name(&loaded_->plan()); }

  void reset_state() { session().reset_state(); }
  void close() { session_.reset(); }
  bool closed() const { return !session_; }

 private:
  cli::HostSession& session() {
    if (!session_) throw cli::Failure(name_ + ": the session is closed");
    return *session_;
  }

  static py::list specs(const std::vector<cli::IfaceSpec>& specs) {
    py::list l;
    for (const cli::IfaceSpec& s : specs) l.append(tensor_info(s));
    return l;
  }

  static py::dict stats_dict(const tigris_exec_stats_t& s) {
    py::dict d;
    d["stages_normal"] = s.stages_normal;
    d["stages_tiled"] = s.stages_tiled;
    d["stages_chain"] = s.stages_chain;
    d["total_tiles"] = s.total_tiles;
    d["slow_overflow_count"] = s.slow_overflow_count;
    d["slow_overflow_bytes"] = s.slow_overflow_bytes;
    d["loads_bytes"] = s.loads_bytes;
    d["spills_bytes"] = s.spills_bytes;
    d["compactions"] = s.compactions;
    d["slow_peak"] = s.slow_peak;
    d["weight_bytes"] = s.weight_bytes;
    d["copy_bytes"] = s.copy_bytes;
    return d;
  }

  cli::HostRunResult run_once(const py::list& arrays) {
    cli::HostSession& s = session();
    if (arrays.size() != inputs_.size()) {
      throw cli::Failure("the plan takes " + std::to_string(inputs_.size()) + " inputs, " +
                         std::to_string(arrays.size()) + " given");
    }
    std::vector<std::vector<uint8_t>> data;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const py::tuple a = arrays[i].cast<py::tuple>();
      const std::string where = "Session.run";
      cli::Array array;
      array.dtype = cli::dtype_of_descr(a[0].cast<std::string>(), where + ": input '" + inputs_[i].name + "'");
      array.shape = a[1].cast<std::vector<int64_t>>();
      array.data = to_vector(a[2].cast<py::bytes>());
      data.push_back(cli::array_to_plan(array, inputs_[i], where));
    }
    cli::HostRunResult r;
    {
      py::gil_scoped_release release;
      r = s.run(data);
    }
    ++runs_;
    last_ = r;
    return r;
  }

  py::list outputs_of(const cli::HostRunResult& r) const {
    py::list l;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      const cli::Array a = cli::plan_to_array(r.outputs[i], outputs_[i]);
      l.append(py::make_tuple(outputs_[i].name, cli::descr_of_dtype(a.dtype), py::tuple(py::cast(a.shape)),
                              to_bytes(a.data)));
    }
    return l;
  }

  std::string name_;
  std::unique_ptr<cli::LoadedPlan> loaded_;  // before session_: the session points into it
  std::vector<cli::IfaceSpec> inputs_, outputs_;
  std::unique_ptr<cli::HostSession> session_;
  std::optional<cli::HostRunResult> last_;
  uint64_t runs_ = 0;
};

}  // namespace

void register_session(py::module_& m) {
  py::class_<Session>(m, "Session")
      .def(py::init<const py::bytes&, const std::string&, const py::object&, const py::object&, bool>(),
           py::arg("plan"), py::arg("name"), py::arg("fast"), py::arg("slow"), py::arg("stored_order"))
      .def("inputs", &Session::inputs)
      .def("outputs", &Session::outputs)
      .def("run", &Session::run)
      .def("trace", &Session::trace)
      .def("memory", &Session::memory)
      .def("stats", &Session::stats)
      .def("kernels", &Session::kernels)
      .def("model_name", &Session::model_name)
      .def("reset_state", &Session::reset_state)
      .def("close", &Session::close)
      .def("closed", &Session::closed);
}

}  // namespace tigris::python
