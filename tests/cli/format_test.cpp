#include <gtest/gtest.h>

#include "compiler/report/format.h"

using namespace tigris::report;

TEST(FormatBytes, BinaryUnitsWithTwoDecimals) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1.00 KiB");
  EXPECT_EQ(format_bytes(262144), "256.00 KiB");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_bytes(1048575), "1024.00 KiB");  // below 1 MiB stays in KiB
  EXPECT_EQ(format_bytes(1048576), "1.00 MiB");
  // The README's MobileNetV2 figures: 5.74 MiB naive peak = 6,021,120 bytes (1x96x112x112 f32 x 1.25).
  EXPECT_EQ(format_bytes(4816896), "4.59 MiB");   // 1x96x112x112 float32
  EXPECT_EQ(format_bytes(333288), "325.48 KiB");  // vww_96_int8.tflite file size (export spec)
}

TEST(FormatBytes, Deltas) {
  EXPECT_EQ(format_bytes_delta(0), "0 B");
  EXPECT_EQ(format_bytes_delta(2365), "+2.31 KiB");
  EXPECT_EQ(format_bytes_delta(-25283), "-24.69 KiB");
}

TEST(FormatShape, UnknownAndScalar) {
  EXPECT_EQ(format_shape({1, 3, 224, 224}), "1x3x224x224");
  EXPECT_EQ(format_shape({-1, 3}), "?x3");
  EXPECT_EQ(format_shape({}), "scalar");
}

TEST(Dtypes, NamesAndSizesFollowOnnxCodes) {
  EXPECT_EQ(dtype_name(1), "float32");
  EXPECT_EQ(dtype_name(3), "int8");
  EXPECT_EQ(dtype_name(9), "bool");
  EXPECT_EQ(dtype_name(99), "dtype 99");
  EXPECT_EQ(dtype_size(1), 4u);
  EXPECT_EQ(dtype_size(7), 8u);
  EXPECT_EQ(dtype_size(8), 0u);
}

TEST(FormatCount, ThousandsSeparators) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567), "1,234,567");
}

TEST(TextTable, AlignsColumnsWithThreeSpaces) {
  TextTable t;
  t.right_align(1);
  t.add({"Conv", "3", "1.00 KiB"});
  t.add({"Relu", "12", ""});
  t.add({"total", "15", "1.00 KiB"});
  EXPECT_EQ(t.render(),
            "  Conv     3   1.00 KiB\n"
            "  Relu    12\n"
            "  total   15   1.00 KiB\n");
}
