package dev.freshet.interop;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * FLOAT/DOUBLE text for the JSON-lines conventions.
 *
 * <p>Digits: the shortest decimal that parses back to the same float/double (among equally short
 * candidates, the one nearest the exact binary value). Layout: Java's {@code Double.toString}
 * layout, i.e. plain notation with at least one fractional digit when 1e-3 <= |v| < 1e7 ("11.1",
 * "100.0", "0.001"), otherwise computerized scientific notation with at least one fractional digit
 * ("1.0E7", "1.234E-5"). This equals {@code Double.toString}/{@code Float.toString} on JDK 19+; it
 * is computed here explicitly because JDK 17's toString sometimes prints more digits than needed.
 * Non-finite values are not handled here (callers print "NaN", "Infinity", "-Infinity" strings).
 */
final class FloatText {
  private FloatText() {}

  static String ofDouble(double v) {
    if (v == 0.0) {
      return (Double.doubleToRawLongBits(v) < 0) ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal(v);
    for (int p = 1; p <= 17; p++) {
      BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
      if (Double.parseDouble(r.toString()) == v) {
        return layout(r);
      }
    }
    return layout(exact.round(new MathContext(17, RoundingMode.HALF_EVEN)));
  }

  static String ofFloat(float v) {
    if (v == 0.0f) {
      return (Float.floatToRawIntBits(v) < 0) ? "-0.0" : "0.0";
    }
    BigDecimal exact = new BigDecimal((double) v); // exact: every float is a double
    for (int p = 1; p <= 9; p++) {
      BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
      if (Float.parseFloat(r.toString()) == v) {
        return layout(r);
      }
    }
    return layout(exact.round(new MathContext(9, RoundingMode.HALF_EVEN)));
  }

  private static String layout(BigDecimal d) {
    BigDecimal s = d.stripTrailingZeros();
    boolean neg = s.signum() < 0;
    String digits = s.unscaledValue().abs().toString();
    // value = 0.digits * 10^(pointPos)  <=>  d1.d2d3... * 10^(pointPos - 1)
    int pointPos = digits.length() - s.scale();
    int sciExp = pointPos - 1;
    StringBuilder out = new StringBuilder(neg ? "-" : "");
    if (sciExp >= -3 && sciExp < 7) {
      if (pointPos <= 0) {
        out.append("0.");
        for (int i = 0; i < -pointPos; i++) out.append('0');
        out.append(digits);
      } else if (pointPos >= digits.length()) {
        out.append(digits);
        for (int i = digits.length(); i < pointPos; i++) out.append('0');
        out.append(".0");
      } else {
        out.append(digits, 0, pointPos).append('.').append(digits, pointPos, digits.length());
      }
    } else {
      out.append(digits.charAt(0)).append('.');
      out.append(digits.length() > 1 ? digits.substring(1) : "0");
      out.append('E').append(sciExp);
    }
    return out.toString();
  }
}
