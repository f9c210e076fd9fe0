#include "textrows/csv_reader.h"

#include <utility>

namespace freshet::textrows {

namespace {
constexpr size_t kChunkBytes = 1 << 16;
}  // namespace

CsvReader::CsvReader(std::istream* in, std::string source) : in_(in), source_(std::move(source)) {}

bool CsvReader::Fill() {
  if (pos_ < buffer_.size()) return true;
  buffer_.resize(kChunkBytes);
  in_->read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
  buffer_.resize(static_cast<size_t>(in_->gcount()));
  pos_ = 0;
  return !buffer_.empty();
}

int CsvReader::Peek() { return Fill() ? static_cast<unsigned char>(buffer_[pos_]) : kEnd; }

int CsvReader::Get() {
  int c = Peek();
  if (c == kEnd) return c;
  ++pos_;
  ++bytes_read_;
  if (c == '\n') ++line_;
  return c;
}

Status CsvReader::Error(int64_t line, const std::string& message) const {
  return Status::Invalid(source_, ":", line, ": ", message);
}

Result<bool> CsvReader::Next(CsvRecord* record) {
  record->fields.clear();
  if (!started_) {
    started_ = true;
    if (Fill() && buffer_.compare(pos_, 3, "\xEF\xBB\xBF") == 0) {
      pos_ += 3;
      bytes_read_ += 3;
    }
  }
  if (Peek() == kEnd) {
    if (in_->bad()) return Status::IOError("cannot read '", source_, "'");
    return false;
  }
  record->line = line_;
  while (true) {
    CsvField& field = record->fields.emplace_back();
    int c = Get();
    if (c == '"') {
      field.quoted = true;
      int64_t opened = line_;
      while (true) {
        c = Get();
        if (c == kEnd) {
          return Error(opened, "unterminated quoted field (the input ends inside quotes)");
        }
        if (c == '"') {
          if (Peek() != '"') break;
          Get();
        }
        field.text += static_cast<char>(c);
      }
      c = Get();
      if (c == '\r' && Peek() == '\n') c = Get();
      if (c != ',' && c != '\n' && c != kEnd) {
        return Error(line_, "field " + std::to_string(record->fields.size()) +
                                ": a closing quote must be followed by a comma or a line end");
      }
    } else {
      while (c != ',' && c != '\n' && c != kEnd) {
        if (c == '\r' && Peek() == '\n') {
          c = Get();
          break;
        }
        if (c == '"') {
          return Error(line_, "field " + std::to_string(record->fields.size()) +
                                  ": a quote inside an unquoted field (quote the whole field "
                                  "and double the quote)");
        }
        field.text += static_cast<char>(c);
        c = Get();
      }
    }
    if (c != ',') return true;  // a line end or the end of the input
  }
}

}  // namespace freshet::textrows
