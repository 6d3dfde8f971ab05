// The committed fuzz seeds: valid ones load, near-valid ones (near_*) are refused.
#include <dirent.h>

#include <fstream>
#include <iterator>

#include "loader_fixture.h"

using namespace lf;

TEST(CorpusSeeds, ValidLoadNearValidRefused) {
  const std::string dir = std::string(TIGRIS_SOURCE_DIR) + "/tests/fuzz/loader/corpus";
  DIR* d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  int valid = 0, near = 0;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() < 5 || name.substr(name.size() - 5) != ".tgrs") continue;
    std::ifstream f(dir + "/" + name, std::ios::binary);
    Bytes b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const tigris_error_t err = load_err(b);
    if (name.rfind("near_", 0) == 0) {
      EXPECT_NE(err, TIGRIS_OK) << name;
      near++;
    } else if (name.rfind("crash_", 0) != 0) {
      EXPECT_EQ(err, TIGRIS_OK) << name << ": " << tigris_error_str(err);
      valid++;
    }
  }
  closedir(d);
  EXPECT_GE(valid, 10);
  EXPECT_GE(near, 6);
}
