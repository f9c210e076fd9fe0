// Adapters that let Arrow's Parquet and ORC code read and write through freshet's FileIO.
#pragma once

#include <arrow/io/type_fwd.h>

#include <cstdint>
#include <memory>

#include "freshet/status.h"

namespace freshet::io {
class OutputStream;
class RandomAccessFile;
}  // namespace freshet::io

namespace freshet::bridge {

// An Arrow output stream writing into `out`, which is not owned and must outlive the adapter.
// Closing the adapter does not close `out`: the owner of `out` decides when the file is done.
std::shared_ptr<arrow::io::OutputStream> MakeArrowOutputStream(io::OutputStream* out);

// An Arrow random-access file over `file`, whose size is known (from a manifest or a listing)
// so that opening a data file costs no extra size lookup.
std::shared_ptr<arrow::io::RandomAccessFile> MakeArrowInputFile(
    std::shared_ptr<io::RandomAccessFile> file, int64_t size);

// The first read of `file` (made by MakeArrowInputFile) that failed, as the file system reported
// it; OK while none did, or for another kind of file. A decoder error over a file whose reads all
// succeeded is the bytes' own: callers report it as Corruption, not as the IOError (which callers
// may retry) that Arrow's Parquet code turns both into.
Status ReadErrorOf(const arrow::io::RandomAccessFile& file);

}  // namespace freshet::bridge
