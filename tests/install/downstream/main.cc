// Uses only the installed public headers: creates a table, reads its (empty) latest snapshot and
// checks the Arrow schema handed out through the C Data Interface; and that Parquet's page CRCs and
// codecs reach libfreshet's replacements of Arrow's CRC-32 and codec factory
// (src/format/parquet_page_crc.h, src/format/zstd_codec.h).
#include <dlfcn.h>
#include <freshet/table.h>
#include <freshet/version.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// Whether the dynamic linker binds libparquet's calls of `symbol` to libfreshet.
bool BoundToLibfreshet(const char* symbol) {
  void* definition = dlsym(RTLD_DEFAULT, symbol);
  Dl_info library{};
  return definition != nullptr && dladdr(definition, &library) != 0 &&
         std::strstr(library.dli_fname, "libfreshet") != nullptr;
}

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
  const bool crc_ok = BoundToLibfreshet("_ZN5arrow8internal5crc32EjPKvm");
  const bool codec_ok =
      BoundToLibfreshet("_ZN5arrow4util5Codec6CreateENS_11Compression4typeERKNS0_12CodecOptionsE");
  std::printf(
      "freshet %s: created %s, schema ok: %d, rows before any commit: %s, page CRCs by %s, codecs "
      "by %s\n",
      freshet::Version(), path.c_str(), shape_ok, *more ? "some" : "none",
      crc_ok ? "libfreshet" : "Arrow", codec_ok ? "libfreshet" : "Arrow");
  std::system(("rm -rf " + std::string(dir)).c_str());
  return shape_ok && !*more && crc_ok && codec_ok ? 0 : 1;
}
