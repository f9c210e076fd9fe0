#include "scan/predicate.h"

#include <cstring>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "meta/row/binary_row.h"
#include "meta/row/value_compare.h"
#include "meta/row/value_text.h"

namespace freshet::scan {

using meta::DataType;
using meta::TypeRoot;
using meta::Value;

const char* CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq:
      return "=";
    case CompareOp::kNe:
      return "!=";
    case CompareOp::kLt:
      return "<";
    case CompareOp::kLe:
      return "<=";
    case CompareOp::kGt:
      return ">";
    case CompareOp::kGe:
      return ">=";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Parser: recursive descent over a small tokenizer.
namespace {

struct Token {
  enum class Kind { kEnd, kIdent, kQuotedIdent, kString, kNumber, kSymbol };
  Kind kind = Kind::kEnd;
  std::string text;  // identifier / string contents, number text, symbol
  size_t pos = 0;    // 0-based offset in the input

  bool IsKeyword(std::string_view word) const {
    if (kind != Kind::kIdent || text.size() != word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(text[i])) != word[i]) return false;
    }
    return true;
  }
  bool IsSymbol(std::string_view s) const { return kind == Kind::kSymbol && text == s; }
  std::string Describe() const {
    switch (kind) {
      case Kind::kEnd:
        return "end of input";
      case Kind::kString:
        return "string '" + text + "'";
      case Kind::kQuotedIdent:
        return "`" + text + "`";
      default:
        return "'" + text + "'";
    }
  }
};

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

Status ErrorAt(size_t pos, const std::string& message) {
  return Status::Invalid("filter: at position ", pos + 1, ": ", message);
}

// Reads a quoted run starting at text[pos] (the opening quote); a doubled quote is one quote.
Result<Token> ReadQuoted(std::string_view text, size_t pos, Token::Kind kind) {
  char quote = text[pos];
  Token token{kind, "", pos};
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (text[i] != quote) {
      token.text.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == quote) {
      token.text.push_back(quote);
      ++i;
    } else {
      return token;
    }
  }
  return ErrorAt(pos, std::string("unterminated ") +
                          (kind == Token::Kind::kString ? "string" : "quoted identifier"));
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  tokens.reserve(8);  // a comparison and the end in one allocation
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '\'' || c == '`') {
      FRESHET_ASSIGN_OR_RETURN(
          Token t,
          ReadQuoted(text, i, c == '\'' ? Token::Kind::kString : Token::Kind::kQuotedIdent));
      size_t consumed = 2;  // the quotes, plus every character (a doubled quote counts twice)
      for (char ch : t.text) consumed += ch == c ? 2 : 1;
      tokens.push_back(std::move(t));
      i += consumed;
    } else if (IsIdentStart(c)) {
      size_t start = i;
      while (i < text.size() && IsIdentChar(text[i])) ++i;
      tokens.push_back({Token::Kind::kIdent, std::string(text.substr(start, i - start)), start});
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
               ((c == '-' || c == '+') && i + 1 < text.size() &&
                (std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '.'))) {
      size_t start = i++;
      while (i < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
              ((text[i] == '-' || text[i] == '+') && (text[i - 1] == 'e' || text[i - 1] == 'E')))) {
        ++i;
      }
      tokens.push_back({Token::Kind::kNumber, std::string(text.substr(start, i - start)), start});
    } else {
      static const char* kSymbols[] = {"<=", ">=", "<>", "!=", "==", "=", "<", ">", "(", ")", ","};
      bool matched = false;
      for (const char* s : kSymbols) {
        if (text.substr(i).starts_with(s)) {
          tokens.push_back({Token::Kind::kSymbol, s, i});
          i += std::string_view(s).size();
          matched = true;
          break;
        }
      }
      if (!matched) return ErrorAt(i, std::string("unexpected character '") + c + "'");
    }
  }
  tokens.push_back({Token::Kind::kEnd, "", text.size()});
  return tokens;
}

class Parser {
 public:
  static constexpr int kMaxPredicateDepth = 256;

  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Result<Expr> ParseAll() {
    FRESHET_ASSIGN_OR_RETURN(Expr e, ParseOr());
    if (Peek().kind != Token::Kind::kEnd) {
      return Expected("AND, OR or end of input");
    }
    return e;
  }

 private:
  const Token& Peek() const { return tokens_[pos_]; }
  const Token& Take() { return tokens_[pos_++]; }
  Status Expected(const std::string& what) const {
    return ErrorAt(Peek().pos, "expected " + what + ", found " + Peek().Describe());
  }

  // Folds `child (KEYWORD child)*` into one n-ary node.
  Result<Expr> ParseChain(const char* keyword, Expr::Kind kind, Result<Expr> (Parser::*child)()) {
    FRESHET_ASSIGN_OR_RETURN(Expr first, (this->*child)());
    if (!Peek().IsKeyword(keyword)) return first;
    Expr node;
    node.kind = kind;
    node.children.push_back(std::move(first));
    while (Peek().IsKeyword(keyword)) {
      Take();
      FRESHET_ASSIGN_OR_RETURN(Expr next, (this->*child)());
      node.children.push_back(std::move(next));
    }
    return node;
  }
  Result<Expr> ParseOr() { return ParseChain("OR", Expr::Kind::kOr, &Parser::ParseAnd); }
  Result<Expr> ParseAnd() { return ParseChain("AND", Expr::Kind::kAnd, &Parser::ParseNot); }

  // Every NOT and every '(' nests one level, in this parser and in everything that walks the
  // tree afterwards (binding, pruning, filtering): bounded so that no input exhausts the stack.
  Status Nest() {
    if (++depth_ > kMaxPredicateDepth) {
      return ErrorAt(Peek().pos, "the filter nests NOT and parentheses deeper than " +
                                     std::to_string(kMaxPredicateDepth) + " levels");
    }
    return Status::OK();
  }

  Result<Expr> ParseNot() {
    if (!Peek().IsKeyword("NOT")) return ParsePrimary();
    Take();
    FRESHET_RETURN_NOT_OK(Nest());
    FRESHET_ASSIGN_OR_RETURN(Expr child, ParseNot());
    --depth_;
    Expr node;
    node.kind = Expr::Kind::kNot;
    node.children.push_back(std::move(child));
    return node;
  }

  Result<Expr> ParsePrimary() {
    if (Peek().IsSymbol("(")) {
      Take();
      FRESHET_RETURN_NOT_OK(Nest());
      FRESHET_ASSIGN_OR_RETURN(Expr inner, ParseOr());
      if (!Peek().IsSymbol(")")) return Expected("')'");
      Take();
      --depth_;
      return inner;
    }
    const Token& t = Peek();
    bool reserved = t.IsKeyword("AND") || t.IsKeyword("OR") || t.IsKeyword("NOT") ||
                    t.IsKeyword("IN") || t.IsKeyword("IS") || t.IsKeyword("NULL");
    if ((t.kind != Token::Kind::kIdent || reserved) && t.kind != Token::Kind::kQuotedIdent) {
      return Expected("a column name or '('");
    }
    Expr leaf;
    leaf.column = Take().text;
    return ParseLeafRest(std::move(leaf));
  }

  Result<Expr> ParseLeafRest(Expr leaf) {
    if (Peek().IsKeyword("IS")) {
      Take();
      bool negated = Peek().IsKeyword("NOT");
      if (negated) Take();
      if (!Peek().IsKeyword("NULL")) return Expected(negated ? "NULL" : "NULL or NOT NULL");
      Take();
      leaf.kind = negated ? Expr::Kind::kIsNotNull : Expr::Kind::kIsNull;
      return leaf;
    }
    if (Peek().IsKeyword("NOT") || Peek().IsKeyword("IN")) return ParseIn(std::move(leaf));
    static const std::pair<const char*, CompareOp> kOps[] = {
        {"=", CompareOp::kEq},  {"==", CompareOp::kEq}, {"!=", CompareOp::kNe},
        {"<>", CompareOp::kNe}, {"<", CompareOp::kLt},  {"<=", CompareOp::kLe},
        {">", CompareOp::kGt},  {">=", CompareOp::kGe}};
    for (const auto& [symbol, op] : kOps) {
      if (!Peek().IsSymbol(symbol)) continue;
      Take();
      leaf.kind = Expr::Kind::kCompare;
      leaf.op = op;
      FRESHET_ASSIGN_OR_RETURN(Literal literal, ParseLiteral());
      leaf.literals.push_back(std::move(literal));
      return leaf;
    }
    return Expected("a comparison operator (=, !=, <>, <, <=, >, >=), IN, NOT IN or IS");
  }

  // `[NOT] IN (literal, ...)`; NOT IN becomes NOT(IN), which has the same three-valued result.
  Result<Expr> ParseIn(Expr leaf) {
    bool negated = Peek().IsKeyword("NOT");
    if (negated) Take();
    if (!Peek().IsKeyword("IN")) return Expected("IN");
    Take();
    if (!Peek().IsSymbol("(")) return Expected("'(' after IN");
    Take();
    leaf.kind = Expr::Kind::kIn;
    while (true) {
      FRESHET_ASSIGN_OR_RETURN(Literal literal, ParseLiteral());
      leaf.literals.push_back(std::move(literal));
      if (Peek().IsSymbol(")")) break;
      if (!Peek().IsSymbol(",")) return Expected("',' or ')'");
      Take();
    }
    Take();
    if (!negated) return leaf;
    Expr node;
    node.kind = Expr::Kind::kNot;
    node.children.push_back(std::move(leaf));
    return node;
  }

  Result<Literal> ParseLiteral() {
    const Token& t = Peek();
    Literal literal;
    if (t.kind == Token::Kind::kString) {
      literal = {Literal::Kind::kString, t.text};
    } else if (t.kind == Token::Kind::kNumber) {
      literal = {Literal::Kind::kNumber, t.text};
    } else if (t.IsKeyword("TRUE") || t.IsKeyword("FALSE")) {
      literal = {Literal::Kind::kBoolean, t.IsKeyword("TRUE") ? "TRUE" : "FALSE"};
    } else if (t.IsKeyword("NULL")) {
      literal = {Literal::Kind::kNull, "NULL"};
    } else {
      return Expected("a literal (number, 'string', TRUE, FALSE or NULL)");
    }
    Take();
    return literal;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;  // NOT and parentheses open around the current position
};

}  // namespace

Result<Expr> ParsePredicate(std::string_view text) {
  FRESHET_ASSIGN_OR_RETURN(auto tokens, Tokenize(text));
  if (tokens.size() == 1) return ErrorAt(0, "expected an expression, found end of input");
  return Parser(std::move(tokens)).ParseAll();
}

// ---------------------------------------------------------------------------------------------
// Binding: literals typed by their column.
namespace {

template <typename... Args>
Status LiteralError(const meta::DataField& field, const Literal& literal, Args&&... args) {
  std::string shown =
      literal.kind == Literal::Kind::kString ? "'" + literal.text + "'" : literal.text;
  return Status::Invalid("filter: column '", field.name, "' is ",
                         field.type->WithNullable(true)->ToString(), "; ", shown, " ",
                         std::forward<Args>(args)...);
}

Result<int64_t> ToInteger(const meta::DataField& field, const Literal& literal, int64_t lo,
                          int64_t hi) {
  int64_t v = 0;
  const std::string& s = literal.text;
  size_t start = !s.empty() && s[0] == '+' ? 1 : 0;
  auto [end, ec] = std::from_chars(s.data() + start, s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return LiteralError(field, literal, "is out of range");
  if (ec != std::errc() || end != s.data() + s.size()) {
    return LiteralError(field, literal, "is not an integer");
  }
  if (v < lo || v > hi) return LiteralError(field, literal, "is out of range");
  return v;
}

Result<double> ToDouble(const meta::DataField& field, const Literal& literal) {
  const std::string& s = literal.text;
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return std::numeric_limits<double>::infinity();
  if (s == "-Infinity") return -std::numeric_limits<double>::infinity();
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size()) {
    return LiteralError(field, literal, "is not a number");
  }
  return v;
}

// [+-]digits[.digits]
bool IsPlainDecimal(std::string_view s) {
  size_t i = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  size_t digits = 0, dots = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == '.') {
      ++dots;
    } else if (std::isdigit(static_cast<unsigned char>(s[i]))) {
      ++digits;
    } else {
      return false;
    }
  }
  return digits > 0 && dots <= 1;
}

Result<int32_t> ToDate(const meta::DataField& field, const Literal& literal) {
  if (auto day = meta::ParseDateText(literal.text)) return *day;
  return LiteralError(field, literal, "is not a date (YYYY-MM-DD)");
}

// "HH:MM[:SS[.fff]]" as the millisecond of the day.
Result<int32_t> ToTime(const meta::DataField& field, const Literal& literal) {
  if (auto millis = meta::ParseTimeText(literal.text, 3)) return *millis;
  return LiteralError(field, literal, "is not a time (HH:MM:SS[.fff])");
}

Result<meta::Timestamp> ToTimestamp(const meta::DataField& field, const Literal& literal) {
  std::string text = literal.text;
  if (meta::ParseDateText(text)) text += " 00:00";  // a bare date means its midnight
  const bool ltz = field.type->root() == TypeRoot::kTimestampLtz;
  if (auto ts = meta::ParseTimestampText(text, 9, ltz)) return *ts;
  return LiteralError(field, literal, "is not a timestamp (YYYY-MM-DD HH:MM:SS[.fffffffff])");
}

Result<Value> ToBoolean(const meta::DataField& field, const Literal& literal) {
  std::string upper;
  for (char c : literal.text) upper.push_back(static_cast<char>(std::toupper(c)));
  if (upper == "TRUE") return Value::Boolean(true);
  if (upper == "FALSE") return Value::Boolean(false);
  return LiteralError(field, literal, "is not TRUE or FALSE");
}

Result<Value> ToIntegral(const meta::DataField& field, const Literal& literal) {
  switch (field.type->root()) {
    case TypeRoot::kTinyInt: {
      FRESHET_ASSIGN_OR_RETURN(int64_t v, ToInteger(field, literal, -128, 127));
      return Value::TinyInt(static_cast<int8_t>(v));
    }
    case TypeRoot::kSmallInt: {
      FRESHET_ASSIGN_OR_RETURN(int64_t v, ToInteger(field, literal, -32768, 32767));
      return Value::SmallInt(static_cast<int16_t>(v));
    }
    case TypeRoot::kInt: {
      FRESHET_ASSIGN_OR_RETURN(int64_t v,
                               ToInteger(field, literal, std::numeric_limits<int32_t>::min(),
                                         std::numeric_limits<int32_t>::max()));
      return Value::Int(static_cast<int32_t>(v));
    }
    default: {
      FRESHET_ASSIGN_OR_RETURN(int64_t v,
                               ToInteger(field, literal, std::numeric_limits<int64_t>::min(),
                                         std::numeric_limits<int64_t>::max()));
      return Value::BigInt(v);
    }
  }
}

Result<Value> TypeLiteral(const meta::DataField& field, const Literal& literal) {
  if (literal.kind == Literal::Kind::kNull) return Value::Null();
  const DataType& type = *field.type;
  bool quoted = literal.kind == Literal::Kind::kString;
  if (type.IsStringLike() || type.IsBinaryLike()) {
    if (!quoted) return LiteralError(field, literal, "is not a quoted string");
    return type.IsStringLike() ? Value::String(literal.text) : Value::Bytes(literal.text);
  }
  if (type.root() == TypeRoot::kBoolean) return ToBoolean(field, literal);
  if (literal.kind == Literal::Kind::kBoolean) {
    return LiteralError(field, literal, "is a boolean");
  }
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      return ToIntegral(field, literal);
    case TypeRoot::kFloat: {
      FRESHET_ASSIGN_OR_RETURN(double v, ToDouble(field, literal));
      return Value::Float(static_cast<float>(v));
    }
    case TypeRoot::kDouble: {
      FRESHET_ASSIGN_OR_RETURN(double v, ToDouble(field, literal));
      return Value::Double(v);
    }
    case TypeRoot::kDecimal: {
      auto d = meta::Decimal::FromString(literal.text, type.precision(), type.scale());
      if (d.ok()) return Value::Dec(*d);
      if (!IsPlainDecimal(literal.text)) return LiteralError(field, literal, "is not a number");
      return LiteralError(field, literal, "has too many digits");
    }
    case TypeRoot::kDate: {
      FRESHET_ASSIGN_OR_RETURN(int32_t day, ToDate(field, literal));
      return Value::Int(day);
    }
    case TypeRoot::kTime: {
      FRESHET_ASSIGN_OR_RETURN(int32_t millis, ToTime(field, literal));
      return Value::Int(millis);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      FRESHET_ASSIGN_OR_RETURN(meta::Timestamp ts, ToTimestamp(field, literal));
      return Value::Ts(ts);
    }
    default:
      return Status::Invalid("filter: column '", field.name, "' is ", type.ToString(),
                             "; filters on this type are not supported");
  }
}

}  // namespace

Result<Predicate> BindPredicate(const Expr& expr, const meta::TableSchema& schema) {
  Predicate p;
  p.kind = expr.kind;
  p.op = expr.op;
  for (const Expr& child : expr.children) {
    FRESHET_ASSIGN_OR_RETURN(Predicate bound, BindPredicate(child, schema));
    p.children.push_back(std::move(bound));
  }
  if (!p.IsLeaf()) return p;
  int index = schema.FieldIndex(expr.column);
  if (index < 0) return Status::Invalid("filter: column '", expr.column, "' does not exist");
  p.field = schema.fields()[static_cast<size_t>(index)];
  if (p.field.type->IsComposite() || p.field.type->root() == TypeRoot::kVariant ||
      p.field.type->root() == TypeRoot::kBlob) {
    return Status::Invalid("filter: column '", p.field.name, "' is ", p.field.type->ToString(),
                           "; filters on this type are not supported");
  }
  const auto& keys = schema.partition_keys();
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == p.field.name) p.partition_index = static_cast<int32_t>(i);
  }
  for (const Literal& literal : expr.literals) {
    FRESHET_ASSIGN_OR_RETURN(Value v, TypeLiteral(p.field, literal));
    p.literals.push_back(std::move(v));
  }
  return p;
}

bool ReadsOnlyKeyColumns(const Predicate& predicate, const meta::TableSchema& schema) {
  const auto& keys = schema.primary_keys();
  if (keys.empty()) return false;
  for (const meta::DataField& field : predicate.Fields()) {
    if (std::find(keys.begin(), keys.end(), field.name) == keys.end()) return false;
  }
  return true;
}

Result<Predicate> MakePredicate(std::string_view text, const meta::TableSchema& schema) {
  FRESHET_ASSIGN_OR_RETURN(Expr expr, ParsePredicate(text));
  return BindPredicate(expr, schema);
}

// ---------------------------------------------------------------------------------------------
// Evaluation over sets of outcomes.

bool CompareHolds(CompareOp op, int c) {
  switch (op) {
    case CompareOp::kEq:
      return c == 0;
    case CompareOp::kNe:
      return c != 0;
    case CompareOp::kLt:
      return c < 0;
    case CompareOp::kLe:
      return c <= 0;
    case CompareOp::kGt:
      return c > 0;
    case CompareOp::kGe:
      return c >= 0;
  }
  return false;
}

Outcomes Not3(Outcomes a) {
  return static_cast<Outcomes>(((a & kTrue) ? kFalse : 0) | ((a & kFalse) ? kTrue : 0) |
                               (a & kNull));
}

// The outcome of `a op b` for single outcomes, SQL style.
static Outcomes Combine1(Outcomes a, Outcomes b, bool is_and) {
  Outcomes dominant = is_and ? kFalse : kTrue;
  if (a == dominant || b == dominant) return dominant;
  if (a == kNull || b == kNull) return kNull;
  return is_and ? kTrue : kFalse;
}

Outcomes CombineSets(Outcomes a, Outcomes b, bool is_and) {
  Outcomes out = 0;
  for (Outcomes x : {kTrue, kFalse, kNull}) {
    if (!(a & x)) continue;
    for (Outcomes y : {kTrue, kFalse, kNull}) {
      if (b & y) out |= Combine1(x, y, is_and);
    }
  }
  return out;
}

namespace {

void CollectFields(const Predicate& p, std::vector<meta::DataField>* out) {
  if (p.IsLeaf()) {
    for (const auto& f : *out) {
      if (f.id == p.field.id) return;
    }
    out->push_back(p.field);
    return;
  }
  for (const auto& c : p.children) CollectFields(c, out);
}

}  // namespace

bool Predicate::IsLeaf() const {
  return kind != Expr::Kind::kAnd && kind != Expr::Kind::kOr && kind != Expr::Kind::kNot;
}

std::vector<meta::DataField> Predicate::Fields() const {
  std::vector<meta::DataField> out;
  CollectFields(*this, &out);
  return out;
}

Outcomes Predicate::Evaluate(
    const std::function<Outcomes(const Predicate& leaf)>& leaf_outcomes) const {
  if (IsLeaf()) return leaf_outcomes(*this);
  if (kind == Expr::Kind::kNot) return Not3(children[0].Evaluate(leaf_outcomes));
  bool is_and = kind == Expr::Kind::kAnd;
  Outcomes acc = children[0].Evaluate(leaf_outcomes);
  for (size_t i = 1; i < children.size(); ++i) {
    acc = CombineSets(acc, children[i].Evaluate(leaf_outcomes), is_and);
  }
  return acc;
}

namespace {

template <typename T>
void AppendRaw(std::string* out, const T& value) {
  out->append(reinterpret_cast<const char*>(&value), sizeof(value));
}

void AppendValueKey(std::string* out, const Value& value) {
  out->push_back(static_cast<char>(value.storage().index()));
  std::visit(
      [out](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
        } else if constexpr (std::is_same_v<T, std::string>) {
          AppendRaw(out, x.size());
          out->append(x);
        } else if constexpr (std::is_same_v<T, meta::Decimal>) {
          AppendRaw(out, x.unscaled);
          AppendRaw(out, x.precision);
          AppendRaw(out, x.scale);
        } else if constexpr (std::is_same_v<T, meta::Timestamp>) {
          AppendRaw(out, x.millis);
          AppendRaw(out, x.nano_of_milli);
        } else {
          AppendRaw(out, x);
        }
      },
      value.storage());
}

}  // namespace

std::string Predicate::Key() const {
  std::string out;
  AppendKey(&out);
  return out;
}

void Predicate::AppendKey(std::string* out) const {
  out->push_back(static_cast<char>(kind));
  if (IsLeaf()) {
    out->push_back(static_cast<char>(op));
    AppendRaw(out, field.id);
    AppendRaw(out, literals.size());
    for (const Value& v : literals) AppendValueKey(out, v);
    return;
  }
  AppendRaw(out, children.size());
  for (const Predicate& child : children) {
    // Each child's key after its length, written in place once the child is appended.
    const size_t at = out->size();
    AppendRaw(out, size_t{0});
    child.AppendKey(out);
    const size_t length = out->size() - at - sizeof(size_t);
    std::memcpy(out->data() + at, &length, sizeof(length));
  }
}

Outcomes Predicate::EvaluateLeaf(const Value& value) const {
  switch (kind) {
    case Expr::Kind::kIsNull:
      return value.is_null() ? kTrue : kFalse;
    case Expr::Kind::kIsNotNull:
      return value.is_null() ? kFalse : kTrue;
    case Expr::Kind::kCompare:
      if (value.is_null() || literals[0].is_null()) return kNull;
      return CompareHolds(op, meta::CompareValues(value, literals[0])) ? kTrue : kFalse;
    case Expr::Kind::kIn: {
      if (value.is_null()) return kNull;
      bool saw_null = false;
      for (const Value& v : literals) {
        if (v.is_null()) {
          saw_null = true;
        } else if (meta::CompareValues(value, v) == 0) {
          return kTrue;
        }
      }
      return saw_null ? kNull : kFalse;
    }
    default:
      return kAnyOutcome;
  }
}

Result<Outcomes> EvaluatePartition(const Predicate& predicate,
                                   const std::string& serialized_partition) {
  FRESHET_ASSIGN_OR_RETURN(meta::BinaryRow row, meta::DeserializeBinaryRow(serialized_partition));
  Status status;
  Outcomes out = predicate.Evaluate([&](const Predicate& leaf) -> Outcomes {
    if (leaf.partition_index < 0 || leaf.partition_index >= row.arity()) return kAnyOutcome;
    auto value = row.GetValue(leaf.partition_index, *leaf.field.type);
    if (!value.ok()) {
      status = value.status();
      return kAnyOutcome;
    }
    return leaf.EvaluateLeaf(*value);
  });
  FRESHET_RETURN_NOT_OK(status);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Statistics.
namespace {

// Bounds are only trusted for types whose statistics order is exactly the predicate order:
// Parquet and ORC leave NaN out of float min/max, and -0.0/0.0 compare equal there.
// Timestamps finer than milliseconds are left out too, in case a writer kept coarser bounds.
bool BoundsUsable(const DataType& type) {
  if (type.IsTimestampLike()) return type.precision() <= 3;
  return type.root() != TypeRoot::kFloat && type.root() != TypeRoot::kDouble;
}

// Outcomes possible for the non-null values of a column within [min, max].
Outcomes NonNullOutcomes(const Predicate& leaf, const ColumnStats& s) {
  bool bounded = !s.min.is_null() && !s.max.is_null() && BoundsUsable(*leaf.field.type);
  if (leaf.kind == Expr::Kind::kIn) {
    bool can_true = !bounded, saw_null = false;
    for (const Value& v : leaf.literals) {
      if (v.is_null()) {
        saw_null = true;
      } else if (bounded && meta::CompareValues(s.min, v) <= 0 &&
                 meta::CompareValues(v, s.max) <= 0) {
        can_true = true;
      }
    }
    return static_cast<Outcomes>((can_true ? kTrue : 0) | (saw_null ? kNull : kFalse));
  }
  if (leaf.literals[0].is_null()) return kNull;
  if (!bounded) return kTrue | kFalse;
  const Value& v = leaf.literals[0];
  int lo = meta::CompareValues(s.min, v);  // min vs literal
  int hi = meta::CompareValues(s.max, v);  // max vs literal
  bool can_true = false, can_false = true;
  switch (leaf.op) {
    case CompareOp::kEq:
      can_true = lo <= 0 && hi >= 0;
      break;
    case CompareOp::kNe:
      can_true = !(lo == 0 && hi == 0);
      break;
    case CompareOp::kLt:
      can_true = lo < 0;
      can_false = hi >= 0;
      break;
    case CompareOp::kLe:
      can_true = lo <= 0;
      can_false = hi > 0;
      break;
    case CompareOp::kGt:
      can_true = hi > 0;
      can_false = lo <= 0;
      break;
    case CompareOp::kGe:
      can_true = hi >= 0;
      can_false = lo < 0;
      break;
  }
  return static_cast<Outcomes>((can_true ? kTrue : 0) | (can_false ? kFalse : 0));
}

Outcomes StatsLeafOutcomes(const Predicate& leaf, const ColumnStats& s) {
  bool has_null = !s.null_count || *s.null_count > 0;
  bool has_non_null = !s.null_count || *s.null_count < s.row_count;
  if (!has_non_null) return leaf.EvaluateLeaf(Value::Null());
  if (leaf.kind == Expr::Kind::kIsNull || leaf.kind == Expr::Kind::kIsNotNull) {
    Outcomes null_side = leaf.EvaluateLeaf(Value::Null());
    return static_cast<Outcomes>((has_null ? null_side : 0) | Not3(null_side));
  }
  return static_cast<Outcomes>(NonNullOutcomes(leaf, s) | (has_null ? kNull : 0));
}

}  // namespace

Result<FileColumnStats> FindFileColumnStats(const meta::DataField& field,
                                            const meta::DataFileMeta& file,
                                            const meta::TableSchema& file_schema,
                                            const meta::BinaryRow& min_row,
                                            const meta::BinaryRow& max_row) {
  FileColumnStats found;
  const auto& fields = file_schema.fields();
  const meta::DataField* file_field = nullptr;
  for (const auto& f : fields) {
    if (f.id == field.id) file_field = &f;
  }
  // A column added after the file was written reads as NULL in every row of it.
  if (!file_field) {
    found.kind = FileColumnStats::Kind::kAbsent;
    return found;
  }
  // An evolved type: the stats hold the old type's values. (Nullability aside; types are
  // rebuilt only when it differs, as this runs per file and leaf on every plan.)
  const bool same_type =
      file_field->type->nullable() == field.type->nullable()
          ? file_field->type->Equals(*field.type)
          : file_field->type->WithNullable(true)->Equals(*field.type->WithNullable(true));
  if (!same_type) return found;
  int32_t pos = -1;
  if (file.value_stats_cols) {
    const auto& cols = *file.value_stats_cols;
    for (size_t i = 0; i < cols.size(); ++i) {
      if (cols[i] == file_field->name) pos = static_cast<int32_t>(i);
    }
  } else {
    pos = meta::FindFieldByName(fields, file_field->name);
  }
  if (pos < 0 || pos >= min_row.arity() || pos >= max_row.arity()) return found;
  found.kind = FileColumnStats::Kind::kKnown;
  ColumnStats& s = found.stats;
  s.row_count = file.row_count;
  FRESHET_ASSIGN_OR_RETURN(s.min, min_row.GetValue(pos, *file_field->type));
  FRESHET_ASSIGN_OR_RETURN(s.max, max_row.GetValue(pos, *file_field->type));
  const auto& counts = file.value_stats.null_counts;
  if (counts && static_cast<size_t>(pos) < counts->size()) s.null_count = (*counts)[pos];
  return found;
}

Outcomes EvaluateLeafFileStats(const Predicate& leaf, const FileColumnStats& stats) {
  switch (stats.kind) {
    case FileColumnStats::Kind::kAbsent:
      return leaf.EvaluateLeaf(Value::Null());
    case FileColumnStats::Kind::kUnknown:
      return kAnyOutcome;
    case FileColumnStats::Kind::kKnown:
      break;
  }
  return StatsLeafOutcomes(leaf, stats.stats);
}

Result<Outcomes> EvaluateFileStats(const Predicate& predicate, const meta::DataFileMeta& file,
                                   const meta::TableSchema& file_schema) {
  FRESHET_ASSIGN_OR_RETURN(meta::BinaryRow min_row,
                           meta::DeserializeBinaryRow(file.value_stats.min_values));
  FRESHET_ASSIGN_OR_RETURN(meta::BinaryRow max_row,
                           meta::DeserializeBinaryRow(file.value_stats.max_values));
  Status status;
  Outcomes out = predicate.Evaluate([&](const Predicate& leaf) -> Outcomes {
    auto stats = FindFileColumnStats(leaf.field, file, file_schema, min_row, max_row);
    if (!stats.ok()) {
      status = stats.status();
      return kAnyOutcome;
    }
    return EvaluateLeafFileStats(leaf, *stats);
  });
  FRESHET_RETURN_NOT_OK(status);
  return out;
}

Outcomes EvaluateLeafStats(const Predicate& leaf, const ColumnStats& stats) {
  return StatsLeafOutcomes(leaf, stats);
}

Outcomes EvaluateValueRange(const Predicate& predicate, int32_t field_id, const Value& min,
                            const Value& max) {
  const ColumnStats range{min, max, 0, 1};
  return predicate.Evaluate([&](const Predicate& leaf) -> Outcomes {
    return leaf.field.id == field_id ? StatsLeafOutcomes(leaf, range) : kAnyOutcome;
  });
}

}  // namespace freshet::scan
