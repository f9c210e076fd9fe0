// sum and product over TINYINT..DOUBLE and DECIMAL, with Java's arithmetic: integer overflow is
// an error, FLOAT/DOUBLE follow IEEE, DECIMAL results that exceed the precision become null
// (except compact sums, which Java keeps unchecked in their long), product's retraction divides.
#include <arrow/api.h>
#include <arrow/util/decimal.h>

#include <limits>
#include <string>
#include <type_traits>

#include "mergetree/aggregate/field_aggregator.h"

namespace freshet::mergetree::aggregate {

namespace {

using meta::TypeRoot;

enum class Op { kAdd, kSubtract, kMultiply, kDivide };

const char* OpSign(Op op) {
  switch (op) {
    case Op::kAdd:
      return "+";
    case Op::kSubtract:
      return "-";
    case Op::kMultiply:
      return "*";
    case Op::kDivide:
      return "/";
  }
  return "?";
}

// Java's name of the overflowing type in its ArithmeticException messages.
template <typename T>
const char* JavaTypeName() {
  if constexpr (sizeof(T) == 1) return "byte";
  if constexpr (sizeof(T) == 2) return "short";
  if constexpr (sizeof(T) == 4) return "int";
  return "long";
}

template <typename T>
Result<T> Arithmetic(Op op, T a, T b, const std::string& field) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (op) {
      case Op::kAdd:
        return a + b;
      case Op::kSubtract:
        return a - b;
      case Op::kMultiply:
        return a * b;
      case Op::kDivide:
        return a / b;
    }
    return a;
  } else {
    if (op == Op::kDivide && b == 0) {
      return Status::Invalid("column '", field, "': division by zero retracting ", +a, " / ", +b);
    }
    T out = 0;
    bool overflow = false;
    switch (op) {
      case Op::kAdd:
        overflow = __builtin_add_overflow(a, b, &out);
        break;
      case Op::kSubtract:
        overflow = __builtin_sub_overflow(a, b, &out);
        break;
      case Op::kMultiply:
        overflow = __builtin_mul_overflow(a, b, &out);
        break;
      case Op::kDivide:
        overflow = a == std::numeric_limits<T>::min() && b == -1;
        if (!overflow) out = static_cast<T>(a / b);
        break;
    }
    if (overflow) {
      return Status::Invalid("column '", field, "': ", JavaTypeName<T>(), " overflow: ", +a, " ",
                             OpSign(op), " ", +b);
    }
    return out;
  }
}

template <typename T>
Result<T> Negate(T a, const std::string& field) {
  if constexpr (!std::is_floating_point_v<T>) {
    if (a == std::numeric_limits<T>::min()) {
      return Status::Invalid("column '", field, "': ", JavaTypeName<T>(), " overflow: -", +a);
    }
  }
  return static_cast<T>(-a);
}

// sum / product over a primitive Arrow type.
template <typename ArrowType>
class NumberAggregator : public FieldAggregator {
 public:
  using CType = typename ArrowType::c_type;
  using ArrayType = typename arrow::TypeTraits<ArrowType>::ArrayType;
  using ScalarType = typename arrow::TypeTraits<ArrowType>::ScalarType;

  NumberAggregator(std::string function, const FieldContext& context, bool product)
      : FieldAggregator(std::move(function), context), product_(product) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) || IsNull(input)) return IsNull(acc) ? input : acc;
    return Apply(product_ ? Op::kMultiply : Op::kAdd, acc, input);
  }

  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input) override {
    if (product_) {
      if (IsNull(acc) || IsNull(input)) return acc;
      return Apply(Op::kDivide, acc, input);
    }
    if (IsNull(input)) return acc;
    if (IsNull(acc)) {
      FRESHET_ASSIGN_OR_RETURN(CType negated, Negate(Get(input), field_name_));
      return Make(acc, negated);
    }
    return Apply(Op::kSubtract, acc, input);
  }

 private:
  CType Get(const FieldValue& value) const {
    if (value.batch != nullptr) {
      return static_cast<const ArrayType&>(value.batch->column(column_)).Value(value.row);
    }
    return static_cast<const ScalarType&>(*value.scalar).value;
  }

  // A computed value; the accumulator's own scalar is reused when nothing else holds it.
  FieldValue Make(const FieldValue& acc, CType value) const {
    if (acc.scalar != nullptr && acc.scalar.use_count() == 1) {
      static_cast<ScalarType&>(*acc.scalar).value = value;
      return acc;
    }
    return FieldValue::Of(std::make_shared<ScalarType>(value, arrow_type_));
  }

  Result<FieldValue> Apply(Op op, const FieldValue& acc, const FieldValue& input) const {
    FRESHET_ASSIGN_OR_RETURN(CType out, Arithmetic(op, Get(acc), Get(input), field_name_));
    return Make(acc, out);
  }

  const bool product_;
};

using arrow::Decimal128;
using arrow::Decimal256;

// Whether |value| < 10^precision (Java's BigDecimal precision check).
bool FitsPrecision(const Decimal256& value, int32_t precision) {
  return value.FitsInPrecision(precision);
}

// value / 10^scale rounded half away from zero (RoundingMode.HALF_UP).
Decimal256 DivideHalfUp(const Decimal256& value, const Decimal256& divisor) {
  auto [quotient, remainder] = *value.Divide(divisor);
  Decimal256 twice = Decimal256::Abs(remainder);
  twice += Decimal256::Abs(remainder);
  if (!(twice < Decimal256::Abs(divisor))) {
    bool negative = (value < Decimal256(0)) != (divisor < Decimal256(0));
    quotient += negative ? Decimal256(-1) : Decimal256(1);
  }
  return quotient;
}

// Java's BigDecimal.divide without a MathContext fails unless the quotient has a finite
// decimal expansion: the divisor, reduced by the common factor, holds only 2s and 5s.
bool TerminatingQuotient(Decimal128 dividend, Decimal128 divisor) {
  auto to_unsigned = [](Decimal128 v) {
    v.Abs();
    return (static_cast<unsigned __int128>(static_cast<uint64_t>(v.high_bits())) << 64) |
           v.low_bits();
  };
  unsigned __int128 a = to_unsigned(dividend);
  unsigned __int128 b = to_unsigned(divisor);
  unsigned __int128 x = a;
  unsigned __int128 y = b;
  while (y != 0) {
    unsigned __int128 t = x % y;
    x = y;
    y = t;
  }
  b /= x;
  while (b % 2 == 0) b /= 2;
  while (b % 5 == 0) b /= 5;
  return b == 1;
}

class DecimalAggregator : public FieldAggregator {
 public:
  DecimalAggregator(std::string function, const FieldContext& context, bool product)
      : FieldAggregator(std::move(function), context),
        product_(product),
        precision_(context.field->type->precision()),
        scale_(context.field->type->scale()) {}

  Result<FieldValue> Agg(const FieldValue& acc, const FieldValue& input) override {
    if (IsNull(acc) || IsNull(input)) return IsNull(acc) ? input : acc;
    if (product_) return Multiply(Get(acc), Get(input));
    return AddOrSubtract(Get(acc), Get(input), false);
  }

  Result<FieldValue> Retract(const FieldValue& acc, const FieldValue& input) override {
    if (product_) {
      if (IsNull(acc) || IsNull(input)) return acc;
      return Divide(Get(acc), Get(input));
    }
    if (IsNull(input)) return acc;
    if (IsNull(acc)) return Make(Decimal128(Get(input)).Negate());
    return AddOrSubtract(Get(acc), Get(input), true);
  }

 private:
  Decimal128 Get(const FieldValue& value) const {
    if (value.batch != nullptr) {
      const auto& array = static_cast<const arrow::Decimal128Array&>(value.batch->column(column_));
      return Decimal128(array.GetValue(value.row));
    }
    return static_cast<const arrow::Decimal128Scalar&>(*value.scalar).value;
  }

  FieldValue Make(const Decimal128& value) const {
    return FieldValue::Of(std::make_shared<arrow::Decimal128Scalar>(value, arrow_type_));
  }

  // Java's DecimalUtils.add/subtract: a compact (precision <= 18) result that fits a long is
  // kept without a precision check; anything else must fit the precision or becomes null.
  Result<FieldValue> AddOrSubtract(const Decimal128& a, const Decimal128& b, bool subtract) const {
    if (precision_ <= 18) {
      int64_t out = 0;
      int64_t x = static_cast<int64_t>(a.low_bits());
      int64_t y = static_cast<int64_t>(b.low_bits());
      bool overflow =
          subtract ? __builtin_sub_overflow(x, y, &out) : __builtin_add_overflow(x, y, &out);
      return overflow ? FieldValue::Null() : Make(Decimal128(out));
    }
    Decimal256 out(a);
    if (subtract) {
      out -= Decimal256(b);
    } else {
      out += Decimal256(b);
    }
    return Checked(out);
  }

  Result<FieldValue> Checked(const Decimal256& value) const {
    if (!FitsPrecision(value, precision_)) return FieldValue::Null();
    // Fits 38 digits: the low two words are the Decimal128.
    auto words = value.little_endian_array();
    return Make(Decimal128(static_cast<int64_t>(words[1]), words[0]));
  }

  // (a * b) at scale 2s, rounded half-up back to scale s.
  Result<FieldValue> Multiply(const Decimal128& a, const Decimal128& b) const {
    Decimal256 product = Decimal256(a) * Decimal256(b);
    return Checked(DivideHalfUp(product, Decimal256::GetScaleMultiplier(scale_)));
  }

  // The exact quotient a / b (both at scale s), rounded half-up to scale s.
  Result<FieldValue> Divide(const Decimal128& a, const Decimal128& b) const {
    if (b == Decimal128(0)) {
      return Status::Invalid("column '", field_name_, "': division by zero retracting a product");
    }
    if (!TerminatingQuotient(a, b)) {
      return Status::Invalid("column '", field_name_,
                             "': non-terminating decimal expansion retracting a product (",
                             a.ToString(scale_), " / ", b.ToString(scale_), ")");
    }
    Decimal256 scaled = Decimal256(a) * Decimal256::GetScaleMultiplier(scale_);
    return Checked(DivideHalfUp(scaled, Decimal256(b)));
  }

  const bool product_;
  const int32_t precision_;
  const int32_t scale_;
};

}  // namespace

Result<std::unique_ptr<FieldAggregator>> MakeNumericAggregator(const std::string& function,
                                                               const FieldContext& context) {
  bool product = function == "product";
  switch (context.field->type->root()) {
    case TypeRoot::kTinyInt:
      return NewAggregator<NumberAggregator<arrow::Int8Type>>(function, context, product);
    case TypeRoot::kSmallInt:
      return NewAggregator<NumberAggregator<arrow::Int16Type>>(function, context, product);
    case TypeRoot::kInt:
      return NewAggregator<NumberAggregator<arrow::Int32Type>>(function, context, product);
    case TypeRoot::kBigInt:
      return NewAggregator<NumberAggregator<arrow::Int64Type>>(function, context, product);
    case TypeRoot::kFloat:
      return NewAggregator<NumberAggregator<arrow::FloatType>>(function, context, product);
    case TypeRoot::kDouble:
      return NewAggregator<NumberAggregator<arrow::DoubleType>>(function, context, product);
    case TypeRoot::kDecimal:
      return NewAggregator<DecimalAggregator>(function, context, product);
    default:
      return TypeMismatch(function, context, "a numeric type (TINYINT..DOUBLE, DECIMAL)");
  }
}

}  // namespace freshet::mergetree::aggregate
