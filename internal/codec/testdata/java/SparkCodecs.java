// SparkCodecs compresses and decompresses files exactly as Apache Spark's
// CompressionCodec classes (core/src/main/scala/org/apache/spark/io/
// CompressionCodec.scala, Spark 3.5) set up the Java streams, so that Go
// tests can check clusterlens's codec package against the real libraries.
//
// Usage:
//   java SparkCodecs compress   <lz4|lzf|snappy|zstd> <in> <out> [flushEveryLines]
//   java SparkCodecs decompress <lz4|lzf|snappy|zstd> <in> <out>
//   java SparkCodecs batch <file>   (one of the commands above per line, one JVM for all)
//
// compress writes the input line by line through a PrintWriter the way
// EventLogFileWriter does (compressedContinuousOutputStream), flushing every
// flushEveryLines lines (default 10), as event logging flushes after events.
import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import com.ning.compress.lzf.LZFInputStream;
import com.ning.compress.lzf.LZFOutputStream;
import java.io.*;
import java.nio.charset.StandardCharsets;
import net.jpountz.lz4.LZ4BlockInputStream;
import net.jpountz.lz4.LZ4BlockOutputStream;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.xxhash.XXHashFactory;
import org.xerial.snappy.SnappyInputStream;
import org.xerial.snappy.SnappyOutputStream;

public class SparkCodecs {
  static final int LZ4_BLOCK_SIZE = 32 * 1024;    // spark.io.compression.lz4.blockSize
  static final int SNAPPY_BLOCK_SIZE = 32 * 1024; // spark.io.compression.snappy.blockSize
  static final int ZSTD_LEVEL = 1;                // spark.io.compression.zstd.level
  static final int ZSTD_BUFFER = 32 * 1024;       // spark.io.compression.zstd.bufferSize
  static final int LZ4_SEED = 0x9747b28c;         // LZ4BlockOutputStream.DEFAULT_SEED

  static OutputStream compressed(String codec, OutputStream s) throws IOException {
    switch (codec) {
      case "lz4":
        return new LZ4BlockOutputStream(s, LZ4_BLOCK_SIZE, LZ4Factory.fastestInstance().fastCompressor(),
            XXHashFactory.fastestInstance().newStreamingHash32(LZ4_SEED).asChecksum(), false);
      case "lzf":
        return new LZFOutputStream(s).setFinishBlockOnFlush(true);
      case "snappy":
        return new SnappyOutputStream(s, SNAPPY_BLOCK_SIZE);
      case "zstd": // compressedContinuousOutputStream (SPARK-29322)
        return new BufferedOutputStream(new ZstdOutputStreamNoFinalizer(s, RecyclingBufferPool.INSTANCE)
            .setLevel(ZSTD_LEVEL).setWorkers(0).setCloseFrameOnFlush(true), ZSTD_BUFFER);
      default:
        throw new IllegalArgumentException("unknown codec " + codec);
    }
  }

  static InputStream decompressed(String codec, InputStream s) throws IOException {
    switch (codec) {
      case "lz4":
        return new LZ4BlockInputStream(s, LZ4Factory.fastestInstance().fastDecompressor(),
            XXHashFactory.fastestInstance().newStreamingHash32(LZ4_SEED).asChecksum(), false);
      case "lzf":
        return new LZFInputStream(s);
      case "snappy":
        return new SnappyInputStream(s);
      case "zstd": // compressedContinuousInputStream
        return new BufferedInputStream(
            new ZstdInputStreamNoFinalizer(s, RecyclingBufferPool.INSTANCE).setContinuous(true), ZSTD_BUFFER);
      default:
        throw new IllegalArgumentException("unknown codec " + codec);
    }
  }

  public static void main(String[] args) throws IOException {
    if (args.length == 2 && args[0].equals("batch")) {
      for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get(args[1]), StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          run(line.trim().split("\t"));
        }
      }
      return;
    }
    run(args);
  }

  static void run(String[] args) throws IOException {
    if (args.length < 4) {
      System.err.println("usage: SparkCodecs compress|decompress codec in out [flushEveryLines]");
      System.exit(2);
    }
    String mode = args[0], codec = args[1];
    if (mode.equals("compress")) {
      int flushEvery = args.length > 4 ? Integer.parseInt(args[4]) : 10;
      try (BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(args[2]), StandardCharsets.UTF_8));
           PrintWriter out = new PrintWriter(new OutputStreamWriter(compressed(codec, new FileOutputStream(args[3])), StandardCharsets.UTF_8))) {
        String line;
        int n = 0;
        while ((line = in.readLine()) != null) {
          out.print(line);
          out.print('\n');
          if (flushEvery > 0 && ++n % flushEvery == 0) {
            out.flush();
          }
        }
      }
    } else if (mode.equals("decompress")) {
      try (InputStream in = decompressed(codec, new FileInputStream(args[2]));
           OutputStream out = new FileOutputStream(args[3])) {
        in.transferTo(out);
      }
    } else {
      System.err.println("unknown mode " + mode);
      System.exit(2);
    }
  }
}
