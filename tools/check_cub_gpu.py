"""GPU check of the CUB paths of kernels/gpu/scans.inc and kernels/gpu/sorting.inc: CUDA vs CPU results, then
timings. Run on a machine with a GPU: python tools/check_cub_gpu.py  (exits 1 on a mismatch)."""
import sys
import time

import numpy as np

import torchlite as tl

assert tl.cuda.is_available(), "needs a GPU (or TORCHLITE_EMULATE_CUDA=1 for a dry run of the checks)"
EMULATED = tl.cuda._is_emulated()
CUDA = tl.device("cuda")
rng = np.random.default_rng(0)
failures = []

FLOATS = [tl.float32, tl.float64, tl.float16, tl.bfloat16]
INTS = [tl.int64, tl.int32, tl.int16, tl.int8, tl.uint8]


def sample(shape, dtype):
    n = int(np.prod(shape))
    if n == 0:
        return tl.empty(shape, dtype=dtype)
    if dtype in FLOATS:
        base = np.array([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, np.nan, 3.0, -7.0], dtype=np.float64)
        a = np.where(rng.random(n) < 0.5, rng.choice(base, n), rng.standard_normal(n).round(1))
        return tl.tensor(a.reshape(shape).tolist(), dtype=dtype)
    if dtype == tl.bool:
        return tl.tensor((rng.random(n) < 0.5).reshape(shape).tolist(), dtype=dtype)
    lo, hi = (0, 255) if dtype == tl.uint8 else (-100, 100)
    a = rng.integers(lo, hi, n)
    if dtype == tl.int64:
        a[: n // 10] = rng.choice([2**63 - 1, -(2**63)], n // 10)
    rng.shuffle(a)
    return tl.tensor(a.reshape(shape).tolist(), dtype=dtype)


def npy(t):
    t = t.cpu()
    if t.dtype in (tl.float16, tl.bfloat16):
        t = t.to(tl.float32)
    return t.numpy()


def same(what, cpu, dev, exact=True, tol=None):
    if isinstance(cpu, (tuple, list)):
        for i, (c, d) in enumerate(zip(cpu, dev)):
            same(f"{what}[{i}]", c, d, exact, tol)
        return
    a, b = npy(cpu), npy(dev)
    if a.shape != b.shape:
        failures.append(f"{what}: shape {a.shape} vs {b.shape}")
        return
    if exact or a.dtype.kind not in "fc":
        ok = np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        if ok and a.dtype.kind == "f":  # -0.0 vs 0.0
            ok = np.array_equal(np.signbit(a), np.signbit(b))
    else:
        ok = np.allclose(a, b, rtol=tol[0], atol=tol[1], equal_nan=True)
    if not ok:
        bad = np.argwhere(~(np.isclose(a, b, equal_nan=True) if a.dtype.kind == "f" else (a == b)))[:5]
        failures.append(f"{what}: first differences at {bad.tolist()}")


TOL = {tl.float16: (2e-3, 1e-3), tl.bfloat16: (1.6e-2, 1e-2), tl.float32: (1e-5, 1e-6), tl.float64: (1e-12, 1e-14)}
SHAPES = [((7,), 0), ((1000,), 0), ((40000,), 0), ((3, 5), 1), ((3, 5), 0), ((64, 33), 1), ((33, 64), 0),
          ((5, 300, 4), 1), ((2, 70000), 1), ((20000, 3), 1), ((1, 1), 0), ((0, 4), 1), ((4, 0), 1),
          # segmented sort (rows <= 4096): partitioned (>= 500 rows) small/medium/large segments, the limit
          ((600, 50), 1), ((520, 700), 1), ((3, 4096), 1), ((3, 4097), 1), ((700, 130), 1)]

for dtype in FLOATS + INTS + [tl.bool]:
    for shape, dim in SHAPES:
        x = sample(shape, dtype)
        for xt in (x, x.transpose(0, -1) if x.dim() > 1 else x):
            d = xt.to(CUDA) if xt.is_contiguous() else tl.empty_strided(tuple(xt.shape), xt.stride(), dtype=dtype, device=CUDA).copy_(xt)
            tag = f"{dtype} {tuple(xt.shape)} dim={dim}"
            for desc in (False, True):
                same(f"sort {tag} desc={desc}", tl.sort(xt, dim, descending=desc), tl.sort(d, dim, descending=desc))
            if xt.numel() == 0:
                continue
            same(f"cummax {tag}", tl.cummax(xt, dim), tl.cummax(d, dim))
            same(f"cummin {tag}", tl.cummin(xt, dim), tl.cummin(d, dim))
            if dtype != tl.bool:
                k = min(3, xt.shape[dim])
                same(f"topk {tag}", tl.topk(xt, k, dim), tl.topk(d, k, dim))
                same(f"topk smallest {tag}", tl.topk(xt, k, dim, largest=False), tl.topk(d, k, dim, largest=False))
                same(f"kthvalue {tag}", tl.kthvalue(xt, k, dim), tl.kthvalue(d, k, dim))
                same(f"median {tag}", tl.median(xt, dim), tl.median(d, dim))
                if dtype in FLOATS:
                    same(f"nanmedian {tag}", tl.nanmedian(xt, dim), tl.nanmedian(d, dim))
                same(f"mode {tag}", tl.mode(xt, dim), tl.mode(d, dim))
                for op in ("cumsum", "cumprod"):
                    c, g = getattr(tl, op)(xt, dim), getattr(tl, op)(d, dim)
                    same(f"{op} {tag}", c, g, exact=dtype not in FLOATS, tol=TOL.get(dtype))
                # out= a contiguous tensor (written directly) and in place (through a buffer)
                o, oc = tl.empty(tuple(xt.shape), dtype=dtype, device=CUDA), tl.empty(tuple(xt.shape), dtype=dtype)
                tl.cumsum(d, dim, out=o)
                tl.cumsum(xt, dim, out=oc)
                same(f"cumsum out= {tag}", oc, o, exact=dtype not in FLOATS, tol=TOL.get(dtype))
                dd, xc = d.clone(), xt.clone()
                dd.cumsum_(dim)
                xc.cumsum_(dim)
                same(f"cumsum_ {tag}", xc, dd, exact=dtype not in FLOATS, tol=TOL.get(dtype))

# dtype= on the scans (ints accumulated in int64, narrowed like the CPU)
x = sample((1000,), tl.int32)
same("cumsum int32->int8", tl.cumsum(x, 0, dtype=tl.int8), tl.cumsum(x.to(CUDA), 0, dtype=tl.int8))
same("cumprod int32->int16", tl.cumprod(x, 0, dtype=tl.int16), tl.cumprod(x.to(CUDA), 0, dtype=tl.int16))
x = sample((1000,), tl.float32)
same("cumsum f32->f64", tl.cumsum(x, 0, dtype=tl.float64), tl.cumsum(x.to(CUDA), 0, dtype=tl.float64), False,
     TOL[tl.float64])
# whole-tensor medians
for dtype in FLOATS + INTS:
    x = sample((37, 11), dtype)
    same(f"median() {dtype}", tl.median(x), tl.median(x.to(CUDA)))
    if dtype in FLOATS:
        same(f"nanmedian() {dtype}", tl.nanmedian(x), tl.nanmedian(x.to(CUDA)))

print("mismatches:", len(failures))
for f in failures[:60]:
    print("  ", f)


if EMULATED:
    sys.exit(1 if failures else 0)


def bench(name, fn, reps=10):
    fn()
    tl.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(reps):
        fn()
    tl.cuda.synchronize()
    print(f"{name}: {(time.perf_counter() - t) / reps * 1e6:.0f} us")


big = tl.randn(64 * 2**20, device=CUDA)
bench("cumsum 64M f32", lambda: tl.cumsum(big, 0))
bench("cumprod 64M f32", lambda: tl.cumprod(big, 0))
bench("cummax 64M f32", lambda: tl.cummax(big, 0))
sq = tl.randn(8192, 8192, device=CUDA)
bench("cumsum 8192x8192 dim=1", lambda: tl.cumsum(sq, 1))
bench("cumsum 8192x8192 dim=0", lambda: tl.cumsum(sq, 0))
s16 = tl.randn(16 * 2**20, device=CUDA)
bench("sort 16M f32", lambda: tl.sort(s16))
bench("sort 16M f32 descending", lambda: tl.sort(s16, descending=True))
bench("sort 4096x1000 f32 dim=1", lambda: tl.sort(s16[: 4096 * 1000].view(4096, 1000), 1))
bench("sort 4096x4096 f32 dim=1", lambda: tl.sort(s16.view(4096, 4096), 1))
bench("sort 1M x 16 f32 dim=1", lambda: tl.sort(s16.view(2**20, 16), 1))
bench("topk 16M k=10", lambda: tl.topk(s16, 10))
bench("median 4096x4096 dim=1", lambda: tl.median(s16.view(4096, 4096), 1))
bench("kthvalue 16M", lambda: tl.kthvalue(s16, 1000))
sys.exit(1 if failures else 0)
