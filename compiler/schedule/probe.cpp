#include "compiler/schedule/probe.h"

#include <algorithm>
#include <cstring>

#include "compiler/plan/emit.h"
#include "compiler/schedule/usage.h"
#include "tigris_config.h"
#include "tigris_loader.h"

namespace tigris::schedule {

namespace {

// The index-pool entries the loaded plan uses (model I/O, op and stage lists).
size_t used_pool(const tigris_plan_t& p) {
  size_t end = static_cast<size_t>(p.header->model_io_off) + p.header->num_model_inputs + p.header->num_model_outputs;
  for (uint16_t i = 0; i < p.header->num_ops; ++i) {
    const tigris_op_t& op = p.ops[i];
    end = std::max<size_t>(end, static_cast<size_t>(op.inputs_off) + op.num_inputs);
    end = std::max<size_t>(end, static_cast<size_t>(op.outputs_off) + op.num_outputs);
  }
  for (uint16_t i = 0; i < p.header->num_stages; ++i) {
    const tigris_stage_t& s = p.stages[i];
    end = std::max<size_t>(end, static_cast<size_t>(s.ops_off) + s.ops_count);
    end = std::max<size_t>(end, static_cast<size_t>(s.inputs_off) + s.inputs_count);
    end = std::max<size_t>(end, static_cast<size_t>(s.outputs_off) + s.outputs_count);
  }
  return end;
}

}  // namespace

Probe::Probe(const ir::Graph& g) {
  map_.assign(g.tensors.size(), 0xFFFF);
  uint16_t next = 0;
  for (size_t i = 0; i < g.tensors.size(); ++i)  // emit.cpp: plan tensors are the activations in order
    if (!g.tensors[i].constant) map_[i] = next++;
  if (g.nodes.empty()) {
    why_ = "no operators";
    return;
  }
  if (next > TIGRIS_MAX_TENSORS) {
    why_ = "more tensors than TIGRIS_MAX_TENSORS";
    return;
  }
  Schedule one;
  Stage all;
  all.first = 0;
  all.end = static_cast<int>(g.nodes.size());
  Usage u(g);
  range_io(g, u, 0, all.end, &all.inputs, &all.outputs);
  one.stages.push_back(all);
  try {
    plan::PlanDesc desc = plan::describe_plan(g, one, plan::EmitOptions{});
    bytes_ = plan::write_plan(desc);
  } catch (const std::exception& e) {
    why_ = e.what();
    return;
  }
  tigris_error_t err = tigris_plan_load(bytes_.data(), static_cast<uint32_t>(bytes_.size()), &loaded_);
  if (err != TIGRIS_OK) {
    why_ = std::string("the one-stage plan is refused: ") + tigris_error_str(err);
    return;
  }
  if (loaded_.header->num_tensors != next || loaded_.header->num_ops != g.nodes.size()) {
    why_ = "plan tensors or ops do not match the graph";
    return;
  }
  pool_base_ = used_pool(loaded_);
  pool_.assign(loaded_.index_pool, loaded_.index_pool + pool_base_);
  header_ = *loaded_.header;
  usable_ = true;
  clear();
}

Probe::~Probe() = default;

const tigris_op_t& Probe::op(int i) const { return loaded_.ops[i]; }

void Probe::clear() {
  overflow_ = false;
  pool_.resize(pool_base_);
  stages_.clear();
  records_.clear();
}

uint16_t Probe::add_stage(int first, int end, const std::vector<ir::TensorId>& inputs,
                          const std::vector<ir::TensorId>& outputs) {
  tigris_stage_t s{};
  if (pool_.size() + static_cast<size_t>(end - first) + inputs.size() + outputs.size() > 0xFFFF) overflow_ = true;
  auto append = [&](auto&& fill, size_t count, uint16_t* off, uint16_t* n) {
    *off = static_cast<uint16_t>(pool_.size());
    *n = static_cast<uint16_t>(count);
    fill();
  };
  append(
      [&] {
        for (int i = first; i < end; ++i) pool_.push_back(static_cast<uint16_t>(i));
      },
      static_cast<size_t>(end - first), &s.ops_off, &s.ops_count);
  append(
      [&] {
        for (ir::TensorId t : inputs) pool_.push_back(tensor(t));
      },
      inputs.size(), &s.inputs_off, &s.inputs_count);
  append(
      [&] {
        for (ir::TensorId t : outputs) pool_.push_back(tensor(t));
      },
      outputs.size(), &s.outputs_off, &s.outputs_count);
  s.tile_plan_idx = TIGRIS_NONE;
  s.chain_id = TIGRIS_NONE;
  stages_.push_back(s);
  return static_cast<uint16_t>(stages_.size() - 1);
}

void Probe::set_record(uint16_t s, const tigris_tile_plan_v11_t& record) {
  records_.push_back(record);
  stages_[s].tile_plan_idx = static_cast<uint16_t>(records_.size() - 1);
}

void Probe::set_chain(uint16_t head, uint16_t len, uint16_t tile_h, bool line_buffered) {
  for (uint16_t s = head; s < head + len; ++s) {
    stages_[s].chain_id = head;
    stages_[s].chain_len = len;
    stages_[s].chain_tile_h = 0;
    stages_[s].flags = 0;
  }
  stages_[head].chain_tile_h = tile_h;
  stages_[head].flags = line_buffered ? TIGRIS_STAGE_LINE_BUFFERED : 0;
}

tigris_stage_t& Probe::stage(uint16_t s) { return stages_[s]; }

tigris_tile_plan_v11_t& Probe::record(uint16_t s) { return records_[stages_[s].tile_plan_idx]; }

const tigris_plan_t* Probe::plan() {
  if (overflow_) return nullptr;
  view_ = loaded_;
  header_.num_stages = static_cast<uint16_t>(stages_.size());
  header_.num_tile_plans = static_cast<uint16_t>(records_.size());
  view_.header = &header_;
  view_.stages = stages_.data();
  view_.index_pool = pool_.data();
  view_.tile_plans_v11 = records_.empty() ? nullptr : records_.data();
  view_.tile_plans = nullptr;
  view_.tile_plans_v10 = nullptr;
  return &view_;
}

}  // namespace tigris::schedule
