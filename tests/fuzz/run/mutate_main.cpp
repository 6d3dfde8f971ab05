// Mutation check (scripts/mutate-plans.sh): each plan given is mutated `count` times (1-4
// random bytes set to random values, fixed seed), and every mutant is loaded and, when it
// loads, run on every kernel set (fuzz_run.h). Built with ASan + UBSan, which abort on the
// first finding; `--save DIR` keeps each mutant as DIR/last.tgrs before it runs, so the file
// left after a crash is its reproducer.
// `--outside-weights` mutates only bytes outside the plan's uncompressed weight blob (the
// metadata a kernel trusts: records, pools, quant params, attributes), where most findings lie.
// Usage: mutate_plans [--count N] [--seed S] [--save DIR] [--outside-weights] PLAN.tgrs...
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_run.h"
#include "tigris_loader.h"

namespace {

// xorshift64*: the same sequence on every host for a given seed.
struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }
};

bool read_all(const char* path, std::vector<uint8_t>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return !out->empty();
}

// The byte range [begin, end) of the plan's uncompressed weight blob; empty without one.
void weight_blob_range(const std::vector<uint8_t>& plan, uint32_t* begin, uint32_t* end) {
  *begin = *end = 0;
  std::vector<uint8_t> copy(plan);  // tigris_plan_load keeps pointers into its buffer
  tigris_plan_t p;
  if (tigris_plan_load(copy.data(), (uint32_t)copy.size(), &p) != TIGRIS_OK || p.weight_blob == nullptr) return;
  uint32_t last = 0;
  for (uint32_t i = 0; i < p.header->num_weights; i++) {
    const uint32_t e = p.weight_entries[i].offset + p.weight_entries[i].size_bytes;
    if (e > last) last = e;
  }
  *begin = (uint32_t)(p.weight_blob - copy.data());
  *end = *begin + last;
}

void save(const std::string& dir, const std::vector<uint8_t>& b) {
  if (dir.empty()) return;
  std::ofstream f(dir + "/last.tgrs", std::ios::binary | std::ios::trunc);
  f.write((const char*)b.data(), (std::streamsize)b.size());
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t count = 2000;
  uint64_t seed = 1;
  std::string save_dir;
  bool outside_weights = false;
  std::vector<const char*> plans;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--count") && a + 1 < argc) count = (uint32_t)strtoul(argv[++a], nullptr, 10);
    else if (!strcmp(argv[a], "--seed") && a + 1 < argc) seed = strtoull(argv[++a], nullptr, 10);
    else if (!strcmp(argv[a], "--save") && a + 1 < argc) save_dir = argv[++a];
    else if (!strcmp(argv[a], "--outside-weights")) outside_weights = true;
    else plans.push_back(argv[a]);
  }
  if (plans.empty()) {
    fprintf(stderr, "usage: mutate_plans [--count N] [--seed S] [--save DIR] PLAN.tgrs...\n");
    return 2;
  }
  int rc = 0;
  for (const char* path : plans) {
    std::vector<uint8_t> plan;
    if (!read_all(path, &plan)) {
      fprintf(stderr, "mutate_plans: cannot read %s\n", path);
      return 2;
    }
    const FuzzRunResult base = fuzz_run_plan(plan.data(), plan.size());
    // The float set refuses int8 ops (kError); one kernel set must run the plan through.
    if (!base.loaded || base.runs_ok == 0) {
      fprintf(stderr, "mutate_plans: %s does not load and run unmutated\n", path);
      rc = 1;
    }
    uint32_t skip_begin = 0, skip_end = 0;
    if (outside_weights) weight_blob_range(plan, &skip_begin, &skip_end);
    const uint32_t span = (uint32_t)plan.size() - (skip_end - skip_begin);
    Rng rng{seed * 0x9E3779B97F4A7C15ull + 1};
    uint32_t loaded = 0, runs = 0, runs_ok = 0;
    for (uint32_t i = 0; i < count; i++) {
      std::vector<uint8_t> m = plan;
      const uint32_t bytes = 1 + rng.below(4);
      for (uint32_t k = 0; k < bytes; k++) {
        uint32_t at = rng.below(span);
        if (at >= skip_begin) at += skip_end - skip_begin;
        m[at] = (uint8_t)rng.next();
      }
      save(save_dir, m);
      const FuzzRunResult r = fuzz_run_plan(m.data(), m.size());
      loaded += r.loaded;
      runs += (uint32_t)r.runs;
      runs_ok += (uint32_t)r.runs_ok;
    }
    printf("%s: %u mutants (seed %llu%s), %u loaded, %u runs (%u completed), no finding\n", path, count,
           (unsigned long long)seed, outside_weights ? ", outside the weights" : "", loaded, runs, runs_ok);
    fflush(stdout);
  }
  return rc;
}
