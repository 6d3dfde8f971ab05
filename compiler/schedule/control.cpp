// Scheduling a graph with control flow (stages.h, partition_with_control).
//
// An If/While stage holds nothing in fast memory: the runtime copies its operands slow to
// slow into its graphs and runs their stages, each loading, spilling and resetting as any
// stage does. So the node is a stage of its own with a peak of 0; the ranges of ordinary
// nodes between such nodes are partitioned as graphs of their own (the same tensors, the
// range's nodes, its external reads as inputs and what later nodes or the outputs need as
// outputs); and each subgraph is partitioned under the same budget. The plan's peak is the
// largest over all of them.
#include <algorithm>

#include "compiler/schedule/stages.h"
#include "compiler/schedule/usage.h"

namespace tigris::schedule {

namespace {

// Nodes [first, end) of g as a graph of their own (tensor ids unchanged).
ir::Graph segment(const ir::Graph& g, int first, int end) {
  ir::Graph s;
  s.name = g.name;
  s.format = g.format;
  s.opset = g.opset;
  s.tensors = g.tensors;
  s.nodes.assign(g.nodes.begin() + first, g.nodes.begin() + end);
  Usage u(g);
  range_io(g, u, first, end, &s.inputs, &s.outputs);
  return s;
}

Stage control_stage(const ir::Graph& g, int i) {
  Stage st;
  st.first = i;
  st.end = i + 1;
  Usage u(g);
  range_io(g, u, i, i + 1, &st.inputs, &st.outputs);
  const ir::Node& n = g.nodes[static_cast<size_t>(i)];
  // Every result is a stage output: the runtime writes each (a loop's unused variables too).
  st.outputs = n.outputs;
  st.decision = n.op + ": copies its operands into its graphs and runs their stages";
  return st;
}

// Append `part`'s stages (ops [0, n) of the segment are ops [first, ...) of the graph).
void append(Schedule& sch, Schedule part, int first) {
  const int base = static_cast<int>(sch.stages.size());
  for (Stage& st : part.stages) {
    st.first += first;
    st.end += first;
    if (st.form == StageForm::Chain) st.chain_head += base;
    sch.stages.push_back(std::move(st));
  }
  if (part.floor > sch.floor) {
    sch.floor = part.floor;
    sch.floor_op = part.floor_op;
  }
  sch.probe_usable = sch.probe_usable && part.probe_usable;
  sch.slow_peak = std::max(sch.slow_peak, part.slow_peak);
}

void absorb(Schedule& sch, const Schedule& sub) {
  sch.scheduled_peak = std::max(sch.scheduled_peak, sub.scheduled_peak);
  sch.slow_peak = std::max(sch.slow_peak, sub.slow_peak);
  sch.fits = sch.fits && sub.fits;
  if (sub.floor > sch.floor) {
    sch.floor = sub.floor;
    sch.floor_op = sub.floor_op;
  }
}

}  // namespace

Schedule partition_with_control(const ir::Graph& g, uint64_t budget, const PartitionOptions& options) {
  PartitionOptions piece = options;
  piece.part_of_plan = true;
  Schedule sch;
  sch.budget = budget;
  sch.part_of_plan = true;
  const int n = static_cast<int>(g.nodes.size());
  for (int i = 0; i < n;) {
    if (ir::is_control_flow(g.nodes[static_cast<size_t>(i)])) {
      sch.stages.push_back(control_stage(g, i));  // loads and spills nothing: it copies
      ++i;
      continue;
    }
    int j = i;
    while (j < n && !ir::is_control_flow(g.nodes[static_cast<size_t>(j)])) ++j;
    append(sch, partition(segment(g, i, j), budget, piece), i);
    i = j;
  }
  for (const Stage& st : sch.stages) {
    sch.scheduled_peak = std::max(sch.scheduled_peak, st.peak_bytes);
    sch.fits = sch.fits && st.fits;
  }
  for (const ir::Graph& sub : g.subgraphs) {
    sch.subgraphs.push_back(partition(sub, budget, piece));
    absorb(sch, sch.subgraphs.back());
  }
  return sch;
}

}  // namespace tigris::schedule
