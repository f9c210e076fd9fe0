#include <gtest/gtest.h>

#include "freshet/result.h"
#include "freshet/status.h"

namespace freshet {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::Invalid("value ", v, " is not positive");
  return v;
}

Result<int> Doubled(int v) {
  FRESHET_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  return 2 * x;
}

TEST(StatusTest, OkIsCheapAndPrintsOk) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status st = Status::NotFound("snapshot ", 7, " of '/t' does not exist");
  EXPECT_TRUE(st.IsNotFound());
  EXPECT_EQ(st.ToString(), "NotFound: snapshot 7 of '/t' does not exist");
  EXPECT_EQ(st.WithContext("scan").message(), "scan: snapshot 7 of '/t' does not exist");
}

TEST(ResultTest, PropagatesErrorsThroughAssignOrReturn) {
  EXPECT_EQ(*Doubled(4), 8);
  Result<int> bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "value -1 is not positive");
}

}  // namespace
}  // namespace freshet
