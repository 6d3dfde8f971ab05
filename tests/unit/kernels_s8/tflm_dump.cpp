#include "tflm_dump.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace s8test {

bool read_npy(const std::string& path, std::string* descr, std::vector<int64_t>* shape, std::vector<uint8_t>* payload) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes[0] != 0x93 || std::string(bytes.begin() + 1, bytes.begin() + 6) != "NUMPY")
    return false;
  size_t header_len = 0, start = 0;
  if (bytes[6] == 1) {
    header_len = bytes[8] | (bytes[9] << 8);
    start = 10;
  } else {
    if (bytes.size() < 12) return false;
    header_len = bytes[8] | (bytes[9] << 8) | (bytes[10] << 16) | ((size_t)bytes[11] << 24);
    start = 12;
  }
  if (start + header_len > bytes.size()) return false;
  const std::string header(bytes.begin() + (long)start, bytes.begin() + (long)(start + header_len));
  if (header.find("'fortran_order': False") == std::string::npos) return false;
  const size_t d = header.find("'descr': '");
  const size_t s = header.find("'shape': (");
  if (d == std::string::npos || s == std::string::npos) return false;
  *descr = header.substr(d + 10, header.find('\'', d + 10) - (d + 10));
  shape->clear();
  std::stringstream dims(header.substr(s + 10, header.find(')', s) - (s + 10)));
  std::string item;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(' ') != std::string::npos) shape->push_back(std::stoll(item));
  }
  payload->assign(bytes.begin() + (long)(start + header_len), bytes.end());
  return true;
}

bool infer_axis(int32_t in, int32_t k, int32_t out, AxisGeom* g) {
  for (int32_t s = 1; s <= 4; s++) {
    if (out == (in + s - 1) / s) {
      const int32_t total = (out - 1) * s + k - in > 0 ? (out - 1) * s + k - in : 0;
      *g = {s, total / 2, total - total / 2};
      return true;
    }
    if (in >= k && out == (in - k + s) / s) {
      *g = {s, 0, 0};
      return true;
    }
  }
  return false;
}

std::vector<uint8_t> Dump::data(int i) const {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> payload;
  if (!read_npy(dir + "/" + tensor(i).file, &descr, &shape, &payload)) return {};
  return payload;
}

bool load_dump(const std::string& models_dir, const std::string& model, Dump* out, std::string* error) {
  out->dir = models_dir + "/refs/" + model + ".tflm/tensors_seed0";
  std::ifstream f(out->dir + "/index.json");
  if (!f) {
    *error = "no TFLite Micro dump at " + out->dir;
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_discarded() || !j.contains("tensors") || !j.contains("operators")) {
    *error = "unreadable index.json in " + out->dir;
    return false;
  }
  for (const auto& t : j["tensors"]) {
    DumpTensor d;
    d.index = t["index"].get<int>();
    d.name = t["name"].get<std::string>();
    d.file = t["file"].get<std::string>();
    d.dtype = t["dtype"].get<std::string>();
    d.shape = t["shape"].get<std::vector<int32_t>>();
    if (t.contains("scale") && !t["scale"].is_null()) {
      if (t["scale"].is_array())
        d.scales = t["scale"].get<std::vector<float>>();
      else
        d.scales.push_back(t["scale"].get<float>());
    }
    if (t.contains("zero_point") && !t["zero_point"].is_null()) {
      if (t["zero_point"].is_array())
        d.zero_points = t["zero_point"].get<std::vector<int32_t>>();
      else
        d.zero_points.push_back(t["zero_point"].get<int32_t>());
    }
    if ((size_t)d.index != out->tensors.size()) {
      *error = "index.json tensors out of order";
      return false;
    }
    out->tensors.push_back(d);
  }
  for (const auto& o : j["operators"]) {
    DumpOp op;
    op.index = o["index"].get<int>();
    op.op = o["op"].get<std::string>();
    op.inputs = o["inputs"].get<std::vector<int>>();
    op.outputs = o["outputs"].get<std::vector<int>>();
    out->ops.push_back(op);
  }
  return true;
}

}  // namespace s8test
