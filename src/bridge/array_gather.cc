#include "bridge/array_gather.h"

#include <arrow/api.h>
#include <arrow/util/bit_util.h>
#include <arrow/util/bitmap_ops.h>

#include <cstring>
#include <limits>
#include <vector>

#include "common/arrow_status.h"

namespace freshet::bridge {

namespace {

// The byte width of types stored as one buffer of fixed-width values beside the validity bitmap,
// or 0 for any other layout (booleans are bit-packed, so they take the builder path too).
int FixedByteWidth(const arrow::DataType& type) {
  bool fixed = (arrow::is_primitive(type.id()) && type.id() != arrow::Type::BOOL) ||
               arrow::is_decimal(type.id()) || type.id() == arrow::Type::FIXED_SIZE_BINARY;
  if (!fixed) return 0;
  int bits = static_cast<const arrow::FixedWidthType&>(type).bit_width();
  return bits % 8 == 0 ? bits / 8 : 0;
}

// Copies sizeof(Word) <= bytes <= 2 * sizeof(Word) bytes with two word moves that may overlap.
template <typename Word>
void CopyHeadAndTail(uint8_t* out, const uint8_t* in, size_t bytes) {
  Word head, tail;
  std::memcpy(&head, in, sizeof(Word));
  std::memcpy(&tail, in + bytes - sizeof(Word), sizeof(Word));
  std::memcpy(out, &head, sizeof(Word));
  std::memcpy(out + bytes - sizeof(Word), &tail, sizeof(Word));
}

// Ranges are read this many ahead of the one copied, as a prefetch: the ranges of a sort or a
// merge jump between sources and rows, which the hardware prefetcher cannot follow.
constexpr size_t kPrefetchAhead = 16;

// Copies `bytes` bytes between distinct buffers. Most ranges of a merge are one row, so short
// copies are done inline rather than through a libc call.
inline void CopyBytes(uint8_t* out, const uint8_t* in, size_t bytes) {
  if (bytes > 16) {
    std::memcpy(out, in, bytes);
  } else if (bytes >= 8) {
    CopyHeadAndTail<uint64_t>(out, in, bytes);
  } else if (bytes >= 4) {
    CopyHeadAndTail<uint32_t>(out, in, bytes);
  } else {
    for (size_t i = 0; i < bytes; ++i) out[i] = in[i];
  }
}

// Appends the ranges to `builder` with one span per source rather than per range.
Status AppendRangesUnchecked(arrow::ArrayBuilder* builder,
                             const std::vector<const arrow::Array*>& sources,
                             const std::vector<RowRange>& ranges, int64_t total_rows) {
  FRESHET_RETURN_NOT_OK_ARROW(builder->Reserve(total_rows));
  std::vector<std::unique_ptr<arrow::ArraySpan>> spans(sources.size());
  for (const RowRange& range : ranges) {
    if (range.length == 0) continue;
    auto& span = spans[range.source];
    if (!span) span = std::make_unique<arrow::ArraySpan>(*sources[range.source]->data());
    FRESHET_RETURN_NOT_OK_ARROW(builder->AppendArraySlice(*span, range.start, range.length));
  }
  return Status::OK();
}

// Output buffers are written range by range; `rows` counts the rows written so far.
class GatherTarget {
 public:
  GatherTarget(const std::vector<const arrow::Array*>& sources, const std::vector<RowRange>& ranges,
               arrow::MemoryPool* pool)
      : sources_(sources), ranges_(ranges), pool_(pool) {
    for (const RowRange& range : ranges) total_rows_ += range.length;
  }

  int64_t total_rows() const { return total_rows_; }

  // The range kPrefetchAhead after range `i`, whose source rows a copy loop prefetches; null
  // near the end.
  const RowRange* RangeAhead(size_t i) const {
    return i + kPrefetchAhead < ranges_.size() ? &ranges_[i + kPrefetchAhead] : nullptr;
  }

  Result<std::shared_ptr<arrow::Buffer>> Allocate(int64_t bytes) {
    FRESHET_ASSIGN_OR_RETURN_ARROW(std::shared_ptr<arrow::Buffer> buffer,
                                   arrow::AllocateBuffer(bytes, pool_));
    return buffer;
  }

  // Copies the validity bits of every range (nullptr when no gathered row is null). Whether a
  // source has nulls is asked once per source, not per range: merges switch source almost every
  // row.
  Result<std::shared_ptr<arrow::Buffer>> GatherValidity(int64_t* null_count) {
    *null_count = 0;
    std::vector<bool> has_nulls(sources_.size());
    for (size_t i = 0; i < sources_.size(); ++i) has_nulls[i] = sources_[i]->null_count() > 0;
    bool any_nulls = false;
    for (const RowRange& range : ranges_) {
      any_nulls = any_nulls || (range.length > 0 && has_nulls[range.source]);
    }
    if (!any_nulls) return std::shared_ptr<arrow::Buffer>();
    FRESHET_ASSIGN_OR_RETURN_ARROW(std::shared_ptr<arrow::Buffer> bitmap,
                                   arrow::AllocateEmptyBitmap(total_rows_, pool_));
    uint8_t* bits = bitmap->mutable_data();
    int64_t row = 0;
    for (const RowRange& range : ranges_) {
      const arrow::Array& source = *sources_[range.source];
      if (!has_nulls[range.source]) {
        arrow::bit_util::SetBitsTo(bits, row, range.length, true);
      } else {
        int64_t from = source.offset() + range.start;
        arrow::internal::CopyBitmap(source.null_bitmap_data(), from, range.length, bits, row);
        *null_count += range.length -
                       arrow::internal::CountSetBits(source.null_bitmap_data(), from, range.length);
      }
      row += range.length;
    }
    return bitmap;
  }

  Result<std::shared_ptr<arrow::Array>> GatherFixedWidth(
      const std::shared_ptr<arrow::DataType>& type, int width) {
    FRESHET_ASSIGN_OR_RETURN(auto values, Allocate(total_rows_ * width));
    uint8_t* out = values->mutable_data();
    std::vector<const uint8_t*> first_value(sources_.size());  // of each source, at its offset
    for (size_t i = 0; i < sources_.size(); ++i) {
      first_value[i] = sources_[i]->data()->GetValues<uint8_t>(1, sources_[i]->offset() * width);
    }
    for (size_t i = 0; i < ranges_.size(); ++i) {
      if (const RowRange* ahead = RangeAhead(i)) {
        __builtin_prefetch(first_value[ahead->source] + ahead->start * width);
      }
      const RowRange& range = ranges_[i];
      if (range.length == 0) continue;
      CopyBytes(out, first_value[range.source] + range.start * width,
                static_cast<size_t>(range.length * width));
      out += range.length * width;
    }
    int64_t null_count = 0;
    FRESHET_ASSIGN_OR_RETURN(auto validity, GatherValidity(&null_count));
    return arrow::MakeArray(arrow::ArrayData::Make(
        type, total_rows_, {std::move(validity), std::move(values)}, null_count));
  }

  // STRING / BINARY (int32 offsets) and their LARGE_ forms (int64).
  template <typename Offset>
  Result<std::shared_ptr<arrow::Array>> GatherBinary(const std::shared_ptr<arrow::DataType>& type) {
    std::vector<const Offset*> source_offsets(sources_.size());  // at each source's offset
    std::vector<const uint8_t*> source_data(sources_.size());
    for (size_t i = 0; i < sources_.size(); ++i) {
      source_offsets[i] = sources_[i]->data()->GetValues<Offset>(1);
      source_data[i] = sources_[i]->data()->GetValues<uint8_t>(2, 0);
    }
    int64_t data_bytes = 0;
    for (size_t i = 0; i < ranges_.size(); ++i) {
      if (const RowRange* ahead = RangeAhead(i)) {
        __builtin_prefetch(source_offsets[ahead->source] + ahead->start);
      }
      const RowRange& range = ranges_[i];
      if (range.length == 0) continue;
      const Offset* offsets = source_offsets[range.source];
      // The values are copied by the pass below; a batch's worth stays in cache until then.
      __builtin_prefetch(source_data[range.source] + offsets[range.start]);
      data_bytes += offsets[range.start + range.length] - offsets[range.start];
    }
    if (data_bytes > std::numeric_limits<Offset>::max()) {
      return Status::Invalid("gathered ", data_bytes, " bytes of ", type->ToString(),
                             " values, more than its offsets can address");
    }
    FRESHET_ASSIGN_OR_RETURN(auto offsets_buffer,
                             Allocate((total_rows_ + 1) * static_cast<int64_t>(sizeof(Offset))));
    FRESHET_ASSIGN_OR_RETURN(auto data_buffer, Allocate(data_bytes));
    auto* out_offsets = reinterpret_cast<Offset*>(offsets_buffer->mutable_data());
    uint8_t* out_data = data_buffer->mutable_data();
    Offset position = 0;
    for (const RowRange& range : ranges_) {
      if (range.length == 0) continue;
      const Offset* offsets = source_offsets[range.source] + range.start;
      const Offset first = offsets[0];
      const Offset bytes = offsets[range.length] - first;
      if (bytes > 0) {
        CopyBytes(out_data + position, source_data[range.source] + first,
                  static_cast<size_t>(bytes));
      }
      for (int64_t row = 0; row < range.length; ++row) {
        *out_offsets++ = static_cast<Offset>(position + (offsets[row] - first));
      }
      position = static_cast<Offset>(position + bytes);
    }
    *out_offsets = position;
    int64_t null_count = 0;
    FRESHET_ASSIGN_OR_RETURN(auto validity, GatherValidity(&null_count));
    return arrow::MakeArray(arrow::ArrayData::Make(
        type, total_rows_, {std::move(validity), std::move(offsets_buffer), std::move(data_buffer)},
        null_count));
  }

  // Any other type: a builder (AppendRangesUnchecked).
  Result<std::shared_ptr<arrow::Array>> GatherWithBuilder(
      const std::shared_ptr<arrow::DataType>& type) {
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto builder, arrow::MakeBuilder(type, pool_));
    FRESHET_RETURN_NOT_OK(AppendRangesUnchecked(builder.get(), sources_, ranges_, total_rows_));
    FRESHET_ASSIGN_OR_RETURN_ARROW(auto array, builder->Finish());
    return array;
  }

 private:
  const std::vector<const arrow::Array*>& sources_;
  const std::vector<RowRange>& ranges_;
  arrow::MemoryPool* pool_;
  int64_t total_rows_ = 0;
};

Status CheckInputs(const arrow::DataType& type, const std::vector<const arrow::Array*>& sources,
                   const std::vector<RowRange>& ranges) {
  for (const arrow::Array* source : sources) {
    if (source->type().get() != &type && !source->type()->Equals(type)) {
      return Status::Invalid("cannot gather rows of ", source->type()->ToString(), " into ",
                             type.ToString());
    }
  }
  for (const RowRange& range : ranges) {
    if (range.source >= sources.size()) {
      return Status::Invalid("a row range names source ", range.source, " of ", sources.size());
    }
    if (range.start < 0 || range.length < 0 ||
        range.start + range.length > sources[range.source]->length()) {
      return Status::Invalid("row range [", range.start, ", ", range.start + range.length,
                             ") is not within the ", sources[range.source]->length(),
                             " rows of its source");
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> GatherRanges(const std::shared_ptr<arrow::DataType>& type,
                                                   const std::vector<const arrow::Array*>& sources,
                                                   const std::vector<RowRange>& ranges,
                                                   arrow::MemoryPool* pool) {
  FRESHET_RETURN_NOT_OK(CheckInputs(*type, sources, ranges));
  GatherTarget target(sources, ranges, pool);
  if (int width = FixedByteWidth(*type); width > 0) return target.GatherFixedWidth(type, width);
  switch (type->id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return target.GatherBinary<int32_t>(type);
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return target.GatherBinary<int64_t>(type);
    default:
      return target.GatherWithBuilder(type);
  }
}

Status AppendRanges(arrow::ArrayBuilder* builder, const std::vector<const arrow::Array*>& sources,
                    const std::vector<RowRange>& ranges) {
  FRESHET_RETURN_NOT_OK(CheckInputs(*builder->type(), sources, ranges));
  int64_t rows = 0;
  for (const RowRange& range : ranges) rows += range.length;
  return AppendRangesUnchecked(builder, sources, ranges, rows);
}

}  // namespace freshet::bridge
