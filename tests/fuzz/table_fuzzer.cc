// Whole tables: damages one file of small Parquet and ORC tables (table_corruption.h) and reads
// every snapshot. Input: one byte choosing the file, then up to 8 damages of 6 bytes each (kind,
// 32-bit little-endian offset, value), so that inputs stay meaningful across runs whatever the
// random parts of the tables' file names.
#include <cstring>
#include <filesystem>
#include <memory>

#include "fuzz/table_corruption.h"
#include "fuzz_target.h"

namespace {

std::unique_ptr<freshet::fuzz::CorruptionSubject> subject;
std::filesystem::path subject_dir;

void RemoveSubject() {
  std::error_code ignored;
  std::filesystem::remove_all(subject_dir, ignored);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "freshet-fuzz-XXXXXX").string();
  if (!mkdtemp(dir_template.data())) freshet::fuzz::PropertyViolated("cannot make a temp dir");
  subject_dir = dir_template;
  std::atexit(RemoveSubject);
  auto made = freshet::fuzz::CorruptionSubject::Make(subject_dir.string());
  if (!made.ok()) freshet::fuzz::PropertyViolated("cannot build the tables", made.status());
  subject = std::move(*made);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using freshet::fuzz::Mutation;
  if (size < 1) return 0;
  const size_t index = data[0] % subject->files().size();
  std::string content = subject->files()[index].content;
  for (size_t at = 1; at + 6 <= size && at < 1 + 8 * 6; at += 6) {
    Mutation mutation;
    mutation.kind = static_cast<Mutation::Kind>(data[at] % 6);
    std::memcpy(&mutation.offset, data + at + 1, 4);
    mutation.value = data[at + 5];
    content = freshet::fuzz::ApplyMutation(std::move(content), mutation);
  }
  freshet::fuzz::DamageReport report = subject->CheckReplaced(index, content);
  if (!report.violation.empty()) {
    freshet::fuzz::PropertyViolated(report.violation + " (" + subject->files()[index].kind +
                                    " file " + subject->files()[index].path + ")");
  }
  return 0;
}
