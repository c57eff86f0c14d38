// github.com/yalue/onnxruntime_go (the Go binding of ONNX Runtime, unmodified, at the version
// go.mod pins) on onyx's libonnxruntime.so.1: the ctest test go_binding, through run.sh.
//
// Checks that the process mapped onyx's library and no other libonnxruntime; runs
// models/stripes.onnx through each kind of session the binding has (its typed Session[T] and
// DynamicSession[In, Out], AdvancedSession and DynamicAdvancedSession, from a file and from
// bytes), with the names from GetInputOutputInfo, a batch of two images whose classes are
// known, and errors (not crashes) for bad feeds; and runs tests/bindings/all_types.onnx with
// every element type the binding can hand over, checking every output exactly.
//
// Environment (run.sh sets it):
//
//	ONYX_LIBDIR     the folder holding onyx's libonnxruntime.so.1 (the library to load and the
//	                only libonnxruntime the process may map)
//	ONYX_STRIPES    models/stripes.onnx
//	ONYX_ALL_TYPES  tests/bindings/all_types.onnx
//	ONYX_GO_LOAD_LIBRARY  (optional) load this library instead of ONYX_LIBDIR's; for checking
//	                that the test notices a foreign library (the mapping check then fails)
package gobinding

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ort "github.com/yalue/onnxruntime_go"
)

var (
	libDir      string
	stripesPath string
	allTypes    string
	loadPath    string
)

func TestMain(m *testing.M) {
	libDir = os.Getenv("ONYX_LIBDIR")
	stripesPath = os.Getenv("ONYX_STRIPES")
	allTypes = os.Getenv("ONYX_ALL_TYPES")
	if libDir == "" || stripesPath == "" || allTypes == "" {
		fmt.Fprintln(os.Stderr, "set ONYX_LIBDIR, ONYX_STRIPES and ONYX_ALL_TYPES "+
			"(tests/go/run.sh LIBDIR STRIPES ALL_TYPES does)")
		os.Exit(2)
	}
	loadPath = os.Getenv("ONYX_GO_LOAD_LIBRARY")
	if loadPath == "" {
		loadPath = filepath.Join(libDir, "libonnxruntime.so.1")
	}
	ort.SetSharedLibraryPath(loadPath)
	if err := ort.InitializeEnvironment(); err != nil {
		fmt.Fprintf(os.Stderr, "InitializeEnvironment with %s: %v\n", loadPath, err)
		os.Exit(1)
	}
	code := m.Run()
	if err := ort.DestroyEnvironment(); err != nil {
		fmt.Fprintf(os.Stderr, "DestroyEnvironment: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

// ---------------------------------------------------------------------------------------------
// The library the process mapped.

// mappedRuntimeLibraries lists the distinct paths in /proc/self/maps that contain
// "libonnxruntime".
func mappedRuntimeLibraries(t *testing.T) []string {
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Fatalf("reading /proc/self/maps: %v", err)
	}
	defer f.Close()
	seen := map[string]bool{}
	var paths []string
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		// address perms offset dev inode path (the path may hold spaces, and a
		// " (deleted)" suffix when the file was replaced)
		fields := strings.SplitN(scanner.Text(), " ", 6)
		if len(fields) < 6 {
			continue
		}
		p := strings.TrimSpace(fields[5])
		if strings.Contains(p, "libonnxruntime") && !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatalf("reading /proc/self/maps: %v", err)
	}
	return paths
}

func TestOnlyOnyxLibraryIsMapped(t *testing.T) {
	t.Logf("library loaded from %s reports version %q", loadPath, ort.GetVersion())
	// A session first, so that whatever the library loads lazily is mapped too.
	s, err := ort.NewDynamicAdvancedSession(stripesPath, []string{"image"},
		[]string{"probabilities"}, nil)
	if err != nil {
		t.Fatalf("NewDynamicAdvancedSession: %v", err)
	}
	defer s.Destroy()
	want, err := filepath.EvalSymlinks(filepath.Join(libDir, "libonnxruntime.so.1"))
	if err != nil {
		t.Fatalf("onyx's library: %v", err)
	}
	mapped := mappedRuntimeLibraries(t)
	if len(mapped) == 0 {
		t.Fatalf("no libonnxruntime is mapped into the process")
	}
	for _, p := range mapped {
		real, err := filepath.EvalSymlinks(strings.TrimSuffix(p, " (deleted)"))
		if err != nil {
			real = p + " (" + err.Error() + ")"
		}
		if real != want {
			t.Errorf("the process maps %s (%s), not onyx's library %s", p, real, want)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// stripes.onnx

// stripeImage is an 8x8 image of stripes two pixels wide: horizontal ones (class 1) or
// vertical ones (class 0).
func stripeImage(horizontal bool) []float32 {
	image := make([]float32, 64)
	for r := 0; r < 8; r++ {
		for c := 0; c < 8; c++ {
			k := c
			if horizontal {
				k = r
			}
			image[r*8+c] = float32((k / 2) % 2)
		}
	}
	return image
}

// stripesBatch is a batch of two images: horizontal stripes (class 1), then vertical ones
// (class 0).
func stripesBatch() []float32 {
	return append(stripeImage(true), stripeImage(false)...)
}

var wantClasses = []int{1, 0}

// checkProbabilities checks a [2, 3] output for the batch of stripesBatch.
func checkProbabilities(t *testing.T, what string, shape ort.Shape, p []float32) {
	t.Helper()
	if !shape.Equals(ort.NewShape(2, 3)) || len(p) != 6 {
		t.Errorf("%s: probabilities have shape %v and %d values, want [2 3] and 6", what, shape, len(p))
		return
	}
	for b := 0; b < 2; b++ {
		row := p[b*3 : b*3+3]
		best := 0
		sum := 0.0
		for k, v := range row {
			if v > row[best] {
				best = k
			}
			sum += float64(v)
		}
		if best != wantClasses[b] {
			t.Errorf("%s: image %d is classed %d (%v), want %d", what, b, best, row, wantClasses[b])
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Errorf("%s: the probabilities of image %d sum to %v", what, b, sum)
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return data
}

// stripesNames gives the model's input and output names, from the binding's
// GetInputOutputInfo (from the file) and GetInputOutputInfoWithONNXData (from its bytes).
func stripesNames(t *testing.T) (string, string) {
	ins, outs, err := ort.GetInputOutputInfo(stripesPath)
	if err != nil {
		t.Fatalf("GetInputOutputInfo: %v", err)
	}
	ins2, outs2, err := ort.GetInputOutputInfoWithONNXData(readFile(t, stripesPath))
	if err != nil {
		t.Fatalf("GetInputOutputInfoWithONNXData: %v", err)
	}
	for _, info := range [][]ort.InputOutputInfo{ins, outs, ins2, outs2} {
		if len(info) != 1 {
			t.Fatalf("stripes.onnx has 1 input and 1 output; the binding reports %v and %v", ins, outs)
		}
	}
	in, out := ins[0], outs[0]
	if in.Name != "image" || out.Name != "probabilities" {
		t.Errorf("names %q and %q, want image and probabilities", in.Name, out.Name)
	}
	if in.String() != ins2[0].String() || out.String() != outs2[0].String() {
		t.Errorf("from the file: %v, %v; from bytes: %v, %v", in, out, ins2[0], outs2[0])
	}
	for _, info := range []ort.InputOutputInfo{in, out} {
		if info.OrtValueType != ort.ONNXTypeTensor || info.DataType != ort.TensorElementDataTypeFloat {
			t.Errorf("%v: want a float32 tensor", &info)
		}
	}
	// The batch dimension is symbolic (-1 here); the rest are fixed.
	if len(in.Dimensions) != 4 || in.Dimensions[0] >= 0 ||
		!in.Dimensions[1:].Equals(ort.NewShape(1, 8, 8)) {
		t.Errorf("input dimensions %v, want [-1 1 8 8]", in.Dimensions)
	}
	if len(out.Dimensions) != 2 || out.Dimensions[0] >= 0 || out.Dimensions[1] != 3 {
		t.Errorf("output dimensions %v, want [-1 3]", out.Dimensions)
	}
	return in.Name, out.Name
}

func TestStripesNames(t *testing.T) {
	stripesNames(t)
}

// The legacy typed sessions, Session[T] (tensors bound at creation) and DynamicSession[In, Out].
func TestStripesTypedSessions(t *testing.T) {
	inName, outName := stripesNames(t)
	for _, fromBytes := range []bool{false, true} {
		what := "Session[float32] from the file"
		if fromBytes {
			what = "Session[float32] from bytes"
		}
		input, err := ort.NewTensor(ort.NewShape(2, 1, 8, 8), stripesBatch())
		if err != nil {
			t.Fatalf("NewTensor: %v", err)
		}
		defer input.Destroy()
		output, err := ort.NewEmptyTensor[float32](ort.NewShape(2, 3))
		if err != nil {
			t.Fatalf("NewEmptyTensor: %v", err)
		}
		defer output.Destroy()
		ins, outs := []*ort.Tensor[float32]{input}, []*ort.Tensor[float32]{output}
		var s *ort.Session[float32]
		if fromBytes {
			s, err = ort.NewSessionWithONNXData[float32](readFile(t, stripesPath),
				[]string{inName}, []string{outName}, ins, outs)
		} else {
			s, err = ort.NewSession[float32](stripesPath, []string{inName}, []string{outName}, ins, outs)
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer s.Destroy()
		// Twice: the second run overwrites the first one's output in place.
		for run := 0; run < 2; run++ {
			if err := s.Run(); err != nil {
				t.Fatalf("%s: Run: %v", what, err)
			}
			checkProbabilities(t, what, output.GetShape(), output.GetData())
			output.ZeroContents()
		}
	}

	ds, err := ort.NewDynamicSession[float32, float32](stripesPath, []string{inName}, []string{outName})
	if err != nil {
		t.Fatalf("NewDynamicSession: %v", err)
	}
	defer ds.Destroy()
	input, _ := ort.NewTensor(ort.NewShape(2, 1, 8, 8), stripesBatch())
	defer input.Destroy()
	output, _ := ort.NewEmptyTensor[float32](ort.NewShape(2, 3))
	defer output.Destroy()
	if err := ds.Run([]*ort.Tensor[float32]{input}, []*ort.Tensor[float32]{output}); err != nil {
		t.Fatalf("DynamicSession[float32, float32].Run: %v", err)
	}
	checkProbabilities(t, "DynamicSession[float32, float32]", output.GetShape(), output.GetData())
}

func stripesOptions(t *testing.T) *ort.SessionOptions {
	o, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatalf("NewSessionOptions: %v", err)
	}
	if err := o.SetIntraOpNumThreads(1); err != nil {
		t.Fatalf("SetIntraOpNumThreads: %v", err)
	}
	if err := o.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
		t.Fatalf("SetGraphOptimizationLevel: %v", err)
	}
	return o
}

func TestStripesAdvancedSession(t *testing.T) {
	inName, outName := stripesNames(t)
	options := stripesOptions(t)
	defer options.Destroy()
	for _, fromBytes := range []bool{false, true} {
		input, err := ort.NewTensor(ort.NewShape(2, 1, 8, 8), stripesBatch())
		if err != nil {
			t.Fatalf("NewTensor: %v", err)
		}
		defer input.Destroy()
		output, err := ort.NewEmptyTensor[float32](ort.NewShape(2, 3))
		if err != nil {
			t.Fatalf("NewEmptyTensor: %v", err)
		}
		defer output.Destroy()
		ins, outs := []ort.Value{input}, []ort.Value{output}
		var s *ort.AdvancedSession
		what := "AdvancedSession from the file"
		if fromBytes {
			what = "AdvancedSession from bytes"
			s, err = ort.NewAdvancedSessionWithONNXData(readFile(t, stripesPath),
				[]string{inName}, []string{outName}, ins, outs, options)
		} else {
			s, err = ort.NewAdvancedSession(stripesPath, []string{inName}, []string{outName}, ins, outs, options)
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer s.Destroy()
		if err := s.Run(); err != nil {
			t.Fatalf("%s: Run: %v", what, err)
		}
		checkProbabilities(t, what, output.GetShape(), output.GetData())
		// A new batch in the same input tensor: the images swapped.
		data := input.GetData()
		first := append([]float32(nil), data[:64]...)
		copy(data[:64], data[64:])
		copy(data[64:], first)
		if err := s.Run(); err != nil {
			t.Fatalf("%s: second Run: %v", what, err)
		}
		p := output.GetData()
		swapped := append(append([]float32(nil), p[3:6]...), p[0:3]...)
		checkProbabilities(t, what+", images swapped", output.GetShape(), swapped)
	}
}

func TestStripesDynamicAdvancedSession(t *testing.T) {
	inName, outName := stripesNames(t)
	for _, fromBytes := range []bool{false, true} {
		var s *ort.DynamicAdvancedSession
		var err error
		what := "DynamicAdvancedSession from the file"
		if fromBytes {
			what = "DynamicAdvancedSession from bytes"
			s, err = ort.NewDynamicAdvancedSessionWithONNXData(readFile(t, stripesPath),
				[]string{inName}, []string{outName}, nil)
		} else {
			s, err = ort.NewDynamicAdvancedSession(stripesPath, []string{inName}, []string{outName}, nil)
		}
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		defer s.Destroy()
		input, err := ort.NewTensor(ort.NewShape(2, 1, 8, 8), stripesBatch())
		if err != nil {
			t.Fatalf("NewTensor: %v", err)
		}
		defer input.Destroy()
		// The output allocated by the library (and copied by the binding into a Go tensor).
		outputs := []ort.Value{nil}
		if err := s.Run([]ort.Value{input}, outputs); err != nil {
			t.Fatalf("%s: Run: %v", what, err)
		}
		p, ok := outputs[0].(*ort.Tensor[float32])
		if !ok {
			t.Fatalf("%s: the output is a %T, want *Tensor[float32]", what, outputs[0])
		}
		checkProbabilities(t, what+", allocated output", p.GetShape(), p.GetData())
		p.Destroy()
		// A single image, so a batch of another size than before.
		one, _ := ort.NewTensor(ort.NewShape(1, 1, 8, 8), stripeImage(false))
		defer one.Destroy()
		outputs = []ort.Value{nil}
		if err := s.Run([]ort.Value{one}, outputs); err != nil {
			t.Fatalf("%s: Run on one image: %v", what, err)
		}
		p = outputs[0].(*ort.Tensor[float32])
		if !p.GetShape().Equals(ort.NewShape(1, 3)) {
			t.Errorf("%s: one image gives shape %v", what, p.GetShape())
		} else if d := p.GetData(); !(d[0] > d[1] && d[0] > d[2]) {
			t.Errorf("%s: vertical stripes give %v, want class 0", what, d)
		}
		p.Destroy()
		// An output tensor of the caller's.
		mine, _ := ort.NewEmptyTensor[float32](ort.NewShape(2, 3))
		defer mine.Destroy()
		if err := s.Run([]ort.Value{input}, []ort.Value{mine}); err != nil {
			t.Fatalf("%s: Run into a given output: %v", what, err)
		}
		checkProbabilities(t, what+", given output", mine.GetShape(), mine.GetData())
	}
}

// Bad feeds, names and models give errors (not crashes), and a session that refused a feed
// still runs a good one.
func TestStripesErrors(t *testing.T) {
	s, err := ort.NewDynamicAdvancedSession(stripesPath, []string{"image"}, []string{"probabilities"}, nil)
	if err != nil {
		t.Fatalf("NewDynamicAdvancedSession: %v", err)
	}
	defer s.Destroy()
	runErr := func(input ort.Value) error {
		outputs := []ort.Value{nil}
		err := s.Run([]ort.Value{input}, outputs)
		if outputs[0] != nil {
			outputs[0].Destroy()
		}
		return err
	}

	wrongRank, _ := ort.NewTensor(ort.NewShape(10), make([]float32, 10))
	defer wrongRank.Destroy()
	if err := runErr(wrongRank); err == nil || !strings.Contains(err.Error(), "image") {
		t.Errorf("a feed of the wrong rank: want an error naming the input, got %v", err)
	} else {
		t.Logf("wrong rank: %v", err)
	}
	wrongDims, _ := ort.NewTensor(ort.NewShape(2, 1, 4, 16), stripesBatch())
	defer wrongDims.Destroy()
	if err := runErr(wrongDims); err == nil || !strings.Contains(err.Error(), "image") {
		t.Errorf("a feed of the wrong dimensions: want an error naming the input, got %v", err)
	} else {
		t.Logf("wrong dimensions: %v", err)
	}
	wrongType, _ := ort.NewTensor(ort.NewShape(2, 1, 8, 8), make([]int64, 128))
	defer wrongType.Destroy()
	if err := runErr(wrongType); err == nil {
		t.Errorf("a feed of int64 for a float input was accepted")
	} else {
		t.Logf("wrong type: %v", err)
	}

	good, _ := ort.NewTensor(ort.NewShape(2, 1, 8, 8), stripesBatch())
	defer good.Destroy()
	outputs := []ort.Value{nil}
	if err := s.Run([]ort.Value{good}, outputs); err != nil {
		t.Fatalf("a good feed after bad ones: %v", err)
	}
	p := outputs[0].(*ort.Tensor[float32])
	checkProbabilities(t, "after refused feeds", p.GetShape(), p.GetData())
	p.Destroy()

	// Names the model lacks.
	badIn, err := ort.NewDynamicAdvancedSession(stripesPath, []string{"no_such_input"}, []string{"probabilities"}, nil)
	if err == nil {
		defer badIn.Destroy()
		outputs := []ort.Value{nil}
		err = badIn.Run([]ort.Value{good}, outputs)
		if err == nil {
			outputs[0].Destroy()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "no_such_input") {
		t.Errorf("an input name the model lacks: want an error naming it, got %v", err)
	} else {
		t.Logf("unknown input name: %v", err)
	}
	badOut, err := ort.NewDynamicAdvancedSession(stripesPath, []string{"image"}, []string{"no_such_output"}, nil)
	if err == nil {
		defer badOut.Destroy()
		outputs := []ort.Value{nil}
		err = badOut.Run([]ort.Value{good}, outputs)
		if err == nil {
			outputs[0].Destroy()
		}
	}
	if err == nil || !strings.Contains(err.Error(), "no_such_output") {
		t.Errorf("an output name the model lacks: want an error naming it, got %v", err)
	} else {
		t.Logf("unknown output name: %v", err)
	}

	// Models that are not there or are not models.
	names := func(what string, s *ort.DynamicAdvancedSession, err error) {
		if err == nil {
			s.Destroy()
			t.Errorf("a session from %s was created", what)
		} else {
			t.Logf("a session from %s: %v", what, err)
		}
	}
	s1, err := ort.NewDynamicAdvancedSession(filepath.Join(t.TempDir(), "missing.onnx"),
		[]string{"image"}, []string{"probabilities"}, nil)
	names("a missing file", s1, err)
	s2, err := ort.NewDynamicAdvancedSessionWithONNXData([]byte("this is not an ONNX model"),
		[]string{"image"}, []string{"probabilities"}, nil)
	names("bytes that are no model", s2, err)
	truncated := readFile(t, stripesPath)
	truncated = truncated[:len(truncated)/2]
	s3, err := ort.NewDynamicAdvancedSessionWithONNXData(truncated,
		[]string{"image"}, []string{"probabilities"}, nil)
	names("half a model", s3, err)
}

// ---------------------------------------------------------------------------------------------
// all_types.onnx: one input and one output per element type, shape [N, 3] (out_string [N, 6]);
// numbers doubled, bools negated, strings concatenated with themselves along axis 1.

// typeCase is one of all_types.onnx's element types, as the binding hands it over.
type typeCase struct {
	name      string // in_<name>, out_<name>
	elem      ort.TensorElementDataType
	newInput  func() (ort.Value, error)
	newOutput func() (ort.Value, error) // a tensor of the caller's, for AdvancedSession
	check     func(out ort.Value) error
}

var batchShape = ort.NewShape(2, 3)

type number interface {
	ort.FloatData | ort.IntData
}

func equalSlices[T comparable](got, want []T) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d values, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return fmt.Errorf("values %v, want %v", got, want)
		}
	}
	return nil
}

// tensorCase: a type the binding's Tensor[T] holds; out = f(in).
func tensorCase[T ort.TensorData](name string, elem ort.TensorElementDataType, in []T, f func(T) T) typeCase {
	want := make([]T, len(in))
	for i, v := range in {
		want[i] = f(v)
	}
	return typeCase{
		name: name,
		elem: elem,
		newInput: func() (ort.Value, error) {
			return ort.NewTensor(batchShape, append([]T(nil), in...))
		},
		newOutput: func() (ort.Value, error) { return ort.NewEmptyTensor[T](batchShape) },
		check: func(out ort.Value) error {
			tensor, ok := out.(*ort.Tensor[T])
			if !ok {
				return fmt.Errorf("the output is a %T", out)
			}
			if !tensor.GetShape().Equals(batchShape) {
				return fmt.Errorf("shape %v, want %v", tensor.GetShape(), batchShape)
			}
			return equalSlices(tensor.GetData(), want)
		},
	}
}

func doubled[T number](name string, elem ort.TensorElementDataType, in ...T) typeCase {
	return tensorCase(name, elem, in, func(v T) T { return v + v })
}

// float16 has no Go type: the binding hands it over as bytes in a CustomDataTensor. Each pair
// is (x, x+x) as IEEE half-precision bit patterns.
var float16Pairs = [][2]uint16{
	{0x3C00, 0x4000}, // 1 -> 2
	{0xC080, 0xC480}, // -2.25 -> -4.5
	{0x3800, 0x3C00}, // 0.5 -> 1
	{0x63D0, 0x67D0}, // 1000 -> 2000
	{0x0000, 0x0000}, // 0 -> 0
	{0xB000, 0xB400}, // -0.125 -> -0.25
}

func float16Bytes(which int) []byte {
	b := make([]byte, 0, 2*len(float16Pairs))
	for _, p := range float16Pairs {
		b = append(b, byte(p[which]), byte(p[which]>>8)) // little-endian
	}
	return b
}

var float16Case = typeCase{
	name: "float16",
	elem: ort.TensorElementDataTypeFloat16,
	newInput: func() (ort.Value, error) {
		return ort.NewCustomDataTensor(batchShape, float16Bytes(0), ort.TensorElementDataTypeFloat16)
	},
	newOutput: func() (ort.Value, error) {
		return ort.NewCustomDataTensor(batchShape, make([]byte, 2*len(float16Pairs)), ort.TensorElementDataTypeFloat16)
	},
	check: func(out ort.Value) error {
		tensor, ok := out.(*ort.CustomDataTensor)
		if !ok {
			return fmt.Errorf("the output is a %T", out)
		}
		if !tensor.GetShape().Equals(batchShape) || ort.TensorElementDataType(tensor.DataType()) != ort.TensorElementDataTypeFloat16 {
			return fmt.Errorf("shape %v, type %v", tensor.GetShape(), tensor.DataType())
		}
		if want := float16Bytes(1); !bytes.Equal(tensor.GetData(), want) {
			return fmt.Errorf("bytes % x, want % x", tensor.GetData(), want)
		}
		return nil
	},
}

var stringsIn = []string{"a", "", "ünï 大", "a longer string, with spaces", "x", "\u00e9\u00e9"}

var stringCase = typeCase{
	name: "string",
	elem: ort.TensorElementDataTypeString,
	newInput: func() (ort.Value, error) {
		s, err := ort.NewStringTensor(batchShape)
		if err == nil {
			err = s.SetContents(stringsIn)
		}
		return s, err
	},
	newOutput: func() (ort.Value, error) { return ort.NewStringTensor(ort.NewShape(2, 6)) },
	check: func(out ort.Value) error {
		tensor, ok := out.(*ort.StringTensor)
		if !ok {
			return fmt.Errorf("the output is a %T", out)
		}
		if !tensor.GetShape().Equals(ort.NewShape(2, 6)) {
			return fmt.Errorf("shape %v, want [2 6]", tensor.GetShape())
		}
		var want []string
		for r := 0; r < 2; r++ {
			row := stringsIn[r*3 : r*3+3]
			want = append(append(want, row...), row...)
		}
		got, err := tensor.GetContents()
		if err != nil {
			return fmt.Errorf("GetContents: %w", err)
		}
		if err := equalSlices(got, want); err != nil {
			return err
		}
		for i, w := range want {
			if e, err := tensor.GetElement(int64(i)); err != nil || e != w {
				return fmt.Errorf("GetElement(%d) = %q, %v; want %q", i, e, err, w)
			}
		}
		return nil
	},
}

// allTypeCases: every element type of all_types.onnx, each in the form the binding has for it
// (it has all of the model's: Tensor[T] for the numbers and bool, CustomDataTensor for
// float16, StringTensor for strings).
func allTypeCases() []typeCase {
	return []typeCase{
		doubled[float32]("float32", ort.TensorElementDataTypeFloat,
			1.5, -3.25, 1e30, 0.25, math.SmallestNonzeroFloat32, 16777215),
		doubled[float64]("float64", ort.TensorElementDataTypeDouble,
			1.5, -3.25, 1e300, math.SmallestNonzeroFloat64, 1<<52+1, -0.1),
		float16Case,
		doubled[int8]("int8", ort.TensorElementDataTypeInt8, -64, 63, 1, -1, 0, 50),
		doubled[int16]("int16", ort.TensorElementDataTypeInt16, -16384, 16383, 7, -7, 0, 1000),
		doubled[int32]("int32", ort.TensorElementDataTypeInt32, -1<<30, 1<<30-1, 7, -7, 0, 123456789),
		doubled[int64]("int64", ort.TensorElementDataTypeInt64, -1<<62, 1<<62-1, 1<<53+1, -7, 0, 1<<40+3),
		doubled[uint8]("uint8", ort.TensorElementDataTypeUint8, 0, 127, 1, 100, 64, 3),
		doubled[uint16]("uint16", ort.TensorElementDataTypeUint16, 0, 32767, 1, 40000/2, 255, 3),
		doubled[uint32]("uint32", ort.TensorElementDataTypeUint32, 0, 1<<31-1, 1, 3000000000/2, 65535, 3),
		doubled[uint64]("uint64", ort.TensorElementDataTypeUint64, 0, 1<<63-1, 1<<62+3, 1<<53+1, 1, 3),
		tensorCase("bool", ort.TensorElementDataTypeBool,
			[]bool{true, false, true, false, false, true}, func(v bool) bool { return !v }),
		stringCase,
	}
}

func TestAllTypesInfo(t *testing.T) {
	ins, outs, err := ort.GetInputOutputInfo(allTypes)
	if err != nil {
		t.Fatalf("GetInputOutputInfo: %v", err)
	}
	cases := allTypeCases()
	if len(ins) != len(cases) || len(outs) != len(cases) {
		t.Fatalf("%d inputs and %d outputs, want %d of each", len(ins), len(outs), len(cases))
	}
	byName := map[string]ort.InputOutputInfo{}
	for _, info := range append(append([]ort.InputOutputInfo(nil), ins...), outs...) {
		byName[info.Name] = info
	}
	for _, c := range cases {
		for _, name := range []string{"in_" + c.name, "out_" + c.name} {
			info, ok := byName[name]
			if !ok {
				t.Errorf("no %s", name)
				continue
			}
			width := int64(3)
			if name == "out_string" {
				width = 6
			}
			if info.OrtValueType != ort.ONNXTypeTensor || info.DataType != c.elem ||
				len(info.Dimensions) != 2 || info.Dimensions[0] >= 0 || info.Dimensions[1] != width {
				t.Errorf("%v: want a %v tensor of dimensions [-1 %d]", &info, c.elem, width)
			}
		}
	}
}

// All types in one run of a DynamicAdvancedSession, with the outputs allocated by the library.
// float16 is the exception: the binding (v1.27.0, createTensorFromOrtValue) copies an allocated
// output of a type it has no Go type for with one byte per element instead of its element
// size, so a float16 output is handed a tensor of the caller's.
func TestAllTypesDynamicSession(t *testing.T) {
	cases := allTypeCases()
	var inNames, outNames []string
	var inputs, outputs []ort.Value
	for _, c := range cases {
		inNames = append(inNames, "in_"+c.name)
		outNames = append(outNames, "out_"+c.name)
		in, err := c.newInput()
		if err != nil {
			t.Fatalf("%s: creating the input: %v", c.name, err)
		}
		defer in.Destroy()
		inputs = append(inputs, in)
		var out ort.Value
		if c.name == "float16" {
			if out, err = c.newOutput(); err != nil {
				t.Fatalf("%s: creating the output: %v", c.name, err)
			}
		}
		outputs = append(outputs, out)
	}
	s, err := ort.NewDynamicAdvancedSession(allTypes, inNames, outNames, nil)
	if err != nil {
		t.Fatalf("NewDynamicAdvancedSession: %v", err)
	}
	defer s.Destroy()
	if err := s.Run(inputs, outputs); err != nil {
		t.Fatalf("Run: %v", err)
	}
	for i, c := range cases {
		if outputs[i] == nil {
			t.Errorf("out_%s: no output", c.name)
			continue
		}
		if err := c.check(outputs[i]); err != nil {
			t.Errorf("out_%s: %v", c.name, err)
		}
		outputs[i].Destroy()
	}
}

// All types in one AdvancedSession from the model's bytes, every tensor the caller's, run twice
// (the second run overwrites the first one's outputs: the string output's strings too).
func TestAllTypesAdvancedSession(t *testing.T) {
	cases := allTypeCases()
	var inNames, outNames []string
	var inputs, outputs []ort.Value
	for _, c := range cases {
		inNames = append(inNames, "in_"+c.name)
		outNames = append(outNames, "out_"+c.name)
		in, err := c.newInput()
		if err != nil {
			t.Fatalf("%s: creating the input: %v", c.name, err)
		}
		defer in.Destroy()
		out, err := c.newOutput()
		if err != nil {
			t.Fatalf("%s: creating the output: %v", c.name, err)
		}
		defer out.Destroy()
		inputs = append(inputs, in)
		outputs = append(outputs, out)
	}
	s, err := ort.NewAdvancedSessionWithONNXData(readFile(t, allTypes), inNames, outNames, inputs, outputs, nil)
	if err != nil {
		t.Fatalf("NewAdvancedSessionWithONNXData: %v", err)
	}
	defer s.Destroy()
	for run := 1; run <= 2; run++ {
		if err := s.Run(); err != nil {
			t.Fatalf("Run %d: %v", run, err)
		}
		for i, c := range cases {
			if err := c.check(outputs[i]); err != nil {
				t.Errorf("run %d: out_%s: %v", run, c.name, err)
			}
			if st, isString := outputs[i].(*ort.StringTensor); isString {
				if err := st.SetContents([]string{"z", "z", "z", "z", "z", "z", "z", "z", "z", "z", "z", "z"}); err != nil {
					t.Errorf("refilling out_string: %v", err)
				}
			} else {
				outputs[i].ZeroContents()
			}
		}
	}
}

// A feed of another type for any one input is refused (the other inputs right, one output
// fetched).
func TestAllTypesWrongTypeRefused(t *testing.T) {
	cases := allTypeCases()
	var inNames []string
	var inputs []ort.Value
	for _, c := range cases {
		inNames = append(inNames, "in_"+c.name)
		in, err := c.newInput()
		if err != nil {
			t.Fatalf("%s: creating the input: %v", c.name, err)
		}
		defer in.Destroy()
		inputs = append(inputs, in)
	}
	s, err := ort.NewDynamicAdvancedSession(allTypes, inNames, []string{"out_int32"}, nil)
	if err != nil {
		t.Fatalf("NewDynamicAdvancedSession: %v", err)
	}
	defer s.Destroy()
	run := func(feeds []ort.Value) error {
		outputs := []ort.Value{nil}
		err := s.Run(feeds, outputs)
		if outputs[0] != nil {
			outputs[0].Destroy()
		}
		return err
	}
	if err := run(inputs); err != nil {
		t.Fatalf("the right feeds: %v", err)
	}
	for i, c := range cases {
		feeds := append([]ort.Value(nil), inputs...)
		other := cases[(i+1)%len(cases)]
		feeds[i] = inputs[(i+1)%len(cases)]
		if err := run(feeds); err == nil {
			t.Errorf("a %s feed for in_%s was accepted", other.name, c.name)
		}
	}
}
