// Avro object container files (manifests, manifest lists, Avro data files): any bytes must give
// records or a clean error; records that were read must survive a write and a re-read unchanged.
#include "container/avro/avro_file.h"
#include "fuzz_target.h"

using freshet::container::avro::AvroFileWriter;
using freshet::container::avro::AvroReaderOptions;
using freshet::container::avro::ReadAvroFile;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  AvroReaderOptions options;
  options.max_block_bytes = 4 << 20;  // keep each run small; the limit itself is under test
  auto contents = ReadAvroFile(freshet::fuzz::AsText(data, size), "fuzz.avro", options);
  if (!contents.ok()) return 0;

  auto writer = AvroFileWriter::Make(contents->schema);
  if (!writer.ok())
    freshet::fuzz::PropertyViolated("a schema that was read cannot be written", writer.status());
  for (const auto& record : contents->records) {
    auto appended = (*writer)->Append(record);
    if (!appended.ok())
      freshet::fuzz::PropertyViolated("a record that was read cannot be written", appended);
  }
  auto bytes = (*writer)->Finish();
  if (!bytes.ok()) freshet::fuzz::PropertyViolated("finishing the re-written file", bytes.status());
  auto reread = ReadAvroFile(*bytes, "rewritten.avro");
  if (!reread.ok())
    freshet::fuzz::PropertyViolated("the re-written file does not read", reread.status());
  if (reread->records != contents->records)
    freshet::fuzz::PropertyViolated("records changed in a round trip");
  return 0;
}
