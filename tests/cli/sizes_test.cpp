#include <gtest/gtest.h>

#include "tools/tigris/cli_errors.h"
#include "tools/tigris/sizes.h"

using tigris::cli::parse_input_shape;
using tigris::cli::parse_input_shapes;
using tigris::cli::parse_pools;
using tigris::cli::parse_size;
using tigris::cli::UsageError;

TEST(ParseSize, SuffixesAreBinaryAndCaseInsensitive) {
  EXPECT_EQ(parse_size("256K", "-m"), 262144);
  EXPECT_EQ(parse_size("256k", "-m"), 262144);
  EXPECT_EQ(parse_size("256KB", "-m"), 262144);
  EXPECT_EQ(parse_size("256kB", "-m"), 262144);
  EXPECT_EQ(parse_size("4M", "-m"), 4194304);
  EXPECT_EQ(parse_size("4mb", "-m"), 4194304);
  EXPECT_EQ(parse_size("1000", "-m"), 1000);
  EXPECT_EQ(parse_size("1000B", "-m"), 1000);
  EXPECT_EQ(parse_size(" 64K ", "-m"), 65536);
}

TEST(ParseSize, FractionsAreTruncatedAfterScaling) {
  EXPECT_EQ(parse_size("2.5M", "-m"), 2621440);
  EXPECT_EQ(parse_size("1.5M", "-m"), 1572864);
  EXPECT_EQ(parse_size("0.1K", "-m"), 102);  // 102.4 bytes
  EXPECT_EQ(parse_size(".5K", "-m"), 512);
  EXPECT_EQ(parse_size("10.9", "-m"), 10);
}

TEST(ParseSize, NonPositiveValuesParseForTheCommandToJudge) {
  EXPECT_EQ(parse_size("0", "-m"), 0);
  EXPECT_EQ(parse_size("-1K", "-m"), -1024);
}

TEST(ParseSize, MalformedValuesAreUsageErrors) {
  for (const char* bad : {"", "K", "12Q", "1.2.3K", "1e3", "256 KiB", "GB", "4G", "abc", "1,5M"}) {
    EXPECT_THROW(parse_size(bad, "--mem"), UsageError) << bad;
  }
  try {
    parse_size("12Q", "--flash");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("'12Q'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("--flash"), std::string::npos);
  }
  EXPECT_THROW(parse_size("99999999999M", "-m"), UsageError);
}

TEST(ParsePools, PlusIsSugarForRepeatedMem) {
  EXPECT_EQ(parse_pools({"256K+4M"}), (std::vector<int64_t>{262144, 4194304}));
  EXPECT_EQ(parse_pools({"256K", "4M"}), (std::vector<int64_t>{262144, 4194304}));
  EXPECT_EQ(parse_pools({"256K"}), (std::vector<int64_t>{262144}));
  EXPECT_EQ(parse_pools({}), (std::vector<int64_t>{}));
}

TEST(ParsePools, EmptyPoolAndThreePoolsAreUsageErrors) {
  for (const auto& bad : std::vector<std::vector<std::string>>{{"256K+"}, {"+4M"}, {"256K++4M"}, {""}}) {
    try {
      parse_pools(bad);
      FAIL() << bad[0];
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("empty memory pool"), std::string::npos) << e.what();
    }
  }
  try {
    parse_pools({"256K+4M", "8M"});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "3 memory pools given; the planner supports a fast and a slow pool");
  }
}

TEST(ParseInputShape, SplitsAtTheLastColon) {
  const auto b = parse_input_shape("serving:input:1x3x224x224");
  EXPECT_EQ(b.name, "serving:input");
  EXPECT_EQ(b.dims, (std::vector<int64_t>{1, 3, 224, 224}));
  EXPECT_EQ(parse_input_shape("x:7").dims, (std::vector<int64_t>{7}));
}

TEST(ParseInputShape, BadFormsAreUsageErrorsWithTheReferenceWording) {
  const auto message = [](const std::string& text) {
    try {
      parse_input_shape(text);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("1x3x224").find("expected name:1x3x224x224"), std::string::npos);
  EXPECT_NE(message("x:").find("expected name:1x3x224x224"), std::string::npos);
  EXPECT_NE(message(":1x3").find("expected name:1x3x224x224"), std::string::npos);
  EXPECT_NE(message("x:1xax3").find("dimensions must be integers"), std::string::npos);
  EXPECT_NE(message("x:1.5x3").find("dimensions must be integers"), std::string::npos);
  EXPECT_NE(message("x:1x0x3").find("dimensions must be positive"), std::string::npos);
  EXPECT_NE(message("x:1x-2").find("dimensions must be positive"), std::string::npos);
  EXPECT_THROW(parse_input_shapes({"x:1x2", "x:1x3"}), UsageError);
}
