"""ONNX Runtime's device and memory descriptions (OrtDevice, OrtMemoryInfo, OrtArenaCfg and
their enums), the shared-allocator registration functions, and SparseTensor.

onyx keeps one memory arena per session and device; create_and_register_allocator checks
its arguments and records the configuration, and says (once) that sessions keep their own
arenas rather than using it. SparseTensor holds COO, CSR(C) and block-sparse tensors with
read-only views of their arrays; OrtValue.ort_value_from_sparse_tensor wraps one.
"""
import enum
import warnings

import numpy as np

from onyx.capi import onnxruntime_pybind11_state as C


class OrtAllocatorType(enum.IntEnum):
    INVALID = -1
    ORT_DEVICE_ALLOCATOR = 0
    ORT_ARENA_ALLOCATOR = 1


class OrtMemType(enum.IntEnum):
    CPU_INPUT = -2
    CPU_OUTPUT = -1
    CPU = -1
    DEFAULT = 0


class OrtDeviceMemoryType(enum.IntEnum):
    DEFAULT = 0
    HOST_ACCESSIBLE = 5


class OrtMemoryInfoDeviceType(enum.IntEnum):
    CPU = 0
    GPU = 1
    FPGA = 2
    NPU = 3


class OrtDeviceVendorId(enum.IntEnum):
    NONE = 0
    AMD = 0x1002
    NVIDIA = 0x10DE
    ARM = 0x13B5
    MICROSOFT = 0x1414
    HUAWEI = 0x19E5
    QUALCOMM = 0x5143
    INTEL = 0x8086


class OrtSparseFormat(enum.IntEnum):
    ORT_SPARSE_UNDEFINED = 0
    ORT_SPARSE_COO = 1
    ORT_SPARSE_CSRC = 2
    ORT_SPARSE_BLOCK_SPARSE = 4


class OrtDevice:
    """A device: type (OrtDevice.cpu() 0, OrtDevice.cuda() 1), memory type and index."""

    _NAMES = {"cpu": 0, "cuda": 1, "gpu": 1}

    def __init__(self, device_type=0, memory_type=0, device_id=0):
        if isinstance(device_type, OrtDevice):  # ORT's wrapper takes a C-level device
            device_type, memory_type, device_id = device_type._type, device_type._memory, device_type._id
        self._type, self._memory, self._id = int(device_type), int(memory_type), int(device_id)

    @staticmethod
    def make(ort_device_name, device_id):
        name = str(ort_device_name).lower()
        if name not in OrtDevice._NAMES:
            raise C.Fail(f"Unsupported device type: {ort_device_name} (onyx has cpu and cuda)")
        return OrtDevice(OrtDevice._NAMES[name], 0, device_id)

    @staticmethod
    def cpu():
        return 0

    @staticmethod
    def cuda():
        return 1

    @staticmethod
    def default_memory():
        return 0

    def device_id(self):
        return self._id

    def device_type(self):
        return self._type

    def device_vendor_id(self):
        return OrtDeviceVendorId.NVIDIA if self._type == 1 else OrtDeviceVendorId.NONE

    def device_mem_type(self):
        return self._memory

    memory_type = device_mem_type

    def _name(self):
        return "cuda" if self._type == 1 else "cpu"

    def _get_c_device(self):
        return self

    def __repr__(self):
        return f"OrtDevice({self._name()}:{self._id})"


class OrtMemoryInfo:
    """Where memory lives: name ("Cpu", "Cuda", "CudaPinned"), allocator type, device index and
    memory type; create_v2 describes it by device type and vendor instead (any name)."""

    def __init__(self, name, alloc_type, device_id, mem_type):
        self.name = str(name)
        self.allocator_type = OrtAllocatorType(int(alloc_type))
        self.device_id = int(device_id)
        self.mem_type = OrtMemType(int(mem_type))
        lowered = self.name.lower()
        if lowered not in ("cpu", "cuda", "cudapinned"):
            raise C.InvalidArgument(f"OrtMemoryInfo: unknown memory name '{name}' (onyx has Cpu, Cuda, CudaPinned; "
                                    "OrtMemoryInfo.create_v2 takes any name)")
        self.device = OrtDevice(1 if lowered == "cuda" else 0, 0, self.device_id)
        self.device_mem_type = (OrtDeviceMemoryType.HOST_ACCESSIBLE if lowered == "cudapinned"
                                else OrtDeviceMemoryType.DEFAULT)
        self.device_vendor_id = self.device.device_vendor_id()
        self.alignment = 0

    @staticmethod
    def create_v2(name, device_type, vendor_id, device_id, device_mem_type, alignment, allocator_type):
        device_type = OrtMemoryInfoDeviceType(int(device_type))
        info = OrtMemoryInfo("Cuda" if device_type == OrtMemoryInfoDeviceType.GPU else "Cpu", allocator_type,
                             device_id, OrtMemType.DEFAULT)
        info.name = str(name)
        info.device_mem_type = OrtDeviceMemoryType(int(device_mem_type))
        info.device_vendor_id = int(vendor_id)
        info.alignment = int(alignment)
        return info

    def __eq__(self, other):
        return isinstance(other, OrtMemoryInfo) and (self.name, self.allocator_type, self.device_id, self.mem_type) == (
            other.name, other.allocator_type, other.device_id, other.mem_type)

    def __repr__(self):
        return (f"OrtMemoryInfo(name={self.name!r}, allocator_type={self.allocator_type.name}, "
                f"device_id={self.device_id}, mem_type={self.mem_type.name})")


class OrtArenaCfg:
    """An arena's configuration: OrtArenaCfg(max_mem, arena_extend_strategy,
    initial_chunk_size_bytes, max_dead_bytes_per_chunk) or OrtArenaCfg({key: value}) with
    those keys and initial_growth_chunk_size_bytes, max_power_of_two_extend_bytes (-1 or 0:
    the default)."""

    _KEYS = ("max_mem", "arena_extend_strategy", "initial_chunk_size_bytes", "max_dead_bytes_per_chunk",
             "initial_growth_chunk_size_bytes", "max_power_of_two_extend_bytes")

    def __init__(self, *args):
        for key in self._KEYS:
            setattr(self, key, -1)
        if len(args) == 1 and isinstance(args[0], dict):
            for key, value in args[0].items():
                if key not in self._KEYS:
                    raise ValueError(f"OrtArenaCfg: unknown key '{key}' (keys: {', '.join(self._KEYS)})")
                setattr(self, key, int(value))
        elif len(args) == 4:
            for key, value in zip(self._KEYS, args):
                setattr(self, key, int(value))
        else:
            raise TypeError("OrtArenaCfg takes (max_mem, arena_extend_strategy, initial_chunk_size_bytes, "
                            "max_dead_bytes_per_chunk) or a dict")


_registered_allocators = {}


def _register(provider, mem_info, arena_cfg):
    if not isinstance(mem_info, OrtMemoryInfo):
        raise TypeError("create_and_register_allocator takes an onyx.OrtMemoryInfo")
    if arena_cfg is not None and not isinstance(arena_cfg, OrtArenaCfg):
        raise TypeError("arena_cfg must be an onyx.OrtArenaCfg or None")
    if mem_info.device.device_type() == 1 and "CUDAExecutionProvider" not in C.get_available_providers():
        raise C.Fail("create_and_register_allocator: no CUDA device is usable here")
    if not _registered_allocators:
        warnings.warn("onyx keeps one memory arena per session and device: the registered allocator's "
                      "configuration is recorded, and sessions (session.use_env_allocators too) keep their own arenas")
    _registered_allocators[(provider, mem_info.name.lower(), mem_info.device_id)] = arena_cfg


def create_and_register_allocator(mem_info, arena_cfg):
    """Records an environment allocator for the device of `mem_info` (see the module's doc)."""
    _register("CPUExecutionProvider", mem_info, arena_cfg)


def create_and_register_allocator_v2(provider_type, mem_info, provider_options, arena_cfg):
    """As create_and_register_allocator, for the provider `provider_type`."""
    if provider_type not in C._built_providers():
        raise C.Fail(f"create_and_register_allocator_v2: this build of onyx has no {provider_type}")
    _register(provider_type, mem_info, arena_cfg)


def _readonly(array):
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


class SparseTensor:
    """A sparse tensor: values, its indices in one of three formats, and the dense shape.
    Made with sparse_coo_from_numpy (linear [N] or coordinate [N, rank] indices),
    sparse_csr_from_numpy (inner [N] and outer [rows + 1] indices of a 2-D tensor) or
    sparse_block_sparse_from_numpy; the arrays are kept (not copied) and read back read-only."""

    class _CooView:
        def __init__(self, indices):
            self._indices = indices

        def indices(self):
            return _readonly(self._indices)

    class _CsrcView:
        def __init__(self, inner, outer):
            self._inner, self._outer = inner, outer

        def inner(self):
            return _readonly(self._inner)

        def outer(self):
            return _readonly(self._outer)

    class _BlockSparseView:
        def __init__(self, indices):
            self._indices = indices

        def indices(self):
            return _readonly(self._indices)

    def __init__(self, fmt, dense_shape, values, indices, device):
        self._format, self._shape = fmt, [int(d) for d in dense_shape]
        self._values, self._indices = values, indices
        self._device = device if device is not None else OrtDevice()
        if any(d < 0 for d in self._shape):
            raise C.InvalidArgument(f"SparseTensor: negative dim in dense shape {self._shape}")

    @staticmethod
    def _device_of(device):
        device = device if device is not None else OrtDevice()
        if device.device_type() != 0:
            raise C.Fail("SparseTensor: *_from_numpy builds on the CPU; use to_cuda() to copy")
        return device

    @staticmethod
    def sparse_coo_from_numpy(dense_shape, values, coo_indices, ort_device):
        values, indices = np.asarray(values), np.asarray(coo_indices, dtype=np.int64)
        numel = int(np.prod(dense_shape)) if len(dense_shape) else 1
        if indices.ndim == 1:
            if len(indices) != len(values):
                raise C.InvalidArgument(f"SparseTensor COO: {len(values)} values but {len(indices)} linear indices")
            if len(indices) and (indices.min() < 0 or indices.max() >= numel):
                raise C.InvalidArgument("SparseTensor COO: a linear index is out of the dense shape")
        elif indices.ndim != 2 or indices.shape != (len(values), len(dense_shape)):
            raise C.InvalidArgument(f"SparseTensor COO: indices of shape {indices.shape} for {len(values)} values "
                                    f"of a rank-{len(dense_shape)} tensor")
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_COO, dense_shape, values, (indices,),
                            SparseTensor._device_of(ort_device))

    @staticmethod
    def sparse_csr_from_numpy(dense_shape, values, inner_indices, outer_indices, ort_device):
        values = np.asarray(values)
        inner, outer = np.asarray(inner_indices, dtype=np.int64), np.asarray(outer_indices, dtype=np.int64)
        if len(dense_shape) != 2:
            raise C.InvalidArgument(f"SparseTensor CSR: the dense shape must be 2-D, got {list(dense_shape)}")
        if len(inner) != len(values) or len(outer) != dense_shape[0] + 1:
            raise C.InvalidArgument(f"SparseTensor CSR: {len(values)} values, {len(inner)} inner and {len(outer)} "
                                    f"outer indices for {dense_shape[0]} rows")
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_CSRC, dense_shape, values, (inner, outer),
                            SparseTensor._device_of(ort_device))

    @staticmethod
    def sparse_block_sparse_from_numpy(dense_shape, values, indices, ort_device):
        return SparseTensor(OrtSparseFormat.ORT_SPARSE_BLOCK_SPARSE, dense_shape, np.asarray(values),
                            (np.asarray(indices, dtype=np.int32),), SparseTensor._device_of(ort_device))

    def format(self):
        return self._format

    def dense_shape(self):
        return list(self._shape)

    def data_type(self):
        values = self.values()
        name = "string" if values.dtype.kind in "USO" else {
            "float32": "float", "float64": "double", "bool": "bool"}.get(values.dtype.name, values.dtype.name)
        return f"sparse_tensor({name})"

    def device_name(self):
        return self._device._name()

    def values(self):
        if isinstance(self._values, C.OrtValue):
            return _readonly(self._values.numpy())
        return _readonly(self._values)

    def as_coo_view(self):
        self._expect(OrtSparseFormat.ORT_SPARSE_COO)
        return SparseTensor._CooView(self._host(self._indices[0]))

    def as_csrc_view(self):
        self._expect(OrtSparseFormat.ORT_SPARSE_CSRC)
        return SparseTensor._CsrcView(self._host(self._indices[0]), self._host(self._indices[1]))

    def as_blocksparse_view(self):
        self._expect(OrtSparseFormat.ORT_SPARSE_BLOCK_SPARSE)
        return SparseTensor._BlockSparseView(self._host(self._indices[0]))

    def to_cuda(self, ort_device):
        """A copy on the GPU (values and indices in device memory)."""
        if self._device.device_type() != 0:
            raise C.Fail("SparseTensor.to_cuda: the tensor is already on a GPU")
        if np.asarray(self._values).dtype.kind in "USO":
            raise C.Fail("SparseTensor.to_cuda: string values stay on the CPU")
        if "CUDAExecutionProvider" not in C.get_available_providers():
            raise C.Fail("SparseTensor.to_cuda: no CUDA device is usable here")
        dev = ort_device.device_id()
        on_gpu = lambda a: C.OrtValue.ortvalue_from_numpy(np.ascontiguousarray(a), "cuda", dev)  # noqa: E731
        return SparseTensor(self._format, self._shape, on_gpu(self._values),
                            tuple(on_gpu(i) for i in self._indices), OrtDevice(1, 0, dev))

    def to_dense(self):
        """onyx extension: the dense numpy array (COO and CSR)."""
        values = self.values()
        dense = np.zeros(self._shape, dtype=values.dtype if values.dtype.kind not in "U" else object)
        if self._format == OrtSparseFormat.ORT_SPARSE_COO:
            idx = self.as_coo_view().indices()
            flat = dense.reshape(-1)
            lin = idx if idx.ndim == 1 else np.ravel_multi_index(tuple(idx.T), self._shape)
            flat[lin] = values
        elif self._format == OrtSparseFormat.ORT_SPARSE_CSRC:
            view = self.as_csrc_view()
            inner, outer = view.inner(), view.outer()
            for row in range(self._shape[0]):
                dense[row, inner[outer[row]:outer[row + 1]]] = values[outer[row]:outer[row + 1]]
        else:
            raise C.NotImplemented("SparseTensor.to_dense: block-sparse tensors")
        return dense

    def _expect(self, fmt):
        if self._format != fmt:
            raise C.InvalidArgument(f"SparseTensor is {self._format.name}, not {fmt.name}")

    @staticmethod
    def _host(a):
        return a.numpy() if isinstance(a, C.OrtValue) else a
