// The operator table (runtime/src/ops/op_table.h) against everything that describes an
// operator: the opcode enum of tigris.h, the kernels that exist (run, one dtype at a time),
// the loader's verdict per dtype, and docs/operators.md. Every failure names the opcode.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/src/kernels/kernel_set.h"
#include "runtime/src/ops/op_table.h"
#include "runtime/src/plan/op_rules.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "unit/kernels_f32/plan_fixture.h"

namespace {

namespace ops = tigris_rt::ops;

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string label(const ops::OpDef& row) { return "opcode " + std::to_string(row.code) + " (" + row.id + ")"; }

// ---- the table and the enum ---------------------------------------------------------------

TEST(OpTable, OneRowPerOpcodeOfTheHeader) {
  const std::string header = read_text(std::string(TIGRIS_SOURCE_DIR) + "/runtime/include/tigris.h");
  std::map<int, std::string> enums;
  const std::regex entry(R"(TIGRIS_OP_([A-Z0-9_]+)\s*=\s*(\d+))");
  for (std::sregex_iterator it(header.begin(), header.end(), entry), end; it != end; ++it) {
    const int code = std::stoi((*it)[2]);
    if (code != 255) enums[code] = (*it)[1];
  }
  ASSERT_FALSE(enums.empty());
  EXPECT_EQ(enums.rbegin()->first, TIGRIS_OP_TYPE_MAX) << "TIGRIS_OP_TYPE_MAX is not the highest opcode";
  for (int code = 1; code <= 255; ++code) {
    const ops::OpDef* row = ops::op_def(static_cast<uint8_t>(code));
    const auto e = enums.find(code);
    if (e == enums.end()) {
      EXPECT_EQ(row, nullptr) << "opcode " << code << " has a row but no TIGRIS_OP_ enum";
      continue;
    }
    ASSERT_NE(row, nullptr) << "opcode " << code << " (" << e->second << ") has no row in the operator table";
    EXPECT_EQ(row->id, e->second) << "opcode " << code << ": the row's id is not the enum's name";
  }
}

TEST(OpTable, RowsAreConsistent) {
  for (const ops::OpDef& row : ops::kOpDefs) {
    const bool control = (row.traits & ops::kTraitControl) != 0;
    // An op with no float form (TABLE) states it: only the int8 kernel, its own dtypes.
    const bool int8_only = row.s8 != ops::S8::kNone && row.q8 && row.dtypes == ops::DtypeClass::kSpecial;
    EXPECT_EQ(row.f32 == ops::F32::kNone, control || int8_only) << label(row) << ": a float kernel, or control flow";
    EXPECT_EQ(row.f32_dtypes == 0u, int8_only) << label(row) << ": no kernel dtype";
    EXPECT_NE(row.rule, ops::Rule::kNone) << label(row) << ": no loader rule";
    if (row.s8 != ops::S8::kNone) {
      EXPECT_TRUE(row.q8 || row.dtypes == ops::DtypeClass::kA || row.dtypes == ops::DtypeClass::kSpecial)
          << label(row) << ": an int8 kernel for a contract without int8";
    }
    if (row.accel != 0) {
      EXPECT_NE(row.s8, ops::S8::kNone) << label(row) << ": accelerated but no int8 reference";
    }
    if (row.lowering != ops::Lowering::kOwn) {
      EXPECT_TRUE(row.rule == ops::Rule::kUnary || row.rule == ops::Rule::kBinary)
          << label(row) << ": a generic lowering for a non-elementwise op";
    }
  }
}

// ---- the kernels that exist, and the loader's verdict, per dtype ---------------------------

struct DtypeCase {
  uint8_t dtype;
  bool quantized;
  const char* name;
};
const DtypeCase kDtypes[] = {
    {TIGRIS_DTYPE_FLOAT32, false, "float32"}, {TIGRIS_DTYPE_UINT8, false, "uint8"},
    {TIGRIS_DTYPE_INT8, false, "int8"},       {TIGRIS_DTYPE_INT8, true, "quantized int8"},
    {TIGRIS_DTYPE_INT16, false, "int16"},     {TIGRIS_DTYPE_INT16, true, "quantized int16"},
    {TIGRIS_DTYPE_INT32, false, "int32"},     {TIGRIS_DTYPE_INT64, false, "int64"},
    {TIGRIS_DTYPE_BOOL, false, "bool"},
};

bool numeric(uint8_t d) {
  return d == TIGRIS_DTYPE_FLOAT32 || d == TIGRIS_DTYPE_INT32 || d == TIGRIS_DTYPE_INT64 || d == TIGRIS_DTYPE_UINT8;
}

// What docs/operators.md §1 says the contract accepts as an elementwise op's data.
bool contract_accepts(const ops::OpDef& row, const DtypeCase& d) {
  if (d.quantized) return d.dtype == TIGRIS_DTYPE_INT16 ? row.s16 != ops::S16::kNone : row.q8;
  switch (row.dtypes) {
  case ops::DtypeClass::kF: return d.dtype == TIGRIS_DTYPE_FLOAT32;
  case ops::DtypeClass::kN: return numeric(d.dtype) || d.dtype == TIGRIS_DTYPE_INT8;
  case ops::DtypeClass::kB: return d.dtype == TIGRIS_DTYPE_BOOL;
  default: return true;
  }
}

// Which kernel the table promises for the data: for quantized int8 (int16) the int8 (int16)
// kernel or the float kernel's byte movement, else the float kernel's dtypes.
bool table_has_kernel(const ops::OpDef& row, const DtypeCase& d) {
  if (d.quantized && d.dtype == TIGRIS_DTYPE_INT8 && row.s8 != ops::S8::kNone) return true;
  if (d.quantized && d.dtype == TIGRIS_DTYPE_INT16 && row.s16 != ops::S16::kNone && row.s16 != ops::S16::kByteMovement)
    return true;
  return (row.f32_dtypes & ops::dtype_bit(d.dtype)) != 0;
}

// A one-op plan of `row` on 1x4 data of one dtype (bool out for comparisons), with the
// attributes its rule requires.
struct ElementwisePlan {
  fixture::Plan p;
  uint16_t out = 0;
  ElementwisePlan(const ops::OpDef& row, const DtypeCase& d) {
    const uint16_t q = d.quantized ? p.quant(0.5f, 0) : TIGRIS_NONE;
    auto data = [&](uint8_t dtype) {
      const uint16_t t = p.tensor({1, 4}, dtype);
      if (dtype == d.dtype) p.t(t).quant_param_idx = q;
      return t;
    };
    const bool compare =
        row.f32 == ops::F32::kBinary && row.dtypes == ops::DtypeClass::kSpecial && row.code != TIGRIS_OP_SELECT_V2;
    std::vector<uint16_t> ins;
    if (row.code == TIGRIS_OP_SELECT_V2) ins.push_back(data(TIGRIS_DTYPE_BOOL));
    const size_t operands = row.rule == ops::Rule::kUnary ? 1 : 2;
    for (size_t i = 0; i < operands; ++i) ins.push_back(data(d.dtype));
    out = data(compare ? TIGRIS_DTYPE_BOOL : d.dtype);
    if (row.code == TIGRIS_OP_CAST) out = data(TIGRIS_DTYPE_FLOAT32);
    const uint16_t op = p.op(row.code, ins, {out});
    if (row.code == TIGRIS_OP_CLIP) p.attr_f32(op, TIGRIS_ATTR_CLIP_BOUNDS, {-1.0f, 1.0f});
    if (row.code == TIGRIS_OP_SIGMOID && d.quantized && d.dtype == TIGRIS_DTYPE_INT8)
      p.t(out).quant_param_idx = p.quant(1.0f / 256.0f, -128);
    // int16 LOGISTIC / TANH: output scale 2^-15 and their sigmoid table as the weight.
    if ((row.code == TIGRIS_OP_SIGMOID || row.code == TIGRIS_OP_TANH) && d.quantized && d.dtype == TIGRIS_DTYPE_INT16) {
      p.t(out).quant_param_idx = p.quant(1.0f / 32768.0f, 0);
      const std::vector<uint8_t> table(512, 0);
      p.o(op).weight_idx = p.weight_bytes(table.data(), table.size());
    }
  }
  // The loader's verdict: step 28 (the operator's contract), then step 32 (a kernel for it).
  tigris_error_t loader_verdict() {
    const tigris_plan_t* plan = p.plan();
    const tigris_error_t rule = tigris_rt::check_operator(plan, 0);
    if (rule != TIGRIS_OK) return rule;
    const tigris_op_t& op = plan->ops[0];
    const uint8_t dtype = tigris_rt::op_kernel_dtype(plan, &op);
    const bool quantized = (dtype == TIGRIS_DTYPE_INT8 || dtype == TIGRIS_DTYPE_INT16) &&
                           tigris_tensor_quant(plan, &plan->tensors[tigris_op_inputs(plan, &op)[0]]);
    const bool kernel =
        quantized ? tigris_rt::kernel_enabled(op.op_type, dtype) : tigris_rt::kernel_enabled_f32(op.op_type, dtype);
    return kernel ? TIGRIS_OK : TIGRIS_ERR_KERNEL_DISABLED;
  }
  // Every input byte 1 (no division by zero), then the int8 reference dispatcher, which hands
  // everything but quantized int8 to the float one.
  int run() {
    const tigris_plan_t* plan = p.plan();
    tigris_mem_t* mem = p.mem();
    const tigris_op_t& op = plan->ops[0];
    for (uint8_t i = 0; i < op.num_inputs; ++i) {
      const uint16_t t = tigris_op_inputs(plan, &op)[i];
      std::memset(mem->tensor_ptrs[t], 1, plan->tensors[t].size_bytes);
    }
    return tigris_dispatch_kernel_s8(plan, &plan->ops[0], 0, mem, nullptr);
  }
};

TEST(OpTable, ElementwiseKernelsAndLoaderAgreePerDtype) {
  for (const ops::OpDef& row : ops::kOpDefs) {
    if (row.rule != ops::Rule::kUnary && row.rule != ops::Rule::kBinary) continue;
    for (const DtypeCase& d : kDtypes) {
      ElementwisePlan e(row, d);
      const tigris_error_t verdict = e.loader_verdict();
      const std::string what = label(row) + " on " + d.name;
      if (!contract_accepts(row, d) && row.dtypes != ops::DtypeClass::kSpecial) {
        EXPECT_EQ(verdict, TIGRIS_ERR_BAD_OPERATOR) << what << ": the loader accepts data the contract refuses";
        continue;
      }
      if (verdict == TIGRIS_ERR_BAD_OPERATOR) {
        EXPECT_EQ(row.dtypes, ops::DtypeClass::kSpecial) << what << ": the loader refuses data the contract accepts";
        continue;
      }
      const bool promised = table_has_kernel(row, d);
      EXPECT_EQ(verdict, promised ? TIGRIS_OK : TIGRIS_ERR_KERNEL_DISABLED)
          << what << ": the loader's kernel check and the table disagree";
      if (verdict == TIGRIS_OK) {
        EXPECT_EQ(e.run(), 0) << what << ": the loader accepts it but no kernel runs it";
      }
    }
  }
}

TEST(OpTable, OpcodesWithoutARowAreRefused) {
  for (int code : {0, TIGRIS_OP_TYPE_MAX + 1, 200, 254, 255}) {
    fixture::Plan p;
    const uint16_t a = p.tensor({1, 4}), b = p.tensor({1, 4});
    p.op(static_cast<uint8_t>(code), {a}, {b});
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), 0), TIGRIS_ERR_BAD_OPERATOR) << "opcode " << code;
    for (const DtypeCase& d : kDtypes) {
      EXPECT_FALSE(tigris_rt::kernel_enabled(static_cast<uint8_t>(code), d.dtype)) << "opcode " << code;
    }
  }
}

// ---- docs/operators.md ----------------------------------------------------------------------

struct DocRow {
  std::vector<std::string> ids;
  std::string dtype_class;  // "F", "N", "A", "B" or "" when the row states none
  bool q8 = false;
};

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|' && line[i - 1] != '\\') {
      cells.push_back(cell);
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// Opcodes of a row's first cell: "7", "78, 79", "73–77".
std::vector<int> opcodes_of(const std::string& cell) {
  std::vector<int> codes;
  const std::regex item(R"((\d+)\s*(?:–|-)\s*(\d+)|(\d+))");
  for (std::sregex_iterator it(cell.begin(), cell.end(), item), end; it != end; ++it) {
    if ((*it)[3].matched) {
      codes.push_back(std::stoi((*it)[3]));
    } else {
      for (int c = std::stoi((*it)[1]); c <= std::stoi((*it)[2]); ++c) codes.push_back(c);
    }
  }
  return codes;
}

// The §3 operator rows, keyed by opcode; the movement section's class is `A` by its heading.
std::map<int, DocRow> doc_operator_rows(const std::string& doc) {
  std::map<int, DocRow> rows;
  std::istringstream in(doc);
  std::string line, section_class;
  const std::regex number_cell(R"(^\s*\d+(\s*(,|–|-)\s*\d+)*\s*$)");
  const std::regex class_token(R"(`([FNAB])( \+q8)?`)");
  const std::regex id_token(R"(\b[A-Z][A-Z0-9_]*[A-Z0-9]\b|\b[A-Z]\b)");
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) section_class = line.find("T = `A`") != std::string::npos ? "A" : "";
    if (line.rfind("## 4", 0) == 0) break;
    if (line.rfind("| ", 0) != 0) continue;
    const std::vector<std::string> cells = split_cells(line);
    if (cells.size() < 3 || !std::regex_match(cells[0], number_cell)) continue;
    DocRow r;
    std::string op_cell = cells[1].substr(0, cells[1].find('`'));
    op_cell = op_cell.substr(0, op_cell.find('('));
    for (std::sregex_iterator it(op_cell.begin(), op_cell.end(), id_token), end; it != end; ++it)
      r.ids.push_back(it->str());
    const std::string typed = cells[1] + "|" + cells[2];
    std::smatch m;
    if (std::regex_search(typed, m, class_token)) r.dtype_class = m[1];
    if (r.dtype_class.empty()) r.dtype_class = section_class;
    r.q8 = typed.find("+q8") != std::string::npos;
    const std::vector<int> codes = opcodes_of(cells[0]);
    for (size_t i = 0; i < codes.size(); ++i) {
      DocRow one = r;
      one.ids = {i < r.ids.size() ? r.ids[i] : "?"};
      rows[codes[i]] = one;
    }
  }
  return rows;
}

std::string class_letter(ops::DtypeClass c) {
  switch (c) {
  case ops::DtypeClass::kF: return "F";
  case ops::DtypeClass::kN: return "N";
  case ops::DtypeClass::kB: return "B";
  case ops::DtypeClass::kA: return "A";
  case ops::DtypeClass::kSpecial: break;
  }
  return "";
}

const std::string& operators_doc() {
  static const std::string doc = read_text(std::string(TIGRIS_SOURCE_DIR) + "/docs/operators.md");
  return doc;
}

TEST(OpTable, DocumentedOnceWithItsDtypeClass) {
  const std::map<int, DocRow> rows = doc_operator_rows(operators_doc());
  ASSERT_FALSE(rows.empty()) << "docs/operators.md: no operator rows found";
  for (const auto& [code, doc] : rows) {
    EXPECT_NE(ops::op_def(static_cast<uint8_t>(code)), nullptr)
        << "docs/operators.md documents opcode " << code << ", which has no row";
  }
  for (const ops::OpDef& row : ops::kOpDefs) {
    const auto it = rows.find(row.code);
    ASSERT_NE(it, rows.end()) << label(row) << " is not documented in docs/operators.md §3";
    EXPECT_EQ(it->second.ids.front(), row.id) << label(row) << ": docs/operators.md names it otherwise";
    if (row.dtypes != ops::DtypeClass::kSpecial) {
      EXPECT_EQ(it->second.dtype_class, class_letter(row.dtypes)) << label(row) << ": the documented T differs";
    }
    EXPECT_EQ(it->second.q8, row.q8) << label(row) << ": `+q8` in docs/operators.md and the table differ";
  }
}

// The ids listed after `marker` up to the end of its paragraph or table cell.
std::set<std::string> ids_after(const std::string& text, const std::string& marker, const std::string& stop) {
  std::set<std::string> ids;
  const size_t at = text.find(marker);
  if (at == std::string::npos) return ids;
  const size_t from = at + marker.size();
  const std::string span = text.substr(from, text.find(stop, from) - from);
  const std::regex id_token(R"(\b[A-Z][A-Z0-9_]*[A-Z0-9]\b)");
  for (std::sregex_iterator it(span.begin(), span.end(), id_token), end; it != end; ++it) ids.insert(it->str());
  return ids;
}

TEST(OpTable, BuildOptionFamiliesMatchTheDocs) {
  const std::string kernel_set = read_text(std::string(TIGRIS_SOURCE_DIR) + "/runtime/src/ops/op_family.h");
  for (uint8_t f = 0; f < ops::kFamilyCount; ++f) {
    const ops::Family family = static_cast<ops::Family>(f);
    const char* macro = ops::family_macro(family);
    if (macro == nullptr) continue;
    std::set<std::string> table;
    for (const ops::OpDef& row : ops::kOpDefs)
      if (row.family == family) table.insert(row.id);
    const std::string define = std::string("TIGRIS_NO_KERNEL_") + macro;
    EXPECT_NE(kernel_set.find("#ifdef " + define + "\n"), std::string::npos)
        << "runtime/src/ops/op_family.h does not honour " << define;
    EXPECT_EQ(ids_after(operators_doc(), "| `" + define + "` |", "\n"), table)
        << "docs/operators.md §4: " << define << " lists other ops than the table";
  }
}

TEST(OpTable, NotYetInt8ListMatchesTheTable) {
  std::set<std::string> table;
  for (const ops::OpDef& row : ops::kOpDefs)
    if (row.q8 && row.s8 == ops::S8::kNone && (row.f32_dtypes & ops::kI8) == 0) table.insert(row.id);
  std::set<std::string> doc = ids_after(operators_doc(), "Not yet int8 (", ". ARG_MAX");
  doc.erase("COMPARISON_REQUANT");
  EXPECT_EQ(doc, table) << "docs/operators.md §5.3 'Not yet int8' and the table's +q8 rows without an int8 kernel";
}

TEST(OpTable, Int16KernelListMatchesTheTable) {
  std::set<std::string> table;
  for (const ops::OpDef& row : ops::kOpDefs)
    if (row.s16 != ops::S16::kNone && row.s16 != ops::S16::kByteMovement) table.insert(row.id);
  EXPECT_EQ(ids_after(operators_doc(), "The int16 kernels (the table's int16 column, byte movement aside):", "\n\n"),
            table)
      << "docs/operators.md §6: the list of int16 kernels and the table's int16 column";
  for (const ops::OpDef& row : ops::kOpDefs)
    if (row.s16 == ops::S16::kByteMovement) {
      EXPECT_NE(row.f32_dtypes & ops::dtype_bit(TIGRIS_DTYPE_INT16), 0u)
          << label(row) << ": int16 byte movement without a float kernel taking int16";
    }
}

}  // namespace
