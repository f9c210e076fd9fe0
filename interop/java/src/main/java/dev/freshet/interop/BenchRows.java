package dev.freshet.interop;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;

/**
 * The benchmark row generator and checksum, value for value the same as freshet's
 * bench/append_bench.cc (specified in docs/benchmarks.md, "Generator"). Columns: id BIGINT, k1
 * INT, k2 INT, v BIGINT, d1..d3 DOUBLE, s1..s3 STRING (8..32 ASCII characters); no nulls.
 */
final class BenchRows {
  static final int COLUMNS = 10;
  private static final byte[] ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private final long base;

  BenchRows(long seed) {
    base = mix(seed);
  }

  /** splitmix64's finalizer over {@code x + golden gamma} (all arithmetic mod 2^64). */
  static long mix(long x) {
    long z = x + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  long h(long row, int col) {
    return mix(base + row * 16 + col);
  }

  GenericRow row(long i) {
    GenericRow r = new GenericRow(COLUMNS);
    r.setField(0, i);
    r.setField(1, (int) (h(i, 1) >>> 44));
    r.setField(2, (int) (h(i, 2) >>> 32));
    r.setField(3, h(i, 3));
    for (int c = 4; c < 7; c++) {
      r.setField(c, (double) (h(i, c) >>> 11) * 0x1.0p-53 * 2000.0 - 1000.0);
    }
    for (int c = 7; c < 10; c++) r.setField(c, BinaryString.fromBytes(string(h(i, c))));
    return r;
  }

  static byte[] string(long h) {
    int len = 8 + (int) Long.remainderUnsigned(h, 25);
    byte[] b = new byte[len];
    for (int j = 0; j < len; j++) {
      long w = mix(h + 1 + j / 10);
      b[j] = ALPHABET[(int) ((w >>> (6 * (j % 10))) & 63)];
    }
    return b;
  }

  /**
   * Per-column wrapping sums: integers sign-extended to 64 bits, doubles as their IEEE bits,
   * strings as FNV-1a 64 of their UTF-8 bytes; {@link #value} folds them with {@link #mix}.
   */
  static final class Checksum {
    final long[] sums = new long[COLUMNS];
    long rows;

    void add(InternalRow r) {
      sums[0] += r.getLong(0);
      sums[1] += r.getInt(1);
      sums[2] += r.getInt(2);
      sums[3] += r.getLong(3);
      for (int c = 4; c < 7; c++) sums[c] += Double.doubleToRawLongBits(r.getDouble(c));
      for (int c = 7; c < 10; c++) sums[c] += fnv1a(r.getString(c));
      rows++;
    }

    long value() {
      long acc = 0;
      for (int c = 0; c < COLUMNS; c++) acc = mix(acc ^ sums[c]);
      return acc;
    }

    String hex() {
      return String.format("%016x", value());
    }
  }

  static long fnv1a(BinaryString s) {
    long h = 0xcbf29ce484222325L;
    int n = s.getSizeInBytes();
    for (int i = 0; i < n; i++) h = (h ^ (s.byteAt(i) & 0xff)) * 0x100000001b3L;
    return h;
  }
}
