// Corpus replay: runs every file of the given directories through the fuzz target.
// Built with the project's compiler (and ASan/UBSan where available) as a CTest.
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  int files = 0;
  for (int a = 1; a < argc; a++) {
    DIR* dir = opendir(argv[a]);
    if (!dir) {
      fprintf(stderr, "replay: cannot open corpus directory %s\n", argv[a]);
      return 1;
    }
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      const std::string path = std::string(argv[a]) + "/" + e->d_name;
      FILE* f = fopen(path.c_str(), "rb");
      if (!f) continue;
      std::vector<uint8_t> bytes;
      int c;
      while ((c = fgetc(f)) != EOF) bytes.push_back((uint8_t)c);
      fclose(f);
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      files++;
    }
    closedir(dir);
  }
  printf("replayed %d corpus files\n", files);
  return files > 0 ? 0 : 1;
}
