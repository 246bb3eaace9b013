// MessagePack payloads as Java services write them (bench/payloads.mjs runs this):
//  - java-logs: a log stream, one map per event written by msgpack-core's MessagePacker and
//    concatenated (as a log shipper buffers them), keys varying by event;
//  - java-wide: an array of 250-key records written by Jackson's ObjectMapper over
//    jackson-dataformat-msgpack's MessagePackFactory (how a Spring service answers).
// Deterministic (java.util.Random with fixed seeds). Usage: java GenPayloads OUT_DIR
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.jackson.dataformat.MessagePackFactory;

public class GenPayloads {
  static final String[] LEVELS = {"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"};
  static final String[] LOGGERS = {"com.example.api.OrderController", "com.example.db.Pool", "org.springframework.web.servlet.DispatcherServlet", "com.example.auth.TokenFilter"};
  static final String[] WORDS = {"order", "accepted", "user", "payment", "retry", "timeout", "cache", "miss", "hit", "request", "completed", "in", "ms"};

  public static void main(String[] args) throws IOException {
    String out = args[0];
    write(out + "/payload_java-logs.msgpack", logs(20_000));
    write(out + "/payload_java-wide.msgpack", wide(2_000, 250));
  }

  static void write(String path, byte[] bytes) throws IOException {
    try (FileOutputStream f = new FileOutputStream(path)) {
      f.write(bytes);
    }
  }

  static String sentence(Random r) {
    StringBuilder b = new StringBuilder();
    int n = 3 + r.nextInt(8);
    for (int i = 0; i < n; i++) b.append(i == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
    return b.toString();
  }

  static byte[] logs(int n) throws IOException {
    Random r = new Random(7);
    MessageBufferPacker p = MessagePack.newDefaultBufferPacker();
    long t = 1_767_225_600_000L;
    for (int i = 0; i < n; i++) {
      t += r.nextInt(50);
      boolean user = r.nextInt(10) < 3, trace = r.nextBoolean(), dur = r.nextInt(10) < 4, status = r.nextInt(4) == 0, exc = r.nextInt(20) == 0;
      p.packMapHeader(5 + (user ? 1 : 0) + (trace ? 1 : 0) + (dur ? 1 : 0) + (status ? 1 : 0) + (exc ? 1 : 0));
      p.packString("@timestamp").packLong(t);
      p.packString("level").packString(LEVELS[r.nextInt(LEVELS.length)]);
      p.packString("logger").packString(LOGGERS[r.nextInt(LOGGERS.length)]);
      p.packString("thread").packString("http-nio-8080-exec-" + (1 + r.nextInt(10)));
      p.packString("message").packString(sentence(r));
      if (trace) p.packString("traceId").packString(Long.toHexString(r.nextLong() | Long.MIN_VALUE));
      if (user) p.packString("userId").packLong(100_000 + r.nextInt(900_000));
      if (dur) p.packString("durationMs").packDouble(r.nextDouble() * 500);
      if (status) p.packString("http.status").packInt(new int[] {200, 201, 400, 404, 500}[r.nextInt(5)]);
      if (exc) p.packString("exception").packString("java.net.SocketTimeoutException: Read timed out\n\tat java.base/sun.nio.ch.NioSocketImpl.timedRead(NioSocketImpl.java:288)");
    }
    return p.toByteArray();
  }

  static byte[] wide(int n, int keys) throws IOException {
    Random r = new Random(11);
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", (long) i);
      for (int k = 1; k < keys; k++) {
        String key = "field_" + k;
        switch (k % 5) {
          case 0 -> m.put(key, r.nextInt(1000));
          case 1 -> m.put(key, r.nextDouble() * 1e4);
          case 2 -> m.put(key, "v" + r.nextInt(50));
          case 3 -> m.put(key, r.nextBoolean());
          default -> m.put(key, 1_000_000_000L * (1 + r.nextInt(3)) + r.nextInt(1_000_000));
        }
      }
      rows.add(m);
    }
    return new ObjectMapper(new MessagePackFactory()).writeValueAsBytes(rows);
  }
}
