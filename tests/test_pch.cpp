// The translation unit that builds the test suites' shared precompiled header
// (tests/CMakeLists.txt, tigris_test_pch); it has no code of its own.
