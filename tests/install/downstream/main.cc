// Uses only the installed public headers: creates a table, reads its (empty) latest snapshot and
// checks the Arrow schema handed out through the C Data Interface.
#include <freshet/table.h>
#include <freshet/version.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int Fail(const char* what, const freshet::Status& status) {
  std::fprintf(stderr, "downstream: %s: %s\n", what, status.ToString().c_str());
  return 1;
}

}  // namespace

int main() {
  char dir_template[] = "/tmp/freshet-downstream-XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (dir == nullptr) return 1;
  std::string path = std::string(dir) + "/db.db/t";
  auto table = freshet::Table::Create(
      path, R"({"fields": [{"name": "id", "type": "BIGINT"}, {"name": "s", "type": "STRING"}]})");
  if (!table.ok()) return Fail("create", table.status());
  ArrowSchema schema;
  if (auto st = (*table)->ExportArrowSchema(&schema); !st.ok()) return Fail("schema", st);
  bool shape_ok = schema.n_children == 2 && std::strcmp(schema.children[0]->format, "l") == 0 &&
                  std::strcmp(schema.children[1]->format, "u") == 0;
  schema.release(&schema);
  auto reader = (*table)->NewReader();
  if (!reader.ok()) return Fail("reader", reader.status());
  ArrowArray batch;
  auto more = (*reader)->Next(&batch);
  if (!more.ok()) return Fail("next", more.status());
  std::printf("freshet %s: created %s, schema ok: %d, rows before any commit: %s\n",
              freshet::Version(), path.c_str(), shape_ok, *more ? "some" : "none");
  std::system(("rm -rf " + std::string(dir)).c_str());
  return shape_ok && !*more ? 0 : 1;
}
