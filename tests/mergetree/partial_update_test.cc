// The partial-update merge engine against Java Paimon 2.0's PartialUpdateMergeFunction.
#include <gtest/gtest.h>

#include "mergetree/merge_engine_test_util.h"
#include "testing/test_util.h"

namespace freshet::mergetree {
namespace {

using meta::DataType;
using testing::Delete;
using testing::EngineHarness;
using testing::ExpectMerge;
using testing::Field;
using testing::Insert;
using testing::UpdateBefore;

meta::Options With(meta::Options options) {
  options.insert(options.begin(), {"merge-engine", "partial-update"});
  return options;
}

// k (key), a INT, b STRING.
Result<EngineHarness> Simple(meta::Options options = {}) {
  return EngineHarness::Make(
      {Field("k", DataType::Int()), Field("a", DataType::Int()), Field("b", DataType::String())},
      {"k"}, With(std::move(options)));
}

// k (key), a, b ordered by g1; c ordered by g2.
Result<EngineHarness> Grouped(meta::Options options) {
  options.insert(options.begin(), {"fields.g2.sequence-group", "c"});
  options.insert(options.begin(), {"fields.g1.sequence-group", "a,b"});
  return EngineHarness::Make(
      {Field("k", DataType::Int()), Field("a", DataType::Int()), Field("b", DataType::Int()),
       Field("g1", DataType::Int()), Field("c", DataType::Int()), Field("g2", DataType::Int())},
      {"k"}, With(std::move(options)));
}

TEST(PartialUpdateTest, NonNullFieldsWin) {
  ASSERT_OK_AND_ASSIGN(auto table, Simple());
  ExpectMerge(table, {Insert("[1, 1, null]"), Insert(R"([1, null, "x"])"), Insert("[1, 3, null]")},
              "+I[1, 3, x] @3");
}

TEST(PartialUpdateTest, RetractWithoutOptionsIsAnErrorNamingThem) {
  ASSERT_OK_AND_ASSIGN(auto table, Simple());
  auto merged = table.Merge({Insert(R"([1, 1, "a"])"), Delete(R"([1, 1, "a"])")});
  ASSERT_TRUE(merged.status().IsInvalid()) << merged.status().ToString();
  for (const char* option : {"ignore-delete", "partial-update.remove-record-on-delete",
                             "sequence-group", "partial-update.remove-record-on-sequence-group"}) {
    EXPECT_NE(merged.status().message().find(option), std::string::npos) << option;
  }
}

TEST(PartialUpdateTest, IgnoreDeleteSkipsRetracts) {
  for (const char* key : {"ignore-delete", "partial-update.ignore-delete"}) {
    ASSERT_OK_AND_ASSIGN(auto table, Simple({{key, "true"}}));
    ExpectMerge(table, {Insert(R"([1, 1, "a"])"), Delete(R"([1, 1, "a"])")}, "+I[1, 1, a] @1");
    ExpectMerge(table,
                {Insert(R"([1, 1, "a"])"), UpdateBefore("[1, 1, null]"), Insert("[1, 2, null]")},
                "+I[1, 2, a] @3");
    // Only retracts: no insert, so the key has no row; Java starts from the first retract.
    ExpectMerge(table, {Delete(R"([1, 7, "z"])"), Delete("[1, 8, null]")}, "-D[1, 7, z] @0");
    // A leading retract is the base the insert updates.
    ExpectMerge(table, {Delete(R"([1, 7, "z"])"), Insert("[1, 8, null]")}, "+I[1, 8, z] @2");
  }
}

TEST(PartialUpdateTest, RemoveRecordOnDelete) {
  ASSERT_OK_AND_ASSIGN(auto table, Simple({{"partial-update.remove-record-on-delete", "true"}}));
  ExpectMerge(table, {Insert(R"([1, 1, "a"])"), Delete(R"([1, 1, null])")}, "-D[1, 1, null] @2");
  // -U is not a delete: ignored.
  ExpectMerge(table, {Insert(R"([1, 1, "a"])"), UpdateBefore(R"([1, 1, "a"])")}, "+I[1, 1, a] @2");
  // An insert after the delete starts from the delete's values.
  ExpectMerge(table,
              {Insert(R"([1, 1, "a"])"), Delete("[1, 5, null]"), Insert(R"([1, null, "b"])")},
              "+I[1, 5, b] @3");
}

TEST(PartialUpdateTest, SequenceGroupsOrderTheirColumns) {
  ASSERT_OK_AND_ASSIGN(auto table, Grouped({}));
  // g1 goes back (a, b stay), g2 goes forward; null values of a newer group overwrite.
  ExpectMerge(table, {Insert("[1, 1, 1, 5, 1, 1]"), Insert("[1, 2, 2, 4, null, 2]")},
              "+I[1, 1, 1, 5, null, 2] @2");
  // A version whose group sequence is all null leaves the group alone.
  ExpectMerge(table, {Insert("[1, 1, 1, 5, 1, 1]"), Insert("[1, 9, 9, null, 9, null]")},
              "+I[1, 1, 1, 5, 1, 1] @2");
  // Equal sequence: the later version wins.
  ExpectMerge(table, {Insert("[1, 1, 1, 5, 1, 1]"), Insert("[1, 2, null, 5, 2, 1]")},
              "+I[1, 2, null, 5, 2, 1] @2");
}

TEST(PartialUpdateTest, SeveralSequenceFieldsPerGroup) {
  ASSERT_OK_AND_ASSIGN(
      auto table,
      EngineHarness::Make({Field("k", DataType::Int()), Field("a", DataType::String()),
                           Field("s1", DataType::Int()), Field("s2", DataType::BigInt())},
                          {"k"}, With({{"fields.s1,s2.sequence-group", "a"}})));
  ExpectMerge(table, {Insert(R"([1, "x", 1, 5])"), Insert(R"([1, "y", 1, 4])")},
              "+I[1, x, 1, 5] @2");
  ExpectMerge(table, {Insert(R"([1, "x", 1, 5])"), Insert(R"([1, "y", 2, 0])")},
              "+I[1, y, 2, 0] @2");
  // Nulls first: (1, null) is below (1, 5).
  ExpectMerge(table, {Insert(R"([1, "x", 1, 5])"), Insert(R"([1, "y", 1, null])")},
              "+I[1, x, 1, 5] @2");
}

TEST(PartialUpdateTest, AggregateFunctionsInsideGroups) {
  ASSERT_OK_AND_ASSIGN(auto table, Grouped({{"fields.a.aggregate-function", "sum"},
                                            {"fields.b.aggregate-function", "first_value"},
                                            {"fields.c.aggregate-function", "max"}}));
  // An older g1 version still folds into a and b, reversed: being older, its b is the first.
  ExpectMerge(table, {Insert("[1, 1, 10, 5, 3, 1]"), Insert("[1, 2, 20, 4, 7, 2]")},
              "+I[1, 3, 20, 5, 7, 2] @2");
  // Retracts: sum subtracts, first_value cannot retract.
  auto merged =
      table.Merge({Insert("[1, 1, 10, 5, 3, 1]"), UpdateBefore("[1, 1, 10, 6, null, null]")});
  ASSERT_TRUE(merged.status().IsInvalid());
  EXPECT_NE(merged.status().message().find("fields.b.ignore-retract"), std::string::npos);
}

TEST(PartialUpdateTest, GroupRetractNullsOrRetractsColumns) {
  ASSERT_OK_AND_ASSIGN(auto table, Grouped({{"fields.a.aggregate-function", "sum"}}));
  // Newer -U: b is nulled, a retracted, the sequence taken; g2 untouched (null sequence).
  ExpectMerge(table, {Insert("[1, 5, 7, 1, 3, 1]"), UpdateBefore("[1, 2, 7, 2, null, null]")},
              "+I[1, 3, null, 2, 3, 1] @2");
  // Older -U: only aggregated columns retract.
  ExpectMerge(table, {Insert("[1, 5, 7, 3, 3, 1]"), UpdateBefore("[1, 2, 7, 2, null, null]")},
              "+I[1, 3, 7, 3, 3, 1] @2");
  // Only retracts: a delete record.
  ExpectMerge(table, {UpdateBefore("[1, 5, 7, 3, 3, 1]"), Delete("[1, 2, 7, 4, null, null]")},
              "-D[1, -2, null, 4, null, 1] @2");
}

TEST(PartialUpdateTest, RemoveRecordOnSequenceGroup) {
  ASSERT_OK_AND_ASSIGN(auto table,
                       Grouped({{"partial-update.remove-record-on-sequence-group", "g1"}}));
  ExpectMerge(table, {Insert("[1, 5, 7, 1, 3, 1]"), Delete("[1, null, null, 2, null, null]")},
              "-D[1, null, null, 2, null, null] @2");
  // An older delete of g1 does not remove the row; a delete of g2 retracts g2 only.
  ExpectMerge(table, {Insert("[1, 5, 7, 3, 3, 1]"), Delete("[1, null, null, 2, null, null]")},
              "+I[1, 5, 7, 3, 3, 1] @2");
  ExpectMerge(table, {Insert("[1, 5, 7, 3, 3, 1]"), Delete("[1, null, null, null, 3, 2]")},
              "+I[1, 5, 7, 3, null, 2] @2");
}

TEST(PartialUpdateTest, DefaultAggregateFunction) {
  // last_non_null_value needs no group.
  ASSERT_OK_AND_ASSIGN(auto table,
                       Simple({{"fields.default-aggregate-function", "last_non_null_value"}}));
  ExpectMerge(table, {Insert("[1, 1, null]"), Insert(R"([1, null, "x"])")}, "+I[1, 1, x] @2");
  // Anything else does, for every column outside a group.
  auto bad = Grouped({{"fields.default-aggregate-function", "sum"}});
  EXPECT_TRUE(bad.ok()) << bad.status().ToString();  // every non-key column is in a group
  auto no_group = Simple({{"fields.default-aggregate-function", "sum"}});
  ASSERT_TRUE(no_group.status().IsInvalid());
  EXPECT_NE(no_group.status().message().find("fields.default-aggregate-function"),
            std::string::npos);
}

TEST(PartialUpdateTest, InvalidOptions) {
  auto expect_invalid = [](Result<EngineHarness> made, const std::string& needle) {
    ASSERT_TRUE(made.status().IsInvalid()) << needle << ": " << made.status().ToString();
    EXPECT_NE(made.status().message().find(needle), std::string::npos) << made.status().ToString();
  };
  expect_invalid(Simple({{"fields.a.aggregate-function", "sum"}}), "fields.a.aggregate-function");
  expect_invalid(Simple({{"fields.a.sequence-group", "k"}}), "primary key");
  expect_invalid(Simple({{"fields.a.sequence-group", "nope"}}), "nope");
  expect_invalid(Simple({{"fields.zz.sequence-group", "b"}}), "zz");
  expect_invalid(Grouped({{"fields.a.sequence-group", "c"}}), "multiple");
  expect_invalid(
      Simple({{"ignore-delete", "true"}, {"partial-update.remove-record-on-delete", "true"}}),
      "conflicting");
  expect_invalid(Grouped({{"partial-update.remove-record-on-delete", "true"}}), "conflicting");
  expect_invalid(Grouped({{"ignore-delete", "true"},
                          {"partial-update.remove-record-on-sequence-group", "g1"}}),
                 "conflicting");
  expect_invalid(Grouped({{"partial-update.remove-record-on-sequence-group", "a"}}),
                 "partial-update.remove-record-on-sequence-group");
  expect_invalid(Grouped({{"fields.a.aggregate-function", "no_such"}}), "no_such");
  expect_invalid(Grouped({{"fields.a.aggregate-function", "bool_or"}}), "BOOLEAN");
  expect_invalid(Simple({{"partial-update.remove-record-on-delete", "maybe"}}),
                 "partial-update.remove-record-on-delete");
}

}  // namespace
}  // namespace freshet::mergetree
