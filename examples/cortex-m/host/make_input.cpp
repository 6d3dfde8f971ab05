// tigris-example-input PLAN.tgrs OUT.bin [--seed N]
//
// Writes a deterministic input for every model input of a plan, one after another in
// plan order: the bytes tigris_input_write takes (the dtype the model declares, the plan's
// stored axis order), which `tigris run --stored-order` reads from a .bin file too. Float
// inputs are uniform in [-1, 1), 8-bit ones any byte, wider integers in [-4, 4], booleans 0/1.
// The Cortex-M example embeds this file so that QEMU and the host run the same bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tigris.h"
#include "tigris_iface.h"
#include "tigris_loader.h"

namespace {

// xorshift32: the same sequence on every host.
struct Random {
    uint32_t s;
    uint32_t next()
    {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        return s;
    }
};

template <typename T>
void append(std::vector<uint8_t> &out, T value)
{
    uint8_t b[sizeof(T)];
    std::memcpy(b, &value, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
}

// Appends `count` values of `dtype`; false for a dtype this tool does not fill.
bool fill(std::vector<uint8_t> &out, uint8_t dtype, uint32_t count, Random &rng)
{
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t r = rng.next();
        switch (dtype) {
        case TIGRIS_DTYPE_FLOAT32: append(out, static_cast<float>(r >> 8) / 8388608.0f - 1.0f); break;
        case TIGRIS_DTYPE_INT8:
        case TIGRIS_DTYPE_UINT8: out.push_back(static_cast<uint8_t>(r >> 24)); break;
        case TIGRIS_DTYPE_BOOL: out.push_back(static_cast<uint8_t>(r >> 31)); break;
        case TIGRIS_DTYPE_INT16: append(out, static_cast<int16_t>(static_cast<int>(r % 9) - 4)); break;
        case TIGRIS_DTYPE_INT32: append(out, static_cast<int32_t>(r % 9) - 4); break;
        case TIGRIS_DTYPE_INT64: append(out, static_cast<int64_t>(r % 9) - 4); break;
        default: return false;
        }
    }
    return true;
}

uint32_t dtype_bytes(uint8_t dtype)
{
    switch (dtype) {
    case TIGRIS_DTYPE_FLOAT32:
    case TIGRIS_DTYPE_INT32: return 4;
    case TIGRIS_DTYPE_INT64: return 8;
    case TIGRIS_DTYPE_INT16: return 2;
    default: return 1;
    }
}

int fail(const std::string &message)
{
    std::fprintf(stderr, "Error: %s\n", message.c_str());
    return 1;
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc != 3 && !(argc == 5 && std::strcmp(argv[3], "--seed") == 0)) {
        std::fprintf(stderr, "usage: %s PLAN.tgrs OUT.bin [--seed N]\n", argv[0]);
        return 2;
    }
    Random rng{argc == 5 ? static_cast<uint32_t>(std::strtoul(argv[4], nullptr, 10)) | 1u : 2463534242u};
    std::FILE *f = std::fopen(argv[1], "rb");
    if (!f) return fail(std::string(argv[1]) + ": cannot open");
    std::vector<uint8_t> bytes;
    for (int c; (c = std::fgetc(f)) != EOF;) bytes.push_back(static_cast<uint8_t>(c));
    std::fclose(f);
    // The loader reads the plan in place: give it an aligned copy.
    std::vector<uint64_t> storage(bytes.size() / 8 + 1);
    std::memcpy(storage.data(), bytes.data(), bytes.size());
    tigris_plan_t plan;
    const tigris_error_t err =
        tigris_plan_load(reinterpret_cast<const uint8_t *>(storage.data()), static_cast<uint32_t>(bytes.size()), &plan);
    if (err != TIGRIS_OK) return fail(std::string(argv[1]) + ": " + tigris_error_str(err));

    std::vector<uint8_t> out;
    for (uint32_t i = 0; i < plan.header->num_model_inputs; ++i) {
        const tigris_tensor_t &t = plan.tensors[plan.model_inputs[i]];
        const uint8_t dtype = tigris_tensor_declared_dtype(&t);
        const uint32_t size = tigris_iface_bytes(&plan, plan.model_inputs[i]);
        if (size == 0 || !fill(out, dtype, size / dtype_bytes(dtype), rng)) {
            return fail(std::string(argv[1]) + ": input '" + tigris_tensor_name(&plan, &t) +
                        "' has a dtype this tool does not fill");
        }
        std::printf("input %u '%s': %u bytes\n", i, tigris_tensor_name(&plan, &t), size);
    }
    f = std::fopen(argv[2], "wb");
    if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size() || std::fclose(f) != 0) {
        return fail(std::string(argv[2]) + ": cannot write");
    }
    return 0;
}
