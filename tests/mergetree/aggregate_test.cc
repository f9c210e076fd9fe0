// The aggregation merge engine and its field aggregators against Java Paimon 2.0's
// AggregateMergeFunction and aggregate/Field*Agg classes.
#include <gtest/gtest.h>

#include "mergetree/merge_engine_test_util.h"
#include "testing/test_util.h"

namespace freshet::mergetree {
namespace {

using meta::DataType;
using meta::DataTypePtr;
using testing::Delete;
using testing::EngineHarness;
using testing::ExpectMerge;
using testing::Field;
using testing::Insert;
using testing::UpdateBefore;
using testing::Version;

// A table (k INT key, v `type`) aggregating v with `function` (empty: the default).
Result<EngineHarness> Table(DataTypePtr type, const std::string& function,
                            meta::Options options = {}) {
  options.insert(options.begin(), {"merge-engine", "aggregation"});
  if (!function.empty()) options.push_back({"fields.v.aggregate-function", function});
  return EngineHarness::Make({Field("k", DataType::Int()), Field("v", std::move(type))}, {"k"},
                             std::move(options));
}

Version I(const std::string& v) { return Insert("[1, " + v + "]"); }
Version U(const std::string& v) { return UpdateBefore("[1, " + v + "]"); }
Version D(const std::string& v) { return Delete("[1, " + v + "]"); }

std::string Out(const std::string& v, int64_t sequence, const char* kind = "+I") {
  return std::string(kind) + "[1, " + v + "] @" + std::to_string(sequence);
}

TEST(AggregateTest, DefaultIsLastNonNullValue) {
  ASSERT_OK_AND_ASSIGN(
      auto table, EngineHarness::Make({Field("k", DataType::Int()), Field("a", DataType::Int()),
                                       Field("b", DataType::String())},
                                      {"k"}, {{"merge-engine", "aggregation"}}));
  ExpectMerge(table, {Insert(R"([1, 1, "a"])"), Insert(R"([1, null, "b"])")}, "+I[1, 1, b] @2");
  // A retracted non-null value leaves null.
  ExpectMerge(table, {Insert(R"([1, 1, "a"])"), UpdateBefore(R"([1, null, "a"])")},
              "+I[1, 1, null] @2");
}

TEST(AggregateTest, DefaultAggregateFunctionOption) {
  ASSERT_OK_AND_ASSIGN(
      auto table, Table(DataType::BigInt(), "", {{"fields.default-aggregate-function", "sum"}}));
  ExpectMerge(table, {I("1"), I("2")}, Out("3", 2));
}

TEST(AggregateTest, SumWithRetractions) {
  ASSERT_OK_AND_ASSIGN(auto ints, Table(DataType::Int(), "sum"));
  ExpectMerge(ints, {I("5"), I("null"), I("3"), U("2")}, Out("6", 4));
  ExpectMerge(ints, {D("4"), I("1")}, Out("-3", 2));  // retract from null negates
  ASSERT_OK_AND_ASSIGN(auto doubles, Table(DataType::Double(), "sum"));
  ExpectMerge(doubles, {I("1.5"), I("2.25"), D("0.5")}, Out("3.25", 3));
  ASSERT_OK_AND_ASSIGN(auto tiny, Table(DataType::TinyInt(), "sum"));
  auto overflow = tiny.Merge({I("100"), I("100")});
  ASSERT_TRUE(overflow.status().IsInvalid());
  EXPECT_NE(overflow.status().message().find("byte overflow"), std::string::npos);
}

TEST(AggregateTest, DecimalSumAndProduct) {
  ASSERT_OK_AND_ASSIGN(auto sum, Table(*DataType::Decimal(5, 2), "sum"));
  ExpectMerge(sum, {I(R"("1.25")"), I(R"("2.50")"), U(R"("0.05")")}, Out("3.70", 3));
  ASSERT_OK_AND_ASSIGN(auto wide, Table(*DataType::Decimal(38, 0), "sum"));
  // Beyond the precision: null.
  ExpectMerge(wide, {I(R"("99999999999999999999999999999999999999")"), I(R"("1")")},
              Out("null", 2));
  ASSERT_OK_AND_ASSIGN(auto product, Table(*DataType::Decimal(10, 2), "product"));
  // 1.25 * 1.25 = 1.5625 -> 1.56 (half up); retracting 0.50: 1.56 / 0.5 = 3.12.
  ExpectMerge(product, {I(R"("1.25")"), I(R"("1.25")")}, Out("1.56", 2));
  ExpectMerge(product, {I(R"("1.25")"), I(R"("1.25")"), U(R"("0.50")")}, Out("3.12", 3));
  ExpectMerge(product, {I(R"("0.05")"), I(R"("0.10")")}, Out("0.01", 2));  // 0.005 rounds up
  auto non_terminating = product.Merge({I(R"("1.00")"), U(R"("3.00")")});
  ASSERT_TRUE(non_terminating.status().IsInvalid());
}

TEST(AggregateTest, Product) {
  ASSERT_OK_AND_ASSIGN(auto ints, Table(DataType::Int(), "product"));
  ExpectMerge(ints, {I("3"), I("4"), I("null"), U("2")}, Out("6", 4));
  EXPECT_TRUE(ints.Merge({I("3"), U("0")}).status().IsInvalid());  // division by zero
}

TEST(AggregateTest, MinMax) {
  ASSERT_OK_AND_ASSIGN(auto max, Table(DataType::String(), "max"));
  ExpectMerge(max, {I(R"("b")"), I(R"("ab")"), I("null"), I(R"("c")")}, Out("c", 4));
  ASSERT_OK_AND_ASSIGN(auto min, Table(DataType::Double(), "min"));
  ExpectMerge(min, {I("0.0"), I("-0.0"), I("null")}, Out("-0", 3));
  EXPECT_TRUE(min.Merge({I("1"), U("1")}).status().IsInvalid());  // no retraction
  EXPECT_TRUE(Table(DataType::Boolean(), "max").status().IsInvalid());
  EXPECT_TRUE(Table(DataType::Array(DataType::Int()), "min").status().IsInvalid());
}

TEST(AggregateTest, FirstAndLastValues) {
  ASSERT_OK_AND_ASSIGN(auto first, Table(DataType::Int(), "first_value"));
  ExpectMerge(first, {I("null"), I("2"), I("3")}, Out("null", 3));
  ASSERT_OK_AND_ASSIGN(auto first_non_null, Table(DataType::Int(), "first_non_null_value"));
  ExpectMerge(first_non_null, {I("null"), I("2"), I("3")}, Out("2", 3));
  ASSERT_OK_AND_ASSIGN(auto legacy, Table(DataType::Int(), "first_not_null_value"));
  ExpectMerge(legacy, {I("null"), I("2"), I("3")}, Out("2", 3));
  ASSERT_OK_AND_ASSIGN(auto last, Table(DataType::Int(), "last_value"));
  ExpectMerge(last, {I("1"), I("null")}, Out("null", 2));
  ExpectMerge(last, {I("1"), U("1")}, Out("null", 2));
}

TEST(AggregateTest, BoolAndOr) {
  ASSERT_OK_AND_ASSIGN(auto all, Table(DataType::Boolean(), "bool_and"));
  ExpectMerge(all, {I("true"), I("null"), I("true")}, Out("true", 3));
  ExpectMerge(all, {I("true"), I("false"), I("true")}, Out("false", 3));
  ASSERT_OK_AND_ASSIGN(auto any, Table(DataType::Boolean(), "bool_or"));
  ExpectMerge(any, {I("false"), I("true"), I("false")}, Out("true", 3));
  EXPECT_TRUE(Table(DataType::Int(), "bool_or").status().IsInvalid());
}

TEST(AggregateTest, Listagg) {
  ASSERT_OK_AND_ASSIGN(auto plain, Table(DataType::String(), "listagg"));
  ExpectMerge(plain, {I(R"("a")"), I(R"("  ")"), I("null"), I(R"("b")"), I(R"("a")")},
              Out("a,  ,b,a", 5));
  // Empty strings are skipped, whitespace is not (Java checks the size, not isBlank).
  ExpectMerge(plain, {I(R"("")"), I(R"("  ")"), I(R"("")")}, Out(R"(  )", 3));
  // Nulls are checked first: a null accumulator takes an empty input (Java Paimon 1.4.2).
  ExpectMerge(plain, {I("null"), I(R"("")")}, Out("", 2));
  ASSERT_OK_AND_ASSIGN(
      auto distinct, Table(DataType::String(), "listagg",
                           {{"fields.v.list-agg-delimiter", ";"}, {"fields.v.distinct", "true"}}));
  ExpectMerge(distinct, {I(R"("a;b")"), I(R"("b;c; ;c")"), I(R"("a")")}, Out("a;b;c; ", 3));
  // Empty tokens of the input are skipped, those of the accumulator stay (Java Paimon 1.4.2).
  ExpectMerge(distinct, {I(R"("a;;b;")"), I(R"("c;;d;")")}, Out("a;;b;;c;d", 2));
  EXPECT_TRUE(Table(*DataType::VarChar(10), "listagg").status().IsInvalid());
}

TEST(AggregateTest, Collect) {
  ASSERT_OK_AND_ASSIGN(auto all, Table(DataType::Array(DataType::Int()), "collect"));
  ExpectMerge(all, {I("[1, 2]"), I("null"), I("[2, 3]")}, Out("[1, 2, 2, 3]", 3));
  ExpectMerge(all, {I("[1, 2, 2]"), U("[2, 5]")}, Out("[1, 2]", 2));
  ASSERT_OK_AND_ASSIGN(auto distinct, Table(DataType::Array(DataType::Int()), "collect",
                                            {{"fields.v.distinct", "true"}}));
  ExpectMerge(distinct, {I("[1, 1, null]"), I("[2, null, 1]")}, Out("[1, null, 2]", 2));
  EXPECT_TRUE(Table(DataType::Int(), "collect").status().IsInvalid());
}

TEST(AggregateTest, MergeMap) {
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table(DataType::Map(DataType::String(), DataType::Int()), "merge_map"));
  ExpectMerge(table, {I(R"([["a", 1], ["b", 2]])"), I(R"([["b", 3], ["c", null]])")},
              Out("{a=1, b=3, c=null}", 2));
  ExpectMerge(table, {I(R"([["a", 1], ["b", 2]])"), U(R"([["a", 9]])")}, Out("{b=2}", 2));
  EXPECT_TRUE(Table(DataType::Int(), "merge_map").status().IsInvalid());
}

DataTypePtr Rows() {
  return DataType::Array(
      DataType::Row({Field("id", DataType::Int()), Field("name", DataType::String()),
                     Field("ver", DataType::Int())}));
}

TEST(AggregateTest, NestedUpdate) {
  ASSERT_OK_AND_ASSIGN(auto keyed, Table(Rows(), "nested_update", {{"fields.v.nested-key", "id"}}));
  ExpectMerge(keyed, {I(R"([[1, "a", 1], [2, "b", 1]])"), I(R"([[1, "x", 0], [3, "c", 1]])")},
              Out("[(1, x, 0), (2, b, 1), (3, c, 1)]", 2));
  ExpectMerge(keyed, {I(R"([[1, "a", 1], [2, "b", 1]])"), U(R"([[1, "zz", 5]])")},
              Out("[(2, b, 1)]", 2));
  ASSERT_OK_AND_ASSIGN(auto ordered, Table(Rows(), "nested_update",
                                           {{"fields.v.nested-key", "id"},
                                            {"fields.v.nested-sequence-field", "ver"},
                                            {"fields.v.count-limit", "2"}}));
  ExpectMerge(ordered, {I(R"([[1, "a", 1], [2, "b", 1]])"), I(R"([[1, "x", 0], [3, "c", 1]])")},
              Out("[(1, a, 1), (2, b, 1)]", 2));
  ASSERT_OK_AND_ASSIGN(auto appended,
                       Table(Rows(), "nested_update", {{"fields.v.count-limit", "2"}}));
  ExpectMerge(appended, {I(R"([[1, "a", 1], null])"), I(R"([[1, "a", 1], [3, "c", 1]])")},
              Out("[(1, a, 1), (1, a, 1)]", 2));
  EXPECT_TRUE(
      Table(Rows(), "nested_update", {{"fields.v.nested-key", "nope"}}).status().IsInvalid());
  EXPECT_TRUE(Table(Rows(), "nested_update", {{"fields.v.nested-sequence-field", "ver"}})
                  .status()
                  .IsInvalid());
  EXPECT_TRUE(Table(DataType::Array(DataType::Int()), "nested_update").status().IsInvalid());
}

TEST(AggregateTest, NestedPartialUpdate) {
  ASSERT_OK_AND_ASSIGN(auto table,
                       Table(Rows(), "nested_partial_update", {{"fields.v.nested-key", "id"}}));
  ExpectMerge(table, {I(R"([[1, "a", null], [2, "b", 1]])"), I(R"([[1, null, 7]])")},
              Out("[(1, a, 7), (2, b, 1)]", 2));
  EXPECT_TRUE(Table(Rows(), "nested_partial_update").status().IsInvalid());  // needs a key
}

TEST(AggregateTest, MergeMapWithKeyTime) {
  auto type = DataType::Map(DataType::String(), DataType::Row({Field("val", DataType::Int()),
                                                               Field("ts", DataType::String())}));
  ASSERT_OK_AND_ASSIGN(auto table, Table(type, "merge_map_with_keytime"));
  ExpectMerge(table,
              {I(R"([["a", [1, "2024-01-02"]], ["b", [2, "2024-01-01"]], ["c", [3, "x"]]])"),
               I(R"([["a", [9, "2024-01-01"]], ["b", [8, "2024-01-05"]], ["c", null],
                      ["d", [4, null]]])")},
              Out("{a=(1, 2024-01-02), b=(8, 2024-01-05)}", 2));
  EXPECT_TRUE(Table(DataType::Map(DataType::String(), DataType::Int()), "merge_map_with_keytime")
                  .status()
                  .IsInvalid());
}

TEST(AggregateTest, IgnoreRetractAndUnsupportedRetract) {
  ASSERT_OK_AND_ASSIGN(auto strict, Table(DataType::Int(), "max"));
  auto refused = strict.Merge({I("1"), U("1")});
  ASSERT_TRUE(refused.status().IsInvalid());
  EXPECT_NE(refused.status().message().find("fields.v.ignore-retract"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(auto lenient,
                       Table(DataType::Int(), "max", {{"fields.v.ignore-retract", "true"}}));
  ExpectMerge(lenient, {I("1"), U("5"), I("0")}, Out("1", 3));
}

TEST(AggregateTest, RemoveRecordOnDelete) {
  ASSERT_OK_AND_ASSIGN(
      auto table, Table(DataType::Int(), "sum", {{"aggregation.remove-record-on-delete", "true"}}));
  ExpectMerge(table, {I("1"), D("7")}, Out("7", 2, "-D"));
  ExpectMerge(table, {I("1"), D("7"), I("2")}, Out("9", 3));  // restarts from the delete
  ExpectMerge(table, {I("1"), U("1"), I("2")}, Out("2", 3));  // -U still retracts
  auto conflict =
      Table(DataType::Int(), "sum",
            {{"aggregation.remove-record-on-delete", "true"}, {"fields.v.ignore-retract", "true"}});
  ASSERT_TRUE(conflict.status().IsInvalid());
  EXPECT_NE(conflict.status().message().find("fields.v.ignore-retract"), std::string::npos);
}

TEST(AggregateTest, KeyAndSequenceColumns) {
  ASSERT_OK_AND_ASSIGN(
      auto table, EngineHarness::Make({Field("k", DataType::Int()), Field("s", DataType::Int()),
                                       Field("v", DataType::Int())},
                                      {"k"},
                                      {{"merge-engine", "aggregation"},
                                       {"sequence.field", "s"},
                                       {"fields.default-aggregate-function", "sum"}}));
  // The sequence column is last_value (retract: null), the key is never summed.
  ExpectMerge(table, {Insert("[1, 5, 1]"), Insert("[1, null, 2]")}, "+I[1, null, 3] @2");
  ExpectMerge(table, {Insert("[1, 5, 1]"), UpdateBefore("[1, 6, 1]")}, "+I[1, null, 0] @2");
}

TEST(AggregateTest, InvalidFunctions) {
  auto unknown = Table(DataType::Int(), "count");
  ASSERT_TRUE(unknown.status().IsInvalid());
  EXPECT_NE(unknown.status().message().find("fields.v.aggregate-function"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("count"), std::string::npos);
  auto default_unknown = Table(DataType::Int(), "", {{"fields.default-aggregate-function", "avg"}});
  ASSERT_TRUE(default_unknown.status().IsInvalid());
  EXPECT_NE(default_unknown.status().message().find("fields.default-aggregate-function"),
            std::string::npos);
  EXPECT_TRUE(Table(DataType::String(), "sum").status().IsInvalid());
  EXPECT_TRUE(Table(DataType::Boolean(), "product").status().IsInvalid());
  for (const char* function : {"rbm32", "rbm64", "hll_sketch", "theta_sketch"}) {
    auto refused = Table(DataType::Bytes(), function);
    ASSERT_TRUE(refused.status().IsNotImplemented()) << function;
    EXPECT_NE(refused.status().message().find(function), std::string::npos);
    EXPECT_NE(refused.status().message().find("'v'"), std::string::npos);
    EXPECT_TRUE(Table(DataType::Int(), function).status().IsInvalid()) << function;
  }
  EXPECT_TRUE(
      Table(DataType::Int(), "sum", {{"fields.v.ignore-retract", "yes"}}).status().IsInvalid());
}

}  // namespace
}  // namespace freshet::mergetree
