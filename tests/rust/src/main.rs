//! The Rust `ort` crate (2.0.0-rc.15, `load-dynamic`, `api-30`), unmodified, on onyx's
//! libonnxruntime.so.1 (the ctest test rust_binding).
//!
//!     onyx_ort_binding_test ONYX_LIBRARY_DIR STRIPES_MODEL ALL_TYPES_MODEL
//!
//! Run it with ORT_DYLIB_PATH=ONYX_LIBRARY_DIR/libonnxruntime.so.1 (tests/rust/run.sh does): the
//! crate opens whatever library that names, and the first check below fails unless the process
//! mapped onyx's library and no other libonnxruntime. Then models/stripes.onnx goes through the
//! crate's own API (sessions from a file and from bytes, names and types, a batch of two images
//! whose classes are known, bad feeds refused with an Err), and tests/bindings/all_types.onnx
//! through every tensor element type the crate hands over, each output checked value by value.
//! The last line is `N passed, N failed`; the exit status is nonzero when any check failed.

use std::{
	fmt::{Debug, Display},
	panic::{AssertUnwindSafe, catch_unwind},
	path::{Path, PathBuf},
	process::ExitCode
};

use ort::{
	ErrorCode,
	environment::Environment,
	memory::Allocator,
	session::{OutputSelector, RunOptions, Session, SessionInputValue, SessionOutputs, builder::GraphOptimizationLevel},
	value::{DynTensor, DynTensorValueType, PrimitiveTensorElementType, Tensor, TensorElementType, TensorRef, ValueType}
};

type Res<T> = Result<T, String>;

/// Turns any error of the crate (or of std) into a message that says what was being done.
fn ctx<E: Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
	move |e| format!("{what}: {e}")
}

#[derive(Default)]
struct Checks {
	passed: u32,
	failed: u32
}

impl Checks {
	fn check(&mut self, ok: bool, what: impl Display) -> bool {
		if ok {
			self.passed += 1;
			println!("ok    {what}");
		} else {
			self.failed += 1;
			println!("FAIL  {what}");
		}
		ok
	}

	/// Counts a step that could not be carried out (an Err where Ok was due) as one failure.
	fn step<T>(&mut self, result: Res<T>) -> Option<T> {
		match result {
			Ok(v) => Some(v),
			Err(e) => {
				self.check(false, e);
				None
			}
		}
	}
}

// ---------------------------------------------------------------------------------------------
// 1. Which library the process mapped.

/// Every mapped file whose path contains "libonnxruntime", as /proc/self/maps names it.
fn mapped_onnxruntime_paths() -> Res<Vec<String>> {
	let maps = std::fs::read_to_string("/proc/self/maps").map_err(ctx("reading /proc/self/maps"))?;
	let mut paths: Vec<String> = Vec::new();
	for line in maps.lines() {
		// address perms offset dev inode, then the path (which may hold spaces), starting with '/'.
		let Some(start) = line.find('/') else { continue };
		let path = line[start..].trim_end().trim_end_matches(" (deleted)").to_string();
		if path.contains("libonnxruntime") && !paths.contains(&path) {
			paths.push(path);
		}
	}
	Ok(paths)
}

fn check_mapped_library(c: &mut Checks, lib_dir: &Path) {
	let ours = lib_dir.join("libonnxruntime.so.1");
	let ours_real = match std::fs::canonicalize(&ours) {
		Ok(p) => p,
		Err(e) => {
			c.check(false, format!("onyx's library {} resolves: {e}", ours.display()));
			return;
		}
	};
	let Some(mapped) = c.step(mapped_onnxruntime_paths()) else { return };
	let foreign: Vec<&String> = mapped
		.iter()
		.filter(|p| std::fs::canonicalize(p).map(|r| r != ours_real).unwrap_or(true))
		.collect();
	c.check(
		!mapped.is_empty() && foreign.is_empty(),
		format!(
			"the process maps onyx's library ({}) and no other libonnxruntime (mapped: {})",
			ours_real.display(),
			if mapped.is_empty() { "none".to_string() } else { mapped.join(", ") }
		)
	);
}

// ---------------------------------------------------------------------------------------------
// 2. models/stripes.onnx

/// An 8x8 image of stripes two pixels wide: horizontal (class 1) or vertical (class 0).
fn stripes(horizontal: bool) -> [f32; 64] {
	let mut image = [0f32; 64];
	for r in 0..8 {
		for col in 0..8 {
			image[r * 8 + col] = ((if horizontal { r } else { col } / 2) % 2) as f32;
		}
	}
	image
}

fn new_builder(env: &Environment) -> Res<ort::session::builder::SessionBuilder> {
	Session::builder(env)
		.map_err(ctx("Session::builder"))?
		.with_optimization_level(GraphOptimizationLevel::Level3)
		.map_err(ctx("with_optimization_level"))?
		.with_intra_threads(1)
		.map_err(ctx("with_intra_threads"))
}

fn check_stripes_signature(c: &mut Checks, session: &Session) {
	let inputs: Vec<&str> = session.inputs().iter().map(|o| o.name()).collect();
	let outputs: Vec<&str> = session.outputs().iter().map(|o| o.name()).collect();
	c.check(inputs == ["image"], format!("stripes input names {inputs:?}"));
	c.check(outputs == ["probabilities"], format!("stripes output names {outputs:?}"));
	if let Some(input) = session.inputs().first() {
		let ok = match input.dtype() {
			ValueType::Tensor { ty, shape, .. } => {
				*ty == TensorElementType::Float32 && shape.len() == 4 && shape[0] < 0 && shape[1..] == [1, 8, 8]
			}
			_ => false
		};
		c.check(ok, format!("input image is float32 [N, 1, 8, 8] ({})", input.dtype()));
	}
	if let Some(output) = session.outputs().first() {
		let ok = match output.dtype() {
			ValueType::Tensor { ty, shape, .. } => *ty == TensorElementType::Float32 && shape.len() == 2 && shape[0] < 0 && shape[1] == 3,
			_ => false
		};
		c.check(ok, format!("output probabilities is float32 [N, 3] ({})", output.dtype()));
	}
}

fn argmax(p: &[f32]) -> usize {
	(0..p.len()).fold(0, |best, k| if p[k] > p[best] { k } else { best })
}

/// Runs a batch of two images, horizontal stripes then vertical, and checks the answer.
fn classify(c: &mut Checks, session: &mut Session, label: &str) {
	let mut images = Vec::with_capacity(128);
	images.extend_from_slice(&stripes(true));
	images.extend_from_slice(&stripes(false));
	let result = (|| -> Res<()> {
		let tensor = TensorRef::from_array_view(([2usize, 1, 8, 8], images.as_slice())).map_err(ctx("TensorRef::from_array_view"))?;
		let outputs = session.run(ort::inputs!["image" => tensor]).map_err(ctx("Session::run"))?;
		c.check(outputs.len() == 1, format!("{label}: one output returned ({})", outputs.len()));
		let probabilities = outputs.get("probabilities").ok_or_else(|| format!("{label}: no output named probabilities"))?;
		let (shape, p) = probabilities
			.try_extract_tensor::<f32>()
			.map_err(ctx("extracting probabilities as f32"))?;
		c.check(**shape == [2, 3], format!("{label}: probabilities shape {shape}"));
		if p.len() == 6 {
			let classes = (argmax(&p[0..3]), argmax(&p[3..6]));
			c.check(classes == (1, 0), format!("{label}: horizontal stripes are class 1, vertical class 0 (got {classes:?}, {p:?})"));
			for b in 0..2 {
				let sum: f32 = p[b * 3..b * 3 + 3].iter().sum();
				c.check((sum - 1.0).abs() < 1e-5, format!("{label}: probabilities of item {b} sum to 1 ({sum})"));
			}
		}
		Ok(())
	})();
	if let Err(e) = result {
		c.check(false, format!("{label}: {e}"));
	}
}

/// A feed the model cannot take must come back as an Err naming the problem, not as a crash.
fn check_bad_feeds(c: &mut Checks, session: &mut Session) {
	let ten = [0f32; 10];
	match TensorRef::from_array_view(([10usize], &ten[..])) {
		Ok(t) => match session.run(ort::inputs!["image" => t]) {
			Ok(_) => {
				c.check(false, "a float32 [10] feed for image (wrong rank) is refused");
			}
			Err(e) => {
				c.check(e.message().contains("image"), format!("a feed of the wrong rank is refused naming the input: {e}"));
				c.check(e.code() == ErrorCode::InvalidArgument, format!("... with ORT_INVALID_ARGUMENT ({:?})", e.code()));
			}
		},
		Err(e) => {
			c.check(false, format!("TensorRef::from_array_view: {e}"));
		}
	}

	let image = stripes(true);
	match TensorRef::from_array_view(([1usize, 1, 8, 8], &image[..])) {
		Ok(t) => match session.run(ort::inputs!["picture" => t]) {
			Ok(_) => {
				c.check(false, "a feed named picture (no such input) is refused");
			}
			Err(e) => {
				c.check(e.message().contains("picture"), format!("a feed under an unknown name is refused naming it: {e}"));
				c.check(e.code() == ErrorCode::InvalidArgument, format!("... with ORT_INVALID_ARGUMENT ({:?})", e.code()));
			}
		},
		Err(e) => {
			c.check(false, format!("TensorRef::from_array_view: {e}"));
		}
	}

	match (TensorRef::from_array_view(([1usize, 1, 8, 8], &image[..])), RunOptions::new()) {
		(Ok(t), Ok(options)) => {
			let options = options.with_outputs(OutputSelector::no_default().with("logits"));
			match session.run_with_options(ort::inputs!["image" => t], &options) {
				Ok(_) => {
					c.check(false, "a fetch of logits (no such output) is refused");
				}
				Err(e) => {
					c.check(e.message().contains("logits"), format!("a fetch under an unknown name is refused naming it: {e}"));
					c.check(e.code() == ErrorCode::InvalidArgument, format!("... with ORT_INVALID_ARGUMENT ({:?})", e.code()));
				}
			}
		}
		(Err(e), _) | (_, Err(e)) => {
			c.check(false, format!("a fetch under an unknown name: {e}"));
		}
	}

	let doubles = [0f64; 64];
	match TensorRef::from_array_view(([1usize, 1, 8, 8], &doubles[..])) {
		Ok(t) => match session.run(ort::inputs!["image" => t]) {
			Ok(_) => {
				c.check(false, "a float64 feed for the float32 input image is refused");
			}
			Err(e) => {
				c.check(e.code() == ErrorCode::InvalidArgument, format!("a feed of the wrong element type is refused: {e} ({:?})", e.code()));
			}
		},
		Err(e) => {
			c.check(false, format!("TensorRef::from_array_view: {e}"));
		}
	}
}

fn run_stripes(c: &mut Checks, env: &Environment, lib_dir: &Path, model: &Path) {
	let session = new_builder(env).and_then(|mut b| b.commit_from_file(model).map_err(ctx("commit_from_file(stripes)")));
	// The library is open once the first session exists: see which one it is.
	check_mapped_library(c, lib_dir);
	let Some(mut session) = c.step(session) else { return };
	check_stripes_signature(c, &session);
	classify(c, &mut session, "session from file");

	let bytes = match std::fs::read(model) {
		Ok(b) => b,
		Err(e) => {
			c.check(false, format!("reading {}: {e}", model.display()));
			return;
		}
	};
	if let Some(mut from_bytes) = c.step(new_builder(env).and_then(|mut b| b.commit_from_memory(&bytes).map_err(ctx("commit_from_memory")))) {
		check_stripes_signature(c, &from_bytes);
		classify(c, &mut from_bytes, "session from bytes");
	}
	let direct = new_builder(env).and_then(|mut b| {
		b.commit_from_memory_directly(&bytes)
			.map(|s| {
				let names: Vec<String> = s.outputs().iter().map(|o| o.name().to_string()).collect();
				names
			})
			.map_err(ctx("commit_from_memory_directly"))
	});
	if let Some(names) = c.step(direct) {
		c.check(names == ["probabilities"], format!("session on the caller's bytes (commit_from_memory_directly): outputs {names:?}"));
	}

	check_bad_feeds(c, &mut session);
	classify(c, &mut session, "session from file, after the refused feeds");
}

// ---------------------------------------------------------------------------------------------
// 3. tests/bindings/all_types.onnx

/// Exact comparison: floats by their bits (so -0.0 differs from 0.0), everything else by ==.
trait Exact: Copy + Debug {
	fn same(self, other: Self) -> bool;
	fn doubled(self) -> Self;
}
macro_rules! exact_int {
	($($t:ty),*) => {$(
		impl Exact for $t {
			fn same(self, other: Self) -> bool { self == other }
			fn doubled(self) -> Self { self.checked_add(self).expect("the test data must not overflow") }
		}
	)*};
}
exact_int!(i8, i16, i32, i64, u8, u16, u32, u64);
impl Exact for f32 {
	fn same(self, other: Self) -> bool {
		self.to_bits() == other.to_bits()
	}
	fn doubled(self) -> Self {
		self + self
	}
}
impl Exact for f64 {
	fn same(self, other: Self) -> bool {
		self.to_bits() == other.to_bits()
	}
	fn doubled(self) -> Self {
		self + self
	}
}

/// Six values per type (a batch of two rows of three), chosen near the ends of each type's range
/// so that a value handed over with the wrong width or signedness shows.
struct Data {
	f32s: [f32; 6],
	f64s: [f64; 6],
	i8s: [i8; 6],
	i16s: [i16; 6],
	i32s: [i32; 6],
	i64s: [i64; 6],
	u8s: [u8; 6],
	u16s: [u16; 6],
	u32s: [u32; 6],
	u64s: [u64; 6],
	bools: [bool; 6],
	/// float16 bit patterns in, and the bit patterns of their doubles out: 1, -2.5, 0.5, 32752
	/// (doubling to 65504, the largest float16), the smallest subnormal, -0.
	f16_in: [u16; 6],
	f16_out: [u16; 6],
	strings: Vec<String>
}

fn data() -> Data {
	Data {
		f32s: [1.5, -2.25, 1.0e38, f32::MIN_POSITIVE, 16_777_215.0, -0.0],
		f64s: [0.1, -3.5, 1.0e300, f64::MIN_POSITIVE, 9_007_199_254_740_991.0, -0.0],
		i8s: [i8::MIN / 2, i8::MAX / 2, -1, 0, 1, 50],
		i16s: [i16::MIN / 2, i16::MAX / 2, -300, 0, 1, 7],
		i32s: [i32::MIN / 2, i32::MAX / 2, -70_000, 0, 1, 65_537],
		i64s: [i64::MIN / 2, i64::MAX / 2, -(1 << 40) - 1, 0, 1, 1 << 33],
		u8s: [u8::MAX / 2, 0, 1, 100, 64, 5],
		u16s: [u16::MAX / 2, 0, 1, 20_000, 256, 9],
		u32s: [u32::MAX / 2, 0, 1, 1_500_000_000, 65_536, 7],
		u64s: [u64::MAX / 2, 0, 1, 1 << 62, 1 << 33, 11],
		bools: [true, false, true, false, false, true],
		f16_in: [0x3C00, 0xC100, 0x3800, 0x77FF, 0x0001, 0x8000],
		f16_out: [0x4000, 0xC500, 0x3C00, 0x7BFF, 0x0002, 0x8000],
		strings: ["", "a", "héllo wörld", "a longer string, well past any small-string buffer", "tab\tnew\nline", "日本語"]
			.iter()
			.map(|s| s.to_string())
			.collect()
	}
}

const TYPE_NAMES: [(&str, TensorElementType); 13] = [
	("float32", TensorElementType::Float32),
	("float64", TensorElementType::Float64),
	("float16", TensorElementType::Float16),
	("int8", TensorElementType::Int8),
	("int16", TensorElementType::Int16),
	("int32", TensorElementType::Int32),
	("int64", TensorElementType::Int64),
	("uint8", TensorElementType::Uint8),
	("uint16", TensorElementType::Uint16),
	("uint32", TensorElementType::Uint32),
	("uint64", TensorElementType::Uint64),
	("bool", TensorElementType::Bool),
	("string", TensorElementType::String)
];

fn check_all_types_signature(c: &mut Checks, session: &Session) {
	for (kind, outlets, prefix) in [("input", session.inputs(), "in_"), ("output", session.outputs(), "out_")] {
		let names: Vec<&str> = outlets.iter().map(|o| o.name()).collect();
		let want: Vec<String> = TYPE_NAMES.iter().map(|(n, _)| format!("{prefix}{n}")).collect();
		c.check(names == want, format!("all_types {kind} names in order ({names:?})"));
		for (name, ty) in TYPE_NAMES {
			let Some(outlet) = outlets.iter().find(|o| o.name() == format!("{prefix}{name}")) else { continue };
			let cols = if kind == "output" && name == "string" { 6 } else { 3 };
			let ok = match outlet.dtype() {
				ValueType::Tensor { ty: t, shape, dimension_symbols } => {
					*t == ty && **shape == [-1, cols] && dimension_symbols.first().map(|s| s.as_str()) == Some("N")
				}
				_ => false
			};
			c.check(ok, format!("{kind} {}: {} [N, {cols}] ({})", outlet.name(), ty, outlet.dtype()));
		}
	}
}

/// The float16 input, written as raw bit patterns into a tensor the library allocates: the crate
/// types float16 only behind its `half` feature (a dependency on the `half` crate), which this
/// test leaves off, so float16 goes through the crate's untyped DynTensor instead.
fn f16_tensor(bits: &[u16]) -> Res<DynTensor> {
	let n = bits.len() / 3;
	let mut tensor = DynTensor::new(&Allocator::default(), TensorElementType::Float16, [n, 3]).map_err(ctx("DynTensor::new(Float16)"))?;
	let ptr = tensor.data_ptr_mut().cast::<u16>();
	if ptr.is_null() {
		return Err("DynTensor::new(Float16): no data".into());
	}
	// SAFETY: the library allocated n*3 float16 values (2 bytes each) for this tensor.
	unsafe { std::ptr::copy_nonoverlapping(bits.as_ptr(), ptr, bits.len()) };
	Ok(tensor)
}

fn check_doubled<T: PrimitiveTensorElementType + Exact>(c: &mut Checks, label: &str, outputs: &SessionOutputs, name: &str, input: &[T]) {
	let n = input.len() / 3;
	let Some(value) = outputs.get(name) else {
		c.check(false, format!("{label}: output {name} returned"));
		return;
	};
	match value.try_extract_tensor::<T>() {
		Ok((shape, got)) => {
			let want: Vec<T> = input.iter().map(|x| x.doubled()).collect();
			let ok = **shape == [n as i64, 3] && got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| g.same(*w));
			c.check(ok, format!("{label}: {name} {shape} = in + in exactly (got {got:?}, want {want:?})"));
		}
		Err(e) => {
			c.check(false, format!("{label}: extracting {name} as {}: {e}", T::into_tensor_element_type()));
		}
	}
}

fn check_f16(c: &mut Checks, label: &str, outputs: &mut SessionOutputs, want: &[u16]) {
	let n = want.len() / 3;
	let Some(value) = outputs.remove("out_float16") else {
		c.check(false, format!("{label}: output out_float16 returned"));
		return;
	};
	let tensor = match value.downcast::<DynTensorValueType>() {
		Ok(t) => t,
		Err(e) => {
			c.check(false, format!("{label}: out_float16 is a tensor: {e}"));
			return;
		}
	};
	let ty = tensor.data_type();
	let shape = tensor.shape().clone();
	let size = tensor.size();
	let ok_meta = *ty == TensorElementType::Float16 && *shape == [n as i64, 3] && size == Some(n * 3 * 2);
	c.check(ok_meta, format!("{label}: out_float16 is f16 [{n}, 3] of {} bytes ({ty} {shape}, {size:?} bytes)", n * 6));
	if ok_meta {
		let ptr = tensor.data_ptr().cast::<u16>();
		// SAFETY: the library says the tensor holds n*3 float16 values.
		let got: Vec<u16> = unsafe { std::slice::from_raw_parts(ptr, n * 3) }.to_vec();
		c.check(
			got == want,
			format!("{label}: out_float16 = in + in exactly (bits got {:04x?}, want {:04x?})", got, want)
		);
	}
}

fn run_all_types_batch(c: &mut Checks, session: &mut Session, d: &Data, n: usize) {
	let k = n * 3;
	let label = format!("all_types, batch of {n}");
	let shape = vec![n as i64, 3];
	let result = (|| -> Res<()> {
		let strings = &d.strings[..k];
		// Some inputs are views of our memory (TensorRef), some tensors the crate copies (Tensor),
		// float16 a tensor the library allocates: the three ways the crate hands data over.
		let inputs: Vec<(&str, SessionInputValue)> = vec![
			("in_float32", TensorRef::from_array_view((shape.clone(), &d.f32s[..k])).map_err(ctx("in_float32"))?.into()),
			("in_float64", Tensor::from_array((shape.clone(), d.f64s[..k].to_vec())).map_err(ctx("in_float64"))?.into()),
			("in_float16", f16_tensor(&d.f16_in[..k])?.into()),
			("in_int8", TensorRef::from_array_view((shape.clone(), &d.i8s[..k])).map_err(ctx("in_int8"))?.into()),
			("in_int16", Tensor::from_array((shape.clone(), d.i16s[..k].to_vec())).map_err(ctx("in_int16"))?.into()),
			("in_int32", TensorRef::from_array_view((shape.clone(), &d.i32s[..k])).map_err(ctx("in_int32"))?.into()),
			("in_int64", Tensor::from_array((shape.clone(), d.i64s[..k].to_vec())).map_err(ctx("in_int64"))?.into()),
			("in_uint8", Tensor::from_array((shape.clone(), d.u8s[..k].to_vec())).map_err(ctx("in_uint8"))?.into()),
			("in_uint16", TensorRef::from_array_view((shape.clone(), &d.u16s[..k])).map_err(ctx("in_uint16"))?.into()),
			("in_uint32", Tensor::from_array((shape.clone(), d.u32s[..k].to_vec())).map_err(ctx("in_uint32"))?.into()),
			("in_uint64", TensorRef::from_array_view((shape.clone(), &d.u64s[..k])).map_err(ctx("in_uint64"))?.into()),
			("in_bool", TensorRef::from_array_view((shape.clone(), &d.bools[..k])).map_err(ctx("in_bool"))?.into()),
			("in_string", Tensor::from_string_array((shape.clone(), strings)).map_err(ctx("in_string"))?.into()),
		];
		let mut outputs = session.run(inputs).map_err(ctx("Session::run"))?;
		c.check(outputs.len() == 13, format!("{label}: 13 outputs returned ({})", outputs.len()));

		check_doubled(c, &label, &outputs, "out_float32", &d.f32s[..k]);
		check_doubled(c, &label, &outputs, "out_float64", &d.f64s[..k]);
		check_doubled(c, &label, &outputs, "out_int8", &d.i8s[..k]);
		check_doubled(c, &label, &outputs, "out_int16", &d.i16s[..k]);
		check_doubled(c, &label, &outputs, "out_int32", &d.i32s[..k]);
		check_doubled(c, &label, &outputs, "out_int64", &d.i64s[..k]);
		check_doubled(c, &label, &outputs, "out_uint8", &d.u8s[..k]);
		check_doubled(c, &label, &outputs, "out_uint16", &d.u16s[..k]);
		check_doubled(c, &label, &outputs, "out_uint32", &d.u32s[..k]);
		check_doubled(c, &label, &outputs, "out_uint64", &d.u64s[..k]);

		match outputs.get("out_bool").map(|v| v.try_extract_tensor::<bool>()) {
			Some(Ok((s, got))) => {
				let want: Vec<bool> = d.bools[..k].iter().map(|b| !b).collect();
				c.check(**s == [n as i64, 3] && got == want.as_slice(), format!("{label}: out_bool {s} = Not(in) (got {got:?}, want {want:?})"));
			}
			Some(Err(e)) => {
				c.check(false, format!("{label}: extracting out_bool: {e}"));
			}
			None => {
				c.check(false, format!("{label}: output out_bool returned"));
			}
		}

		match outputs.get("out_string").map(|v| v.try_extract_strings()) {
			Some(Ok((s, got))) => {
				let want: Vec<String> = strings.chunks(3).flat_map(|row| row.iter().chain(row.iter()).cloned()).collect();
				c.check(**s == [n as i64, 6] && got == want, format!("{label}: out_string {s} = Concat(in, in, axis 1) (got {got:?}, want {want:?})"));
			}
			Some(Err(e)) => {
				c.check(false, format!("{label}: extracting out_string: {e}"));
			}
			None => {
				c.check(false, format!("{label}: output out_string returned"));
			}
		}

		check_f16(c, &label, &mut outputs, &d.f16_out[..k]);
		Ok(())
	})();
	if let Err(e) = result {
		c.check(false, format!("{label}: {e}"));
	}
}

/// Fetches two outputs by name only (OutputSelector): the library must compute just those.
fn run_all_types_selected(c: &mut Checks, session: &mut Session, d: &Data) {
	let shape = vec![2i64, 3];
	let result = (|| -> Res<()> {
		let mut inputs: Vec<(String, SessionInputValue)> = Vec::new();
		for (name, ty) in TYPE_NAMES {
			let value: SessionInputValue = match ty {
				TensorElementType::Float16 => f16_tensor(&d.f16_in)?.into(),
				TensorElementType::String => Tensor::from_string_array((shape.clone(), &d.strings[..])).map_err(ctx("in_string"))?.into(),
				_ => DynTensor::new(&Allocator::default(), ty, shape.clone()).map_err(ctx("DynTensor::new"))?.into()
			};
			inputs.push((format!("in_{name}"), value));
		}
		// Only int32 and string carry data here; the rest are the zeros DynTensor::new writes.
		let int32 = TensorRef::from_array_view((shape.clone(), &d.i32s[..])).map_err(ctx("in_int32"))?;
		if let Some(slot) = inputs.iter_mut().find(|(n, _)| n == "in_int32") {
			slot.1 = int32.into();
		}
		let options = RunOptions::new()
			.map_err(ctx("RunOptions::new"))?
			.with_outputs(OutputSelector::no_default().with("out_int32").with("out_string"));
		let outputs = session.run_with_options(inputs, &options).map_err(ctx("Session::run_with_options"))?;
		let mut names: Vec<&str> = outputs.keys().collect();
		names.sort();
		c.check(names == ["out_int32", "out_string"], format!("selected outputs only: {names:?}"));
		check_doubled(c, "all_types, selected outputs", &outputs, "out_int32", &d.i32s);
		let strings = outputs.get("out_string").map(|v| v.try_extract_strings().map(|(_, s)| s));
		let want: Vec<String> = d.strings.chunks(3).flat_map(|row| row.iter().chain(row.iter()).cloned()).collect();
		c.check(
			matches!(&strings, Some(Ok(s)) if *s == want),
			format!("all_types, selected outputs: out_string = Concat(in, in) ({strings:?})")
		);
		Ok(())
	})();
	if let Err(e) = result {
		c.check(false, format!("all_types, selected outputs: {e}"));
	}
}

fn run_all_types(c: &mut Checks, env: &Environment, model: &Path) {
	let Some(mut session) = c.step(new_builder(env).and_then(|mut b| b.commit_from_file(model).map_err(ctx("commit_from_file(all_types)"))))
	else {
		return;
	};
	check_all_types_signature(c, &session);
	let d = data();
	run_all_types_batch(c, &mut session, &d, 2);
	run_all_types_batch(c, &mut session, &d, 1);
	run_all_types_selected(c, &mut session, &d);
}

// ---------------------------------------------------------------------------------------------

fn run(c: &mut Checks, lib_dir: &Path, stripes_model: &Path, all_types_model: &Path) {
	match std::env::var("ORT_DYLIB_PATH") {
		Ok(p) if !p.is_empty() => println!("ORT_DYLIB_PATH={p}"),
		_ => println!("ORT_DYLIB_PATH is not set: the crate opens libonnxruntime.so from the loader's search path")
	}
	c.check(ort::MINOR_VERSION == 30, format!("the crate was built for ONNX Runtime API version 30 ({})", ort::MINOR_VERSION));
	let Some(env) = c.step(ort::init().with_name("onyx_ort_binding_test").build().map_err(ctx("ort::init().build()"))) else {
		return;
	};
	println!("library build info: {}", ort::info());
	run_stripes(c, &env, lib_dir, stripes_model);
	run_all_types(c, &env, all_types_model);
}

fn main() -> ExitCode {
	let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
	let [lib_dir, stripes_model, all_types_model] = args.as_slice() else {
		eprintln!("usage: onyx_ort_binding_test ONYX_LIBRARY_DIR STRIPES_MODEL ALL_TYPES_MODEL");
		return ExitCode::from(2);
	};
	let mut c = Checks::default();
	// A panic inside the crate (it panics when the library cannot be opened, for one) is one
	// failed check, and the closing line still comes.
	let outcome = catch_unwind(AssertUnwindSafe(|| run(&mut c, lib_dir, stripes_model, all_types_model)));
	if outcome.is_err() {
		c.check(false, "the test ran to its end without a panic (see the message above)");
	}
	println!("{} passed, {} failed", c.passed, c.failed);
	if c.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
