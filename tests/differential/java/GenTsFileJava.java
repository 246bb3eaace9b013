package gen;

import java.io.File;
import java.io.FileWriter;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.apache.tsfile.common.conf.TSFileDescriptor;
import org.apache.tsfile.enums.ColumnCategory;
import org.apache.tsfile.enums.TSDataType;
import org.apache.tsfile.file.metadata.TableSchema;
import org.apache.tsfile.file.metadata.enums.CompressionType;
import org.apache.tsfile.file.metadata.enums.TSEncoding;
import org.apache.tsfile.read.TsFileReader;
import org.apache.tsfile.read.common.Field;
import org.apache.tsfile.read.common.Path;
import org.apache.tsfile.read.common.RowRecord;
import org.apache.tsfile.read.expression.QueryExpression;
import org.apache.tsfile.read.query.dataset.QueryDataSet;
import org.apache.tsfile.read.query.dataset.ResultSet;
import org.apache.tsfile.read.v4.ITsFileReader;
import org.apache.tsfile.read.v4.TsFileReaderBuilder;
import org.apache.tsfile.utils.Binary;
import org.apache.tsfile.write.TsFileWriter;
import org.apache.tsfile.write.record.TSRecord;
import org.apache.tsfile.write.record.Tablet;
import org.apache.tsfile.write.schema.IMeasurementSchema;
import org.apache.tsfile.write.schema.MeasurementSchema;

/**
 * Random valid TsFiles written by the official Java writer (org.apache.tsfile:tsfile 2.2.1): tree
 * model (aligned and non-aligned devices, TSRecord rows) and table model (Tablets), per-series
 * encodings and compressors, nulls, NaN/±Inf, small pages, and out-of-order flushes (the writer's
 * unsequence flag, as scripts/fixtures/tsfile/order/common/GenOrder.java): later chunk groups with
 * earlier, overlapping and repeated times. Expected values from the same version's reader, as
 * tests/differential/gen_tsfile.py writes them (xjson, tests/differential/xjson.py).
 *
 * <p>Args: seed, count, out dir [, only]. File k of seed S draws from new Random(mix(S, k)) alone.
 * Tree reads carry "repeats": "multiset": the tree reader reads a series' chunks in file order and
 * pairs the series of a repeated time arbitrarily (docs/tsfile.md, "Out-of-order chunk groups"),
 * so the values of one time are compared per column as multisets; the row count of a repeated
 * time is the written count (aligned: time points; non-aligned: the most points of one series).
 */
public class GenTsFileJava {
  static final TSDataType[] TYPES = {TSDataType.BOOLEAN, TSDataType.INT32, TSDataType.INT64, TSDataType.FLOAT, TSDataType.DOUBLE,
    TSDataType.TEXT, TSDataType.STRING, TSDataType.BLOB, TSDataType.DATE, TSDataType.TIMESTAMP};
  static final String[] ENCODINGS = {"PLAIN", "RLE", "TS_2DIFF", "GORILLA", "GORILLA_V1", "ZIGZAG", "CHIMP", "SPRINTZ", "RLBE", "DICTIONARY", "REGULAR"};
  static final String[] COMPRESSORS = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZ4", "ZSTD", "LZMA2"};
  static final String[] WORDS = {"", "a", "hello", "héllo ✓", "s1", "x".repeat(40), "日本語", "tab\t"};
  static final long BASE = 1_700_000_000_000L;
  /** Encodings the writer takes per type, probed once per run (write a few points, read them back). */
  static final Map<TSDataType, List<TSEncoding>> ACCEPTS = new LinkedHashMap<>();

  static void unseq(Object writer) throws Exception {
    java.lang.reflect.Field f = writer.getClass().getDeclaredField("isUnseq");
    f.setAccessible(true);
    f.setBoolean(writer, true);
  }

  static void probe(File dir) throws Exception {
    Random rng = new Random(1);
    for (TSDataType ty : TYPES) {
      List<TSEncoding> ok = new ArrayList<>();
      for (String e : ENCODINGS) {
        File f = new File(dir, "probe.tsfile");
        f.delete();
        try {
          TSFileDescriptor.getInstance().getConfig().setMaxNumberOfPointsInPage(1000);
          Object[] vals = new Object[8];
          try (TsFileWriter w = new TsFileWriter(f)) {
            w.registerTimeseries("root.p.d", new MeasurementSchema("s", ty, TSEncoding.valueOf(e), CompressionType.UNCOMPRESSED));
            for (int i = 0; i < vals.length; i++) {
              vals[i] = value(rng, ty, false);
              TSRecord r = new TSRecord("root.p.d", i);
              addPoint(r, "s", ty, vals[i]);
              w.writeRecord(r);
            }
          }
          List<Object[]> got = querySeries(f, "root.p.d", "s", ty, false);
          boolean same = got.size() == vals.length;
          for (int i = 0; same && i < vals.length; i++) same = xjson(ty, got.get(i)[1]).equals(xjson(ty, vals[i]));
          if (same) ok.add(TSEncoding.valueOf(e));
          else if (!List.of("TS_2DIFF", "RLE").contains(e)) System.err.println("gen-tsfile-java: probe: " + ty + " " + e + " reads back other values: left out");
        } catch (Throwable t) {
          // Refused by the writer for this type.
        }
      }
      // Lossy float encodings (TS_2DIFF, RLE round to the configured precision) stay in: the
      // expected values are the reader's, whatever the encoding made of them.
      for (String e : new String[] {"TS_2DIFF", "RLE"}) {
        if ((ty == TSDataType.FLOAT || ty == TSDataType.DOUBLE) && !ok.contains(TSEncoding.valueOf(e)) && accepts(dir, ty, e)) ok.add(TSEncoding.valueOf(e));
      }
      ACCEPTS.put(ty, ok);
    }
    new File(dir, "probe.tsfile").delete();
  }

  static boolean accepts(File dir, TSDataType ty, String e) {
    File f = new File(dir, "probe.tsfile");
    f.delete();
    try (TsFileWriter w = new TsFileWriter(f)) {
      w.registerTimeseries("root.p.d", new MeasurementSchema("s", ty, TSEncoding.valueOf(e), CompressionType.UNCOMPRESSED));
      TSRecord r = new TSRecord("root.p.d", 1);
      addPoint(r, "s", ty, 1.5);
      w.writeRecord(r);
      return true;
    } catch (Throwable t) {
      return false;
    }
  }

  static <T> T pick(Random rng, T[] xs) { return xs[rng.nextInt(xs.length)]; }
  static <T> T pick(Random rng, List<T> xs) { return xs.get(rng.nextInt(xs.size())); }
  static int pickInt(Random rng, int... xs) { return xs[rng.nextInt(xs.length)]; }

  static Object value(Random rng, TSDataType ty, boolean special) {
    switch (ty) {
      case BOOLEAN: return rng.nextBoolean();
      case INT32: { int[] p = {0, 1, -1, 7, 7, rng.nextInt(2001) - 1000, rng.nextInt(), Integer.MIN_VALUE, Integer.MAX_VALUE}; return p[rng.nextInt(p.length)]; }
      case INT64: { long[] p = {0, 1, -1, 7, 7, rng.nextInt(2001) - 1000, rng.nextLong(), Long.MIN_VALUE, Long.MAX_VALUE}; return p[rng.nextInt(p.length)]; }
      case TIMESTAMP: { long[] p = {0, rng.nextLong() >> 22, 1_700_000_000_000L}; return p[rng.nextInt(p.length)]; }
      case FLOAT: case DOUBLE: {
        List<Double> p = new ArrayList<>(List.of(0.0, 1.5, 1.5, Math.round((rng.nextDouble() * 2e4 - 1e4) * 1000) / 1000.0, (rng.nextDouble() * 2 - 1) * Math.pow(10, rng.nextInt(61) - 30)));
        if (special) p.addAll(List.of(Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.0, ty == TSDataType.DOUBLE ? Double.MIN_VALUE : (double) Float.MIN_VALUE));
        double v = p.get(rng.nextInt(p.size()));
        return ty == TSDataType.FLOAT ? (Object) (float) v : (Object) v;
      }
      case TEXT: case STRING: return pick(rng, WORDS);
      case BLOB: { byte[] b = new byte[rng.nextInt(11)]; rng.nextBytes(b); return b; }
      case DATE: return LocalDate.of(1900, 1, 1).plusDays(rng.nextInt(60001));
      default: throw new IllegalArgumentException(ty.toString());
    }
  }

  /**
   * A value for a series of encoding `e`. GORILLA_V1 gets no NaN: the Java decoder returns wrong
   * values after a NaN inside a page (docs/tsfile.md, quirks: a known reader bug, so no reference).
   */
  static Object value(Random rng, TSDataType ty, boolean special, TSEncoding e) {
    Object v = value(rng, ty, special);
    if (e == TSEncoding.GORILLA_V1 && (v instanceof Double d && d.isNaN() || v instanceof Float f && f.isNaN())) return ty == TSDataType.FLOAT ? (Object) 2.5f : (Object) 2.5;
    return v;
  }

  static void addPoint(TSRecord r, String n, TSDataType ty, Object v) {
    switch (ty) {
      case BOOLEAN: r.addPoint(n, (boolean) (Boolean) v); break;
      case INT32: r.addPoint(n, (int) (Integer) v); break;
      case INT64: case TIMESTAMP: r.addPoint(n, (long) (Long) v); break;
      case FLOAT: r.addPoint(n, v instanceof Double d ? (float) (double) d : (float) (Float) v); break;
      case DOUBLE: r.addPoint(n, (double) (Double) v); break;
      case TEXT: case STRING: r.addPoint(n, (String) v); break;
      case BLOB: r.addPoint(n, (byte[]) v); break;
      case DATE: r.addPoint(n, (LocalDate) v); break;
      default: throw new IllegalArgumentException(ty.toString());
    }
  }

  static void addValue(Tablet t, int row, int col, TSDataType ty, Object v) {
    switch (ty) {
      case BOOLEAN: t.addValue(row, col, (boolean) (Boolean) v); break;
      case INT32: t.addValue(row, col, (int) (Integer) v); break;
      case INT64: case TIMESTAMP: t.addValue(row, col, (long) (Long) v); break;
      case FLOAT: t.addValue(row, col, (float) (Float) v); break;
      case DOUBLE: t.addValue(row, col, (double) (Double) v); break;
      case TEXT: case STRING: t.addValue(row, col, (String) v); break;
      case BLOB: t.addValue(row, col, (byte[]) v); break;
      case DATE: t.addValue(row, col, (LocalDate) v); break;
      default: throw new IllegalArgumentException(ty.toString());
    }
  }

  /** A reader's value as xjson (FLOAT widened exactly, DATE as days since the epoch, TEXT as UTF-8 text). */
  static String xjson(TSDataType ty, Object v) {
    if (v == null) return "null";
    if (v instanceof Boolean b) return b.toString();
    if (v instanceof Binary b) v = ty == TSDataType.BLOB ? b.getValues() : b.getStringValue(StandardCharsets.UTF_8);
    if (v instanceof Integer || v instanceof Long) return "{\"i\":\"" + v + "\"}";
    if (v instanceof Float f) v = (double) f;
    if (v instanceof Double d) return "{\"f\":\"" + String.format("%016x", Double.doubleToRawLongBits(d)) + "\"}";
    if (v instanceof LocalDate d) return "{\"i\":\"" + d.toEpochDay() + "\"}";
    if (v instanceof byte[] b) {
      StringBuilder sb = new StringBuilder("{\"b\":\"");
      for (byte x : b) sb.append(String.format("%02x", x & 0xff));
      return sb.append("\"}").toString();
    }
    if (v instanceof String s) return str(s);
    throw new IllegalArgumentException(v.getClass().toString());
  }

  static String str(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }

  static Object fieldValue(Field f, TSDataType ty) {
    if (f == null || f.getDataType() == null) return null;
    switch (ty) {
      case BOOLEAN: return f.getBoolV();
      case INT32: return f.getIntV();
      case DATE: return f.getDateV();
      case INT64: case TIMESTAMP: return f.getLongV();
      case FLOAT: return f.getFloatV();
      case DOUBLE: return f.getDoubleV();
      default: return f.getBinaryV();
    }
  }

  /** One tree series' points [time, value] in the reader's order (file order of its chunks). */
  static List<Object[]> querySeries(File f, String device, String s, TSDataType ty, boolean aligned) throws Exception {
    List<Object[]> out = new ArrayList<>();
    try (TsFileReader r = new TsFileReader(f)) {
      QueryDataSet ds = r.query(QueryExpression.create(List.of(new Path(device, s, true)), null));
      while (ds.hasNext()) {
        RowRecord rec = ds.next();
        Object v = fieldValue(rec.getFields().get(0), ty);
        if (v != null) out.add(new Object[] {rec.getTimestamp(), v});
      }
    }
    return out;
  }

  static String params(Map<String, Object> p) {
    StringBuilder sb = new StringBuilder("{");
    for (var e : p.entrySet()) {
      if (sb.length() > 1) sb.append(',');
      sb.append(str(e.getKey())).append(':');
      Object v = e.getValue();
      sb.append(v instanceof String s ? str(s) : v instanceof Boolean || v instanceof Number ? v.toString() : (String) jsonOf(v));
    }
    return sb.append('}').toString();
  }

  @SuppressWarnings("unchecked")
  static String jsonOf(Object v) {
    if (v == null) return "null";
    if (v instanceof String s) return str(s);
    if (v instanceof Number || v instanceof Boolean) return v.toString();
    if (v instanceof List<?> l) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < l.size(); i++) sb.append(i > 0 ? "," : "").append(jsonOf(l.get(i)));
      return sb.append(']').toString();
    }
    if (v instanceof Map<?, ?> m) return params((Map<String, Object>) m);
    return str(v.toString());
  }

  /** Times of group g of `groups`, `rows` each: ascending, a later flush holding earlier times, interleaved, or overlapping with repeats. */
  static long time(String order, int g, int groups, int r, int rows) {
    switch (order) {
      case "backwards_groups": return BASE + ((long) (groups - 1 - g) * rows + r) * 10;
      case "interleaved_groups": return BASE + ((long) r * groups + g) * 10;
      case "overlapping_groups": return BASE + ((long) g * rows / 2 + r) * 10; // half of each group repeats the previous one's times
      case "duplicate_groups": return BASE + (long) r * 10; // every group the same times
      default: return BASE + ((long) g * rows + r) * 10;
    }
  }

  static final String[] ORDERS = {"ascending", "ascending", "backwards_groups", "interleaved_groups", "overlapping_groups", "duplicate_groups"};

  /**
   * Page size, time encoding and compressor (global writer config). A non-aligned page does not
   * record its time encoding (the reader uses its own config): TS_2DIFF or PLAIN, the ones
   * docs/tsfile.md supports there. An aligned time chunk names its own, but the 2.2.1 readers fail
   * on other time encoders (GORILLA, CHIMP, SPRINTZ, RLBE, ...): the tree reader loses the values
   * of later pages of aligned devices (seed 1 file 34 of the first draft: written "" at t=40,
   * Java null, Arrowsmith ""), the table reader throws NullPointerException in
   * SingleDeviceTsBlockReader (seed 7 file 67), so every file keeps TS_2DIFF / PLAIN.
   */
  static void configure(Random rng, Map<String, Object> params) {
    int page = pickInt(rng, 1, 2, 3, 10, 32, 100, 1000);
    String timeEnc = pick(rng, new String[] {"TS_2DIFF", "TS_2DIFF", "PLAIN"});
    String timeComp = pick(rng, COMPRESSORS);
    var c = TSFileDescriptor.getInstance().getConfig();
    c.setMaxNumberOfPointsInPage(page);
    c.setTimeEncoder(timeEnc);
    c.setCompressor(timeComp);
    params.put("page_points", page);
    params.put("time_encoding", timeEnc);
    params.put("time_compressor", timeComp);
  }

  static void oneFile(long seed, int k, File dir) throws Exception {
    Random rng = new Random(seed * 1_000_003L + k);
    File f = new File(dir, "tsfile-java-" + k + ".tsfile");
    f.delete();
    String json;
    try {
      json = rng.nextDouble() < 0.5 ? tree(rng, seed, k, f) : table(rng, seed, k, f);
    } catch (Exception e) {
      // A writer or reader crash on a valid schema: a skipped file the harness counts.
      StackTraceElement at = e.getStackTrace().length > 0 ? e.getStackTrace()[0] : null;
      json = "{\"format\":\"tsfile\",\"file\":" + str(f.getName()) + ",\"writer_crash\":" + str(e + " at " + at) + ",\"params\":" + params(PARAMS) + "}";
    }
    try (FileWriter w = new FileWriter(new File(dir, "tsfile-java-" + k + ".json"), StandardCharsets.UTF_8)) {
      w.write(json);
    }
  }

  /** An encoding the writer takes for `ty`; `--exclude tsfile:sprintz-float` leaves SPRINTZ FLOAT and DOUBLE out (the dimension that found the SPRINTZ sign bug, bench/results/differential.md). */
  static TSEncoding encodingFor(Random rng, TSDataType ty) {
    List<TSEncoding> xs = ACCEPTS.get(ty);
    if ((ty == TSDataType.FLOAT || ty == TSDataType.DOUBLE) && EXCLUDE.contains("sprintz-float")) xs = xs.stream().filter(e -> e != TSEncoding.SPRINTZ).toList();
    return pick(rng, xs);
  }

  static String tree(Random rng, long seed, int k, File f) throws Exception {
    Map<String, Object> params = PARAMS = new LinkedHashMap<>();
    params.put("seed", seed);
    params.put("index", k);
    params.put("writer", "org.apache.tsfile:tsfile " + VERSION + " (Java)");
    params.put("model", "tree");
    int ndev = 1 + rng.nextInt(3);
    boolean[] al = new boolean[ndev];
    for (int d = 0; d < ndev; d++) al[d] = rng.nextBoolean();
    configure(rng, params);
    // One type per measurement name across the file's devices (a name with two types is a
    // documented TypeMismatch; gen_tsfile.py covers that).
    int nm = 1 + rng.nextInt(5);
    TSDataType[] mtypes = new TSDataType[nm];
    for (int i = 0; i < nm; i++) mtypes[i] = pick(rng, TYPES);
    List<String> devices = new ArrayList<>();
    Map<String, Boolean> aligned = new LinkedHashMap<>();
    Map<String, List<Integer>> dseries = new LinkedHashMap<>();
    Map<String, Object> schema = new LinkedHashMap<>();
    Map<String, TSEncoding> encs = new HashMap<>();
    TsFileWriter w = new TsFileWriter(f);
    unseq(w);
    for (int d = 0; d < ndev; d++) {
      String dev = "root.sg" + rng.nextInt(2) + ".d" + d;
      devices.add(dev);
      aligned.put(dev, al[d]);
      List<Integer> ss = new ArrayList<>();
      for (int i = 0; i < nm; i++) if (rng.nextDouble() < 0.7 || (i == nm - 1 && ss.isEmpty())) ss.add(i);
      dseries.put(dev, ss);
      List<IMeasurementSchema> ms = new ArrayList<>();
      List<Object> desc = new ArrayList<>();
      for (int i : ss) {
        TSEncoding e = encodingFor(rng, mtypes[i]);
        CompressionType c = CompressionType.valueOf(pick(rng, COMPRESSORS));
        encs.put(dev + "/" + i, e);
        ms.add(new MeasurementSchema("m" + i, mtypes[i], e, c));
        desc.add(List.of("m" + i, mtypes[i].name(), e.name(), c.name()));
      }
      if (al[d]) w.registerAlignedTimeseries(dev, ms);
      else for (IMeasurementSchema m : ms) w.registerTimeseries(dev, m);
      schema.put(dev, Map.of("aligned", al[d], "series", desc));
    }
    params.put("devices", schema);
    int groups = pickInt(rng, 1, 1, 2, 3, 4);
    int rows = pickInt(rng, 1, 3, 10, 50, 200);
    String order = pick(rng, ORDERS);
    if (EXCLUDE.contains("out-of-order-groups")) order = "ascending";
    double nullRate = pick(rng, new Double[] {0.0, 0.1, 0.5});
    boolean special = rng.nextBoolean();
    params.put("chunk_groups", groups);
    params.put("rows_per_group", rows);
    params.put("order", order);
    params.put("null_rate", nullRate);
    params.put("special_floats", special);
    // Written points per (device, time): aligned rows, and per series (the row count of a repeated time).
    Map<String, TreeMap<Long, int[]>> written = new HashMap<>();
    for (int g = 0; g < groups; g++) {
      for (String dev : devices) {
        for (int r = 0; r < rows; r++) {
          long t = time(order, g, groups, r, rows);
          TSRecord rec = new TSRecord(dev, t);
          List<Integer> ss = dseries.get(dev);
          int[] counts = written.computeIfAbsent(dev, x -> new TreeMap<>()).computeIfAbsent(t, x -> new int[nm + 1]);
          boolean any = false;
          for (int i : ss) {
            // The first row of a device holds every series: a series without a point has no chunk.
            if (!(g == 0 && r == 0) && rng.nextDouble() < nullRate) continue;
            Object v = value(rng, mtypes[i], special, encs.get(dev + "/" + i));
            if (DEBUG) System.err.println("written " + dev + " t=" + t + " m" + i + "=" + xjson(mtypes[i], v));
            addPoint(rec, "m" + i, mtypes[i], v);
            counts[i]++;
            any = true;
          }
          if (!any) continue;
          counts[nm]++;
          w.writeRecord(rec);
        }
      }
      w.flush();
    }
    w.close();
    // Expected: each series alone (the reader's multi-series rows pair repeated times arbitrarily).
    List<String> devJson = new ArrayList<>();
    boolean repeats = false;
    // Columns: the measurements some device has (each has a point: see the first row).
    boolean[] used = new boolean[nm];
    for (List<Integer> ss : dseries.values()) for (int i : ss) used[i] = true;
    for (String dev : devices) {
      Map<Integer, TreeMap<Long, List<Object>>> per = new HashMap<>();
      for (int i : dseries.get(dev)) {
        TreeMap<Long, List<Object>> m = new TreeMap<>();
        for (Object[] p : querySeries(f, dev, "m" + i, mtypes[i], aligned.get(dev))) m.computeIfAbsent((Long) p[0], x -> new ArrayList<>()).add(p[1]);
        per.put(i, m);
      }
      TreeMap<Long, Integer> times = new TreeMap<>();
      for (var e : written.get(dev).entrySet()) {
        int[] c = e.getValue();
        int n = 0;
        if (aligned.get(dev)) n = c[nm];
        else for (int i = 0; i < nm; i++) n = Math.max(n, c[i]);
        // The reader's points count too: more than written would be a reader bug to see, not hide.
        for (int i : dseries.get(dev)) n = Math.max(n, per.get(i).getOrDefault(e.getKey(), List.of()).size());
        if (n > 0) times.put(e.getKey(), n);
        if (n > 1) repeats = true;
      }
      StringBuilder sb = new StringBuilder("{\"tags\":[" + str(dev) + "],\"time\":[");
      boolean first = true;
      for (var e : times.entrySet()) for (int j = 0; j < e.getValue(); j++) { sb.append(first ? "" : ",").append("{\"i\":\"").append(e.getKey()).append("\"}"); first = false; }
      sb.append("],\"columns\":{");
      boolean firstCol = true;
      for (int i = 0; i < nm; i++) {
        if (!used[i]) continue;
        sb.append(firstCol ? "" : ",").append(str("m" + i)).append(":[");
        firstCol = false;
        first = true;
        for (var e : times.entrySet()) {
          List<Object> vs = per.containsKey(i) ? per.get(i).getOrDefault(e.getKey(), List.of()) : List.of();
          for (int j = 0; j < e.getValue(); j++) { sb.append(first ? "" : ",").append(j < vs.size() ? xjson(mtypes[i], vs.get(j)) : "null"); first = false; }
        }
        sb.append("]");
      }
      sb.append("}}");
      if (!times.isEmpty()) devJson.add(sb.toString());
    }
    StringBuilder fields = new StringBuilder("[");
    for (int i = 0; i < nm; i++) if (used[i]) fields.append(fields.length() > 1 ? "," : "").append("[\"m").append(i).append("\",\"").append(mtypes[i].name()).append("\"]");
    fields.append("]");
    String devs = "[" + String.join(",", devJson) + "]";
    String rep = repeats ? ",\"repeats\":\"multiset\"" : "";
    return "{\"format\":\"tsfile\",\"file\":" + str(f.getName()) + ",\"params\":" + params(params) + ",\"reads\":" + reads(rng, "{}", "[\"device\"]", fields.toString(), devs, rep, groups * rows) + "}";
  }

  static String reads(Random rng, String query, String tags, String fields, String devs, String rep, int rows) {
    String common = ",\"tags\":" + tags + ",\"fields\":" + fields + ",\"devices\":" + devs + rep;
    String q = query.equals("{}") ? "" : query.substring(1, query.length() - 1);
    long start = BASE + rng.nextInt(rows * 10 + 1), end = BASE + rng.nextInt(rows * 10 + 51);
    String ranged = "{" + q + (q.isEmpty() ? "" : ",") + "\"start\":" + start + ",\"end\":" + end + "}";
    String batched = "{\"query\":" + query + ",\"batch_rows\":" + pickInt(rng, 1, 7, 64, Math.max(1, rows / 2)) + common + "},";
    return "[{\"query\":" + query + common + "}," + (EXCLUDE.contains("batches") ? "" : batched) + "{\"query\":" + ranged + common + "}]";
  }

  static String table(Random rng, long seed, int k, File f) throws Exception {
    Map<String, Object> params = PARAMS = new LinkedHashMap<>();
    params.put("seed", seed);
    params.put("index", k);
    params.put("writer", "org.apache.tsfile:tsfile " + VERSION + " (Java)");
    params.put("model", "table");
    configure(rng, params);
    int ntags = pickInt(rng, 1, 1, 2);
    int nf = 1 + rng.nextInt(6);
    List<String> names = new ArrayList<>();
    List<TSDataType> types = new ArrayList<>();
    List<ColumnCategory> cats = new ArrayList<>();
    List<IMeasurementSchema> ms = new ArrayList<>();
    List<Object> desc = new ArrayList<>();
    List<TSEncoding> fencs = new ArrayList<>();
    for (int i = 0; i < ntags; i++) {
      names.add("tag" + i);
      types.add(TSDataType.STRING);
      cats.add(ColumnCategory.TAG);
      ms.add(new MeasurementSchema("tag" + i, TSDataType.STRING));
    }
    for (int i = 0; i < nf; i++) {
      TSDataType ty = pick(rng, TYPES);
      TSEncoding e = encodingFor(rng, ty);
      CompressionType c = CompressionType.valueOf(pick(rng, COMPRESSORS));
      fencs.add(e);
      names.add("f" + i);
      types.add(ty);
      cats.add(ColumnCategory.FIELD);
      ms.add(new MeasurementSchema("f" + i, ty, e, c));
      desc.add(List.of("f" + i, ty.name(), e.name(), c.name()));
    }
    params.put("fields", desc);
    List<String[]> devices = new ArrayList<>();
    int nd = 1 + rng.nextInt(4);
    String[] tagVals = {"d1", "d2", "dev-3", "ü"};
    for (int tries = 0; devices.size() < nd && tries < 20; tries++) {
      String[] d = new String[ntags];
      for (int i = 0; i < ntags; i++) d[i] = pick(rng, tagVals);
      if (devices.stream().noneMatch(x -> Arrays.equals(x, d))) devices.add(d);
    }
    int groups = pickInt(rng, 1, 1, 2, 3, 4);
    int rows = pickInt(rng, 1, 3, 10, 50, 200);
    String order = pick(rng, ORDERS);
    if (EXCLUDE.contains("out-of-order-groups")) order = "ascending";
    double nullRate = pick(rng, new Double[] {0.0, 0.1, 0.5, 1.0});
    boolean special = rng.nextBoolean();
    List<Object> dl = new ArrayList<>();
    for (String[] d : devices) dl.add(Arrays.asList(d));
    params.put("devices", dl);
    params.put("chunk_groups", groups);
    params.put("rows_per_group", rows);
    params.put("order", order);
    params.put("null_rate", nullRate);
    params.put("special_floats", special);
    TsFileWriter w = new TsFileWriter(f);
    unseq(w);
    w.registerTableSchema(new TableSchema("t", ms, cats));
    // What was written per (device, time, field), nulls too, for the reader's lost points below.
    Map<String, List<Object>> written = new HashMap<>();
    for (int g = 0; g < groups; g++) {
      for (String[] d : devices) {
        Tablet tab = new Tablet("t", names, types, cats, rows);
        for (int r = 0; r < rows; r++) {
          tab.addTimestamp(r, time(order, g, groups, r, rows));
          for (int i = 0; i < ntags; i++) tab.addValue(r, i, d[i]);
          for (int i = 0; i < nf; i++) {
            if (rng.nextDouble() < nullRate) {
              written.computeIfAbsent(Arrays.asList(d) + "/" + tab.getTimestamp(r) + "/" + i, x -> new ArrayList<>()).add(null);
              continue;
            }
            Object v = value(rng, types.get(ntags + i), special, fencs.get(i));
            if (DEBUG) System.err.println("written " + Arrays.toString(d) + " t=" + tab.getTimestamp(r) + " f" + i + "=" + xjson(types.get(ntags + i), v));
            written.computeIfAbsent(Arrays.asList(d) + "/" + tab.getTimestamp(r) + "/" + i, x -> new ArrayList<>()).add(v);
            addValue(tab, r, ntags + i, types.get(ntags + i), v);
          }
        }
        w.writeTable(tab);
      }
      w.flush();
    }
    w.close();
    // Expected: the table reader's rows, grouped by device in its order (a device's chunk
    // groups sorted by start time, concatenated; the checker sorts stably by time).
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < nf; i++) all.add(i);
    Map<String, List<Object[]>> got;
    try {
      got = readTable(f, ntags, all, types);
    } catch (NullPointerException e) {
      // The 2.2.1 table reader throws NullPointerException (SingleDeviceTsBlockReader
      // fillInto, "vector" is null) on some files with all-null pages when it reads several
      // fields together (seed 7 file 67); one field at a time it reads them: the same rows.
      got = null;
      for (int i = 0; i < nf; i++) {
        Map<String, List<Object[]>> one = readTable(f, ntags, List.of(i), types);
        if (got == null) {
          got = new LinkedHashMap<>();
          for (var e2 : one.entrySet()) {
            List<Object[]> rows2 = new ArrayList<>();
            for (Object[] r0 : e2.getValue()) { Object[] x = new Object[2 + nf]; x[0] = r0[0]; x[1] = r0[1]; rows2.add(x); }
            got.put(e2.getKey(), rows2);
          }
        }
        if (!got.keySet().equals(one.keySet())) throw new IllegalStateException("table reader: devices differ per field");
        for (var e2 : one.entrySet()) {
          List<Object[]> mineRows = got.get(e2.getKey());
          if (mineRows.size() != e2.getValue().size()) throw new IllegalStateException("table reader: rows differ per field");
          for (int r = 0; r < mineRows.size(); r++) {
            if (!mineRows.get(r)[1].equals(e2.getValue().get(r)[1])) throw new IllegalStateException("table reader: times differ per field");
            mineRows.get(r)[2 + i] = e2.getValue().get(r)[2];
          }
        }
      }
      params.put("reader_per_field", true);
    }
    Map<String, StringBuilder[]> per = new LinkedHashMap<>();
    for (var e : got.entrySet()) {
      StringBuilder[] b = new StringBuilder[nf + 1];
      for (int i = 0; i <= nf; i++) b[i] = new StringBuilder();
      per.put(e.getKey(), b);
      for (Object[] row : e.getValue()) {
        String sep = b[0].length() == 0 ? "" : ",";
        b[0].append(sep).append("{\"i\":\"").append(row[1]).append("\"}");
        for (int i = 0; i < nf; i++) {
          Object v = row[2 + i];
          TSDataType ty = types.get(ntags + i);
          List<Object> mine = written.get(row[0] + "/" + row[1] + "/" + i);
          if (v == null && mine != null && mine.size() == 1 && mine.get(0) != null) {
            // The 2.2.1 table reader returns null for points written after a chunk group in
            // which the device's column was all null (seed 7 file 69); the file holds them
            // (Arrowsmith returns them): the written value, counted in the params.
            v = mine.get(0);
            params.merge("reader_lost_points", 1, (x, y) -> (Integer) x + (Integer) y);
          }
          b[1 + i].append(sep).append(xjson(ty, v));
        }
      }
    }
    List<String> devJson = new ArrayList<>();
    for (var e : per.entrySet()) {
      StringBuilder sb = new StringBuilder("{\"tags\":[" + e.getKey() + "],\"time\":[" + e.getValue()[0] + "],\"columns\":{");
      for (int i = 0; i < nf; i++) sb.append(i > 0 ? "," : "").append(str("f" + i)).append(":[").append(e.getValue()[1 + i]).append("]");
      devJson.add(sb.append("}}").toString());
    }
    StringBuilder fields = new StringBuilder("[");
    for (int i = 0; i < nf; i++) fields.append(i > 0 ? "," : "").append("[\"f").append(i).append("\",\"").append(types.get(ntags + i).name()).append("\"]");
    fields.append("]");
    StringBuilder tags = new StringBuilder("[");
    for (int i = 0; i < ntags; i++) tags.append(i > 0 ? "," : "").append("\"tag").append(i).append("\"");
    tags.append("]");
    return "{\"format\":\"tsfile\",\"file\":" + str(f.getName()) + ",\"params\":" + params(params) + ",\"reads\":" + reads(rng, "{\"table\":\"t\"}", tags.toString(), fields.toString(), "[" + String.join(",", devJson) + "]", "", groups * rows) + "}";
  }

  /** The table reader's rows of some fields, per device key (JSON tags): {tag list, time, values by field index...}. */
  static Map<String, List<Object[]>> readTable(File f, int ntags, List<Integer> fields, List<TSDataType> types) throws Exception {
    List<String> cols = new ArrayList<>();
    for (int i = 0; i < ntags; i++) cols.add("tag" + i);
    for (int i : fields) cols.add("f" + i);
    int nf = types.size() - ntags;
    Map<String, List<Object[]>> out = new LinkedHashMap<>();
    try (ITsFileReader r = new TsFileReaderBuilder().file(f).build(); ResultSet rs = r.query("t", cols, Long.MIN_VALUE, Long.MAX_VALUE)) {
      while (rs.next()) {
        List<String> tv = new ArrayList<>();
        List<String> tj = new ArrayList<>();
        for (int i = 0; i < ntags; i++) {
          String x = rs.isNull("tag" + i) ? null : rs.getString("tag" + i);
          tv.add(x);
          tj.add(x == null ? "null" : str(x));
        }
        Object[] row = new Object[2 + nf];
        row[0] = tv;
        row[1] = rs.getLong(1);
        for (int i : fields) {
          String n = "f" + i;
          TSDataType ty = types.get(ntags + i);
          if (rs.isNull(n)) continue;
          switch (ty) {
            case BOOLEAN: row[2 + i] = rs.getBoolean(n); break;
            case INT32: row[2 + i] = rs.getInt(n); break;
            case DATE: row[2 + i] = rs.getDate(n); break;
            case INT64: case TIMESTAMP: row[2 + i] = rs.getLong(n); break;
            case FLOAT: row[2 + i] = rs.getFloat(n); break;
            case DOUBLE: row[2 + i] = rs.getDouble(n); break;
            case BLOB: row[2 + i] = rs.getBinary(n); break;
            default: row[2 + i] = rs.getString(n);
          }
        }
        out.computeIfAbsent(String.join(",", tj), x -> new ArrayList<>()).add(row);
      }
    }
    return out;
  }

  static final String VERSION = "2.2.1";
  /** The parameters of the file being written (kept for a writer crash's report). */
  static Map<String, Object> PARAMS = new LinkedHashMap<>();
  /** GEN_TSFILE_JAVA_DEBUG=1: print every written tree point (for minimizing a disagreement). */
  static final boolean DEBUG = System.getenv("GEN_TSFILE_JAVA_DEBUG") != null;
  /** Generator dimensions run.mjs --exclude can leave out (as gen_tsfile.py's). */
  static final java.util.Set<String> KNOBS = java.util.Set.of("out-of-order-groups", "batches", "sprintz-float");
  static final java.util.Set<String> EXCLUDE = new java.util.HashSet<>();

  public static void main(String[] args) throws Exception {
    long seed = Long.parseLong(args[0]);
    int count = Integer.parseInt(args[1]);
    File dir = new File(args[2]);
    Integer only = args.length > 3 && !args[3].equals("-1") ? Integer.valueOf(args[3]) : null;
    if (args.length > 4) for (String x : args[4].split(",")) if (!x.isEmpty()) EXCLUDE.add(x);
    if (!KNOBS.containsAll(EXCLUDE)) throw new IllegalArgumentException("unknown exclude " + EXCLUDE + " (known: " + KNOBS + ")");
    dir.mkdirs();
    probe(dir);
    StringBuilder sb = new StringBuilder();
    for (var e : ACCEPTS.entrySet()) sb.append(' ').append(e.getKey()).append('=').append(e.getValue());
    System.err.println("gen-tsfile-java: encodings the writer takes:" + sb);
    if (only != null) oneFile(seed, only, dir);
    else for (int k = 0; k < count; k++) oneFile(seed, k, dir);
  }
}
