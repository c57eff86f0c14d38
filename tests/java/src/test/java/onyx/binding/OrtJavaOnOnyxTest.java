package onyx.binding;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxTensorLike;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import ai.onnxruntime.TensorInfo.OnnxTensorType;
import ai.onnxruntime.platform.Fp16Conversions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * ORT's Java binding (com.microsoft.onnxruntime:onnxruntime from Maven Central, unmodified) on
 * onyx's libonnxruntime.so.1: the ctest java_binding, run by tests/java/run.sh.
 *
 * <p>System properties (set by the runner): {@code onyx.libdir} (the folder of onyx's
 * libonnxruntime.so.1), {@code onyx.stripes} (models/stripes.onnx), {@code onyx.all_types}
 * (tests/bindings/all_types.onnx). The runner also sets {@code
 * onnxruntime.native.onnxruntime.path}, which makes the binding load onyx's library instead of the
 * one in its jar; {@link #processMapsOnyxLibraryOnly} fails when that did not happen.
 *
 * <p>Element types: the binding creates tensors of float, double, float16 (ShortBuffer with
 * OnnxJavaType.FLOAT16), int8, int16, int32, int64, uint8 (ByteBuffer with OnnxJavaType.UINT8),
 * bool and string. It has no Java type for uint16, uint32 or uint64 and so cannot create such a
 * tensor from Java data; it reads them back as INT16/INT32/INT64 holding the same bits. This test
 * hands them to all_types.onnx as the outputs of a second session, a Cast model written here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrtJavaOnOnyxTest {
  private static final String LIBRARY = "libonnxruntime.so.1";
  private static final long N = 2;

  private OrtEnvironment env;
  private Path libDir;
  private Path stripesModel;
  private Path allTypesModel;
  /** The stripes session made from the model's file: the first session of this process. */
  private OrtSession stripes;
  /** The paths mapped in this process that name libonnxruntime.so, read after the first session. */
  private List<String> mappedRuntimes;

  private OrtSession allTypes;
  private OrtSession.Result allTypesResult;

  private static String property(String name) {
    String value = System.getProperty(name);
    assertNotNull(value, "system property " + name + " is not set (run tests/java/run.sh)");
    return value;
  }

  private static OrtSession.SessionOptions options() throws OrtException {
    OrtSession.SessionOptions options = new OrtSession.SessionOptions();
    options.setIntraOpNumThreads(1);
    options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
    return options;
  }

  @BeforeAll
  void open() throws Exception {
    libDir = Path.of(property("onyx.libdir"));
    stripesModel = Path.of(property("onyx.stripes"));
    allTypesModel = Path.of(property("onyx.all_types"));
    env = OrtEnvironment.getEnvironment();
    try (OrtSession.SessionOptions options = options()) {
      stripes = env.createSession(stripesModel.toString(), options);
    }
    mappedRuntimes = new ArrayList<>();
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      int slash = line.indexOf('/');
      if (slash >= 0 && line.contains("libonnxruntime.so")) {
        String path = line.substring(slash);
        if (!mappedRuntimes.contains(path)) mappedRuntimes.add(path);
      }
    }
    System.out.println(
        "binding's native library reports version " + env.getVersion() + "; mapped: " + mappedRuntimes);
  }

  @AfterAll
  void close() throws OrtException {
    if (allTypesResult != null) allTypesResult.close();
    if (allTypes != null) allTypes.close();
    if (stripes != null) stripes.close();
  }

  // ---------------------------------------------------------------- the library loaded

  @Test
  void processMapsOnyxLibraryOnly() throws IOException {
    Path ours = libDir.resolve(LIBRARY).toRealPath();
    assertFalse(mappedRuntimes.isEmpty(), "no libonnxruntime.so is mapped in this process");
    for (String mapped : mappedRuntimes) {
      Path file = Path.of(mapped);
      assertTrue(Files.exists(file), "mapped " + mapped + " (gone from disk: not onyx's " + ours + ")");
      assertEquals(ours, file.toRealPath(), "mapped " + mapped + " is not onyx's library");
    }
  }

  // ---------------------------------------------------------------- stripes.onnx

  /** An 8x8 image of stripes two pixels wide: across rows (horizontal, class 1) or columns (0). */
  private static float[] stripesImage(boolean horizontal) {
    float[] image = new float[64];
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) image[r * 8 + c] = ((horizontal ? r : c) / 2) % 2;
    return image;
  }

  private static int argmax(float[] p, int item) {
    int best = 0;
    for (int k = 1; k < 3; ++k) if (p[item * 3 + k] > p[item * 3 + best]) best = k;
    return best;
  }

  /** Runs a batch of two images (horizontal, then vertical stripes) and checks the answer. */
  private void classify(OrtSession session) throws OrtException {
    FloatBuffer images = FloatBuffer.allocate(128);
    images.put(stripesImage(true)).put(stripesImage(false)).rewind();
    try (OnnxTensor image = OnnxTensor.createTensor(env, images, new long[] {N, 1, 8, 8});
        OrtSession.Result result = session.run(Map.of("image", image), Set.of("probabilities"))) {
      assertEquals(1, result.size());
      OnnxValue value = result.get("probabilities").orElseThrow();
      assertInstanceOf(OnnxTensor.class, value);
      OnnxTensor probabilities = (OnnxTensor) value;
      assertEquals(OnnxJavaType.FLOAT, probabilities.getInfo().type);
      assertArrayEquals(new long[] {N, 3}, probabilities.getInfo().getShape());
      float[] p = new float[6];
      probabilities.getFloatBuffer().get(p);
      assertEquals(1, argmax(p, 0), "horizontal stripes: " + Arrays.toString(p));
      assertEquals(0, argmax(p, 1), "vertical stripes: " + Arrays.toString(p));
      for (int b = 0; b < N; ++b)
        assertEquals(1.0, p[b * 3] + p[b * 3 + 1] + p[b * 3 + 2], 1e-5, "probabilities of item " + b);
      float[][] asArray = (float[][]) probabilities.getValue();
      assertArrayEquals(Arrays.copyOfRange(p, 0, 3), asArray[0]);
      assertArrayEquals(Arrays.copyOfRange(p, 3, 6), asArray[1]);
    }
  }

  private static void checkTensorInfo(
      NodeInfo node, String name, OnnxTensorType type, long[] shape, String[] dimNames) {
    assertEquals(name, node.getName());
    assertInstanceOf(TensorInfo.class, node.getInfo(), name + " is a tensor");
    TensorInfo info = (TensorInfo) node.getInfo();
    assertEquals(type, info.onnxType, name + "'s element type");
    assertArrayEquals(shape, info.getShape(), name + "'s shape");
    assertArrayEquals(dimNames, info.getDimensionNames(), name + "'s dim names");
  }

  @Test
  void stripesNamesAndShapes() throws OrtException {
    assertEquals(1, stripes.getNumInputs());
    assertEquals(1, stripes.getNumOutputs());
    assertEquals(List.of("image"), new ArrayList<>(stripes.getInputNames()));
    assertEquals(List.of("probabilities"), new ArrayList<>(stripes.getOutputNames()));
    checkTensorInfo(
        stripes.getInputInfo().get("image"),
        "image",
        OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        new long[] {-1, 1, 8, 8},
        new String[] {"batch", "", "", ""});
    checkTensorInfo(
        stripes.getOutputInfo().get("probabilities"),
        "probabilities",
        OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
        new long[] {-1, 3},
        new String[] {"batch", ""});
  }

  @Test
  void stripesFromFileClassifies() throws OrtException {
    classify(stripes);
  }

  @Test
  void stripesFromBytesClassifies() throws Exception {
    byte[] model = Files.readAllBytes(stripesModel);
    try (OrtSession.SessionOptions options = options();
        OrtSession fromBytes = env.createSession(model, options)) {
      assertEquals(List.of("image"), new ArrayList<>(fromBytes.getInputNames()));
      classify(fromBytes);
    }
    ByteBuffer direct = ByteBuffer.allocateDirect(model.length).put(model);
    direct.rewind();
    try (OrtSession fromBuffer = env.createSession(direct)) {
      classify(fromBuffer);
    }
  }

  @Test
  void stripesBadFeedsThrow() throws OrtException {
    // Wrong rank: the runtime refuses it, naming the input.
    try (OnnxTensor flat = OnnxTensor.createTensor(env, FloatBuffer.allocate(10), new long[] {10})) {
      OrtException e = assertThrows(OrtException.class, () -> stripes.run(Map.of("image", flat)).close());
      assertTrue(e.getMessage().contains("image"), "the error names the input: " + e.getMessage());
    }
    // Right rank, a wrong fixed dim.
    try (OnnxTensor wide =
        OnnxTensor.createTensor(env, FloatBuffer.allocate(2 * 8 * 9), new long[] {2, 1, 8, 9})) {
      assertThrows(OrtException.class, () -> stripes.run(Map.of("image", wide)).close());
    }
    // Wrong element type.
    try (OnnxTensor doubles =
        OnnxTensor.createTensor(env, DoubleBuffer.allocate(64), new long[] {1, 1, 8, 8})) {
      assertThrows(OrtException.class, () -> stripes.run(Map.of("image", doubles)).close());
    }
    // A wrong input name and a wrong output name (refused by the binding before the runtime).
    try (OnnxTensor image = OnnxTensor.createTensor(env, FloatBuffer.allocate(64), new long[] {1, 1, 8, 8})) {
      assertThrows(OrtException.class, () -> stripes.run(Map.of("images", image)).close());
      assertThrows(
          OrtException.class, () -> stripes.run(Map.of("image", image), Set.of("logits")).close());
    }
    // The session still works.
    classify(stripes);
  }

  // ---------------------------------------------------------------- all_types.onnx

  /** A protobuf message, written field by field (enough of the wire format for a small model). */
  private static final class Proto {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    private void raw(long v) {
      while ((v & ~0x7FL) != 0) {
        bytes.write((int) ((v & 0x7F) | 0x80));
        v >>>= 7;
      }
      bytes.write((int) v);
    }

    Proto varint(int field, long value) {
      raw((long) field << 3);
      raw(value);
      return this;
    }

    Proto bytes(int field, byte[] value) {
      raw(((long) field << 3) | 2);
      raw(value.length);
      bytes.write(value, 0, value.length);
      return this;
    }

    Proto string(int field, String value) {
      return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    Proto message(int field, Proto value) {
      return bytes(field, value.bytes.toByteArray());
    }
  }

  // TensorProto.DataType codes (the binding's OnnxTensorType numbers its types differently).
  private static final int ONNX_INT64 = 7;
  private static final int[] ONNX_UNSIGNED_WIDE = {4, 12, 13}; // UINT16, UINT32, UINT64

  /** ValueInfoProto of a tensor [N, 3] of the given TensorProto.DataType. */
  private static Proto tensorValueInfo(String name, int onnxDataType) {
    Proto shape = new Proto().message(1, new Proto().string(2, "N")).message(1, new Proto().varint(1, 3));
    Proto tensor = new Proto().varint(1, onnxDataType).message(2, shape);
    return new Proto().string(1, name).message(2, new Proto().message(1, tensor));
  }

  private static final OnnxTensorType[] UNSIGNED_WIDE = {
    OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16,
    OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32,
    OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64,
  };
  private static final String[] UNSIGNED_WIDE_NAMES = {"uint16", "uint32", "uint64"};

  /** A model casting int64 inputs wide_uintK [N,3] to uintK outputs as_uintK, K = 16, 32, 64. */
  private static byte[] castModel() {
    Proto graph = new Proto();
    for (int i = 0; i < UNSIGNED_WIDE.length; ++i) {
      String k = UNSIGNED_WIDE_NAMES[i];
      Proto to = new Proto().string(1, "to").varint(3, ONNX_UNSIGNED_WIDE[i]).varint(20, 2);
      graph.message(
          1,
          new Proto().string(1, "wide_" + k).string(2, "as_" + k).string(3, "cast_" + k).string(4, "Cast").message(5, to));
    }
    graph.string(2, "casts");
    for (String k : UNSIGNED_WIDE_NAMES)
      graph.message(11, tensorValueInfo("wide_" + k, ONNX_INT64));
    for (int i = 0; i < UNSIGNED_WIDE.length; ++i)
      graph.message(12, tensorValueInfo("as_" + UNSIGNED_WIDE_NAMES[i], ONNX_UNSIGNED_WIDE[i]));
    Proto model = new Proto().varint(1, 8).message(7, graph).message(8, new Proto().string(1, "").varint(2, 17));
    return model.bytes.toByteArray();
  }

  // The inputs, row-major [2, 3]; every numeric output is in + in, so each value is chosen to be
  // doubled exactly (the unsigned ones past the signed range of their width).
  private static final float[] FLOATS = {0.1f, -2.25f, 1e30f, 0f, -0f, 65504f};
  private static final double[] DOUBLES = {0.1, -1e300, 3.5, 0.0, 4.9e-324, -7.25};
  private static final float[] HALVES = {1.5f, -2f, 0.099975586f, 1000f, 30000f, -0.5f};
  private static final byte[] INT8S = {1, -2, 63, -64, 0, 50};
  private static final short[] INT16S = {1, -2, 16383, -16384, 0, 1234};
  private static final int[] INT32S = {1, -2, (1 << 30) - 1, -(1 << 30), 0, 123456789};
  private static final long[] INT64S = {1, -2, (1L << 62) - 1, -(1L << 62), 0, 1234567890123L};
  private static final byte[] UINT8S = {0, 1, 100, 127, 5, 64};
  private static final long[][] UNSIGNED_WIDE_VALUES = {
    {0, 1, 30000, 32767, 5, 20000},
    {0, 1, 2_000_000_000L, 2_147_483_647L, 5, 1_500_000_000L},
    {0, 1, (1L << 62) + 1, Long.MAX_VALUE, 5, 3L << 60},
  };
  private static final boolean[][] BOOLS = {{true, false, true}, {false, false, true}};
  private static final String[][] STRINGS = {{"a", "", "h\u00e9llo \u2713"}, {"x y", "\ud83d\ude42", "longer string, 27 bytes.."}};

  private static final long[] SHAPE = {N, 3};

  private static ShortBuffer halves() {
    ShortBuffer bits = ShortBuffer.allocate(HALVES.length);
    for (float h : HALVES) bits.put(Fp16Conversions.floatToFp16(h));
    return bits.rewind();
  }

  /** Runs all_types.onnx once on every input, made with the binding's various tensor factories. */
  private synchronized OrtSession.Result allTypes() throws Exception {
    if (allTypesResult != null) return allTypesResult;
    List<OnnxTensor> made = new ArrayList<>();
    try (OrtSession.SessionOptions options = options();
        OrtSession casts = env.createSession(castModel(), options)) {
      Map<String, OnnxTensor> wide = new LinkedHashMap<>();
      for (int i = 0; i < UNSIGNED_WIDE_NAMES.length; ++i) {
        OnnxTensor t = OnnxTensor.createTensor(env, LongBuffer.wrap(UNSIGNED_WIDE_VALUES[i]), SHAPE);
        made.add(t);
        wide.put("wide_" + UNSIGNED_WIDE_NAMES[i], t);
      }
      try (OrtSession.Result unsigned = casts.run(wide)) {
        Map<String, OnnxTensorLike> feeds = new LinkedHashMap<>();
        feeds.put("in_float32", OnnxTensor.createTensor(env, new float[][] {
          Arrays.copyOfRange(FLOATS, 0, 3), Arrays.copyOfRange(FLOATS, 3, 6)}));
        feeds.put("in_float64", OnnxTensor.createTensor(env, DoubleBuffer.wrap(DOUBLES), SHAPE));
        feeds.put("in_float16", OnnxTensor.createTensor(env, halves(), SHAPE, OnnxJavaType.FLOAT16));
        feeds.put("in_int8", OnnxTensor.createTensor(env, new byte[][] {
          Arrays.copyOfRange(INT8S, 0, 3), Arrays.copyOfRange(INT8S, 3, 6)}));
        feeds.put("in_int16", OnnxTensor.createTensor(env, ShortBuffer.wrap(INT16S), SHAPE));
        feeds.put("in_int32", OnnxTensor.createTensor(env, new int[][] {
          Arrays.copyOfRange(INT32S, 0, 3), Arrays.copyOfRange(INT32S, 3, 6)}));
        ByteBuffer int64s = ByteBuffer.allocateDirect(8 * INT64S.length).order(ByteOrder.nativeOrder());
        int64s.asLongBuffer().put(INT64S);
        feeds.put("in_int64", OnnxTensor.createTensor(env, int64s.asLongBuffer(), SHAPE));
        feeds.put("in_uint8", OnnxTensor.createTensor(env, ByteBuffer.wrap(UINT8S), SHAPE, OnnxJavaType.UINT8));
        for (String k : UNSIGNED_WIDE_NAMES)
          feeds.put("in_" + k, (OnnxTensor) unsigned.get("as_" + k).orElseThrow());
        feeds.put("in_bool", OnnxTensor.createTensor(env, BOOLS));
        feeds.put("in_string", OnnxTensor.createTensor(env, STRINGS));
        for (Map.Entry<String, OnnxTensorLike> e : feeds.entrySet())
          if (!e.getKey().startsWith("in_uint") || e.getKey().equals("in_uint8")) made.add((OnnxTensor) e.getValue());
        if (allTypes == null) allTypes = env.createSession(allTypesModel.toString(), options);
        allTypesResult = allTypes.run(feeds);
        return allTypesResult;
      }
    } finally {
      for (OnnxTensor t : made) t.close();
    }
  }

  private OnnxTensor output(String type, OnnxTensorType onnxType, OnnxJavaType javaType, long[] shape)
      throws Exception {
    OnnxValue value = allTypes().get("out_" + type).orElseThrow();
    assertInstanceOf(OnnxTensor.class, value);
    OnnxTensor tensor = (OnnxTensor) value;
    assertEquals(onnxType, tensor.getInfo().onnxType, "out_" + type + "'s element type");
    assertEquals(javaType, tensor.getInfo().type, "out_" + type + "'s Java type");
    assertArrayEquals(shape, tensor.getInfo().getShape(), "out_" + type + "'s shape");
    return tensor;
  }

  @Test
  void allTypesNamesAndTypes() throws Exception {
    allTypes();
    String[] names = {"float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64", "bool", "string"};
    OnnxTensorType[] types = {
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL,
      OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING,
    };
    Set<String> inputs = new LinkedHashSet<>();
    Set<String> outputs = new LinkedHashSet<>();
    for (String n : names) {
      inputs.add("in_" + n);
      outputs.add("out_" + n);
    }
    assertEquals(inputs, allTypes.getInputNames());
    assertEquals(outputs, allTypes.getOutputNames());
    Map<String, NodeInfo> inInfo = allTypes.getInputInfo();
    Map<String, NodeInfo> outInfo = allTypes.getOutputInfo();
    for (int i = 0; i < names.length; ++i) {
      checkTensorInfo(inInfo.get("in_" + names[i]), "in_" + names[i], types[i], new long[] {-1, 3}, new String[] {"N", ""});
      long[] outShape = names[i].equals("string") ? new long[] {-1, 6} : new long[] {-1, 3};
      checkTensorInfo(outInfo.get("out_" + names[i]), "out_" + names[i], types[i], outShape, new String[] {"N", ""});
    }
    assertEquals(names.length, allTypesResult.size());
  }

  @Test
  void allTypesFloat32() throws Exception {
    OnnxTensor out = output("float32", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, OnnxJavaType.FLOAT, SHAPE);
    float[] expected = new float[6];
    for (int i = 0; i < 6; ++i) expected[i] = FLOATS[i] + FLOATS[i];
    float[] got = new float[6];
    out.getFloatBuffer().get(got);
    assertArrayEquals(expected, got); // Float.equals semantics: bit-exact, -0 included
    float[][] rows = (float[][]) out.getValue();
    assertArrayEquals(Arrays.copyOfRange(expected, 3, 6), rows[1]);
  }

  @Test
  void allTypesFloat64() throws Exception {
    OnnxTensor out = output("float64", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, OnnxJavaType.DOUBLE, SHAPE);
    double[] expected = new double[6];
    for (int i = 0; i < 6; ++i) expected[i] = DOUBLES[i] + DOUBLES[i];
    double[] got = new double[6];
    out.getDoubleBuffer().get(got);
    assertArrayEquals(expected, got); // the subnormal 4.9e-324 doubles to 1e-323, not to zero
  }

  @Test
  void allTypesFloat16() throws Exception {
    OnnxTensor out = output("float16", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, OnnxJavaType.FLOAT16, SHAPE);
    short[] expectedBits = new short[6];
    float[] expected = new float[6];
    for (int i = 0; i < 6; ++i) {
      expected[i] = HALVES[i] + HALVES[i];
      expectedBits[i] = Fp16Conversions.floatToFp16(expected[i]);
    }
    short[] bits = new short[6];
    out.getShortBuffer().get(bits);
    assertArrayEquals(expectedBits, bits);
    float[] widened = new float[6];
    out.getFloatBuffer().get(widened); // the binding widens float16 to float
    assertArrayEquals(expected, widened);
  }

  @Test
  void allTypesInt8() throws Exception {
    OnnxTensor out = output("int8", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, OnnxJavaType.INT8, SHAPE);
    byte[] expected = new byte[6];
    for (int i = 0; i < 6; ++i) expected[i] = (byte) (INT8S[i] * 2);
    byte[] got = new byte[6];
    out.getByteBuffer().get(got);
    assertArrayEquals(expected, got);
    assertArrayEquals(Arrays.copyOfRange(expected, 0, 3), ((byte[][]) out.getValue())[0]);
  }

  @Test
  void allTypesInt16() throws Exception {
    OnnxTensor out = output("int16", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, OnnxJavaType.INT16, SHAPE);
    short[] expected = new short[6];
    for (int i = 0; i < 6; ++i) expected[i] = (short) (INT16S[i] * 2);
    short[] got = new short[6];
    out.getShortBuffer().get(got);
    assertArrayEquals(expected, got);
  }

  @Test
  void allTypesInt32() throws Exception {
    OnnxTensor out = output("int32", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, OnnxJavaType.INT32, SHAPE);
    int[] expected = new int[6];
    for (int i = 0; i < 6; ++i) expected[i] = INT32S[i] * 2;
    int[] got = new int[6];
    out.getIntBuffer().get(got);
    assertArrayEquals(expected, got);
    assertArrayEquals(Arrays.copyOfRange(expected, 3, 6), ((int[][]) out.getValue())[1]);
  }

  @Test
  void allTypesInt64() throws Exception {
    OnnxTensor out = output("int64", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, OnnxJavaType.INT64, SHAPE);
    long[] expected = new long[6];
    for (int i = 0; i < 6; ++i) expected[i] = INT64S[i] * 2;
    long[] got = new long[6];
    out.getLongBuffer().get(got);
    assertArrayEquals(expected, got);
  }

  @Test
  void allTypesUint8() throws Exception {
    OnnxTensor out = output("uint8", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, OnnxJavaType.UINT8, SHAPE);
    int[] expected = new int[6];
    for (int i = 0; i < 6; ++i) expected[i] = Byte.toUnsignedInt(UINT8S[i]) * 2; // 200, 254: past int8
    byte[] raw = new byte[6];
    out.getByteBuffer().get(raw);
    int[] got = new int[6];
    for (int i = 0; i < 6; ++i) got[i] = Byte.toUnsignedInt(raw[i]);
    assertArrayEquals(expected, got);
  }

  /** uint16/32/64: fed from the Cast session; the binding reads them as signed ints of the width. */
  @Test
  void allTypesUint16() throws Exception {
    OnnxTensor out = output("uint16", UNSIGNED_WIDE[0], OnnxJavaType.INT16, SHAPE);
    short[] raw = new short[6];
    out.getShortBuffer().get(raw);
    long[] got = new long[6];
    long[] expected = new long[6];
    for (int i = 0; i < 6; ++i) {
      got[i] = Short.toUnsignedLong(raw[i]);
      expected[i] = UNSIGNED_WIDE_VALUES[0][i] * 2;
    }
    assertArrayEquals(expected, got);
  }

  @Test
  void allTypesUint32() throws Exception {
    OnnxTensor out = output("uint32", UNSIGNED_WIDE[1], OnnxJavaType.INT32, SHAPE);
    int[] raw = new int[6];
    out.getIntBuffer().get(raw);
    long[] got = new long[6];
    long[] expected = new long[6];
    for (int i = 0; i < 6; ++i) {
      got[i] = Integer.toUnsignedLong(raw[i]);
      expected[i] = UNSIGNED_WIDE_VALUES[1][i] * 2;
    }
    assertArrayEquals(expected, got);
  }

  @Test
  void allTypesUint64() throws Exception {
    OnnxTensor out = output("uint64", UNSIGNED_WIDE[2], OnnxJavaType.INT64, SHAPE);
    long[] raw = new long[6];
    out.getLongBuffer().get(raw);
    String[] got = new String[6];
    String[] expected = new String[6];
    for (int i = 0; i < 6; ++i) {
      got[i] = Long.toUnsignedString(raw[i]);
      expected[i] = Long.toUnsignedString(UNSIGNED_WIDE_VALUES[2][i] * 2); // wraps like uint64
    }
    assertArrayEquals(expected, got);
  }

  @Test
  void allTypesBool() throws Exception {
    OnnxTensor out = output("bool", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, OnnxJavaType.BOOL, SHAPE);
    boolean[][] got = (boolean[][]) out.getValue();
    for (int r = 0; r < N; ++r) {
      boolean[] expected = new boolean[3];
      for (int c = 0; c < 3; ++c) expected[c] = !BOOLS[r][c];
      assertArrayEquals(expected, got[r], "row " + r);
    }
    byte[] raw = new byte[6];
    out.getByteBuffer().get(raw);
    for (int i = 0; i < 6; ++i) assertEquals(BOOLS[i / 3][i % 3] ? 0 : 1, raw[i], "byte " + i);
  }

  @Test
  void allTypesString() throws Exception {
    OnnxTensor out = output("string", OnnxTensorType.ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, OnnxJavaType.STRING, new long[] {N, 6});
    String[][] got = (String[][]) out.getValue();
    assertEquals(N, got.length);
    for (int r = 0; r < N; ++r) {
      String[] expected = new String[6];
      for (int c = 0; c < 6; ++c) expected[c] = STRINGS[r][c % 3];
      assertArrayEquals(expected, got[r], "row " + r);
    }
  }
}
