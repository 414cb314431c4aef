"""The formula helpers (csrc/autograd/helpers_*.cpp) through the ops whose derivatives call them:
first and second derivatives against finite differences (gradcheck, gradgradcheck) for every helper in
codegen/helpers.yaml, and, where finite differences cannot judge (ties, zeros, NaN, dof <= 0), the
gradients PyTorch's autograd gives, when PyTorch is installed."""
import os

import numpy as np
import pytest
import yaml

import torchlite as tl
from torchlite.autograd import gradcheck, gradgradcheck

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAN, INF = float("nan"), float("inf")


def rand(*shape, lo=-2.0, hi=2.0, seed=0):
    return tl.tensor(np.random.default_rng(seed).uniform(lo, hi, size=shape)).requires_grad_()


def crand(*shape, seed=0):
    """complex128 values with random real and imaginary parts in [-2, 2)."""
    g = np.random.default_rng(seed)
    return tl.tensor(g.uniform(-2, 2, size=shape) + 1j * g.uniform(-2, 2, size=shape)).requires_grad_()


def _eig_phase_free(result):
    """linalg.eig's eigenvalues and the moduli of its eigenvectors (each eigenvector is defined up to a phase)."""
    return result.eigenvalues, result.eigenvectors.abs()


def t(values):
    return tl.tensor(np.asarray(values, dtype=np.float64)).requires_grad_()


def idx(values):
    return tl.tensor(values)


def _eye3():
    return tl.eye(3, dtype=tl.float64)


# name -> (helpers exercised, function, inputs). Points are away from kinks (ties, zeros of |x|...), except
# the zeros of prod/cumprod, where both derivatives exist and the helpers must be exact.
CASES = {
    "sum": (["sum_backward"], lambda x: x.sum(), lambda: [rand(2, 3)]),
    "add complex alpha": (["scalar_conj"], lambda x, y: tl.add(x, y, alpha=2 - 1j).sub(x, alpha=0.5j),
                          lambda: [crand(2, 3), crand(2, 3, seed=1)]),
    "sum.dim": (["sum_backward"], lambda x: x.sum([0, -1]), lambda: [rand(2, 3, 4)]),
    "sum.dim keepdim": (["sum_backward"], lambda x: x.sum(1, keepdim=True), lambda: [rand(2, 3, 4)]),
    "mm": (["mm_mat1_backward", "mm_mat2_backward"], lambda a, b: a.mm(b), lambda: [rand(2, 3), rand(3, 4, seed=1)]),
    "mm transposed": (["mm_mat1_backward", "mm_mat2_backward"], lambda a, b: a.t().mm(b.t()),
                      lambda: [rand(3, 2), rand(4, 3, seed=1)]),
    "transpose": (["transpose_backward"], lambda x: x.transpose(0, 2), lambda: [rand(2, 3, 4)]),
    "permute": (["permute_backward"], lambda x: x.permute(2, 0, -2), lambda: [rand(2, 3, 4)]),
    "expand": (["sum_to_size"], lambda x: x.expand(2, 3, 4), lambda: [rand(3, 1)]),
    "select": (["select_backward"], lambda x: x.select(1, -1), lambda: [rand(2, 3, 4)]),
    "narrow": (["slice_backward"], lambda x: x.narrow(2, -3, 2), lambda: [rand(2, 3, 4)]),
    "slice step": (["slice_backward"], lambda x: x[:, 1::2], lambda: [rand(2, 6)]),
    "as_strided": (["as_strided_backward"], lambda x: x.as_strided((2, 2), (1, 2), 1), lambda: [rand(6)]),
    "as_strided overlapping": (["as_strided_backward"], lambda x: x.as_strided((3, 3), (1, 1)),
                               lambda: [rand(6)]),
    "as_strided of a view": (["as_strided_backward"], lambda x: x[1:].as_strided((2, 2), (2, 1), 2),
                             lambda: [rand(6)]),
    "unfold": (["unfold_backward"], lambda x: x.unfold(0, 3, 2), lambda: [rand(7, 2)]),
    "unfold overlapping": (["unfold_backward"], lambda x: x.unfold(1, 3, 1), lambda: [rand(2, 5)]),
    "diagonal": (["diagonal_backward"], lambda x: x.diagonal(1, 2, 0), lambda: [rand(3, 2, 4)]),
    "diagonal below": (["diagonal_backward"], lambda x: x.diagonal(-1), lambda: [rand(4, 3)]),
    "cat": (["cat_backward"], lambda a, b: tl.cat([a, tl.zeros(0, dtype=tl.float64), b], 1),
            lambda: [rand(2, 3), rand(2, 2, seed=1)]),
    "logit": (["logit_backward"], lambda x: x.logit(), lambda: [rand(5, lo=0.1, hi=0.9)]),
    "logit eps": (["logit_backward"], lambda x: x.logit(0.25), lambda: [t([0.1, 0.3, 0.7, 0.9])]),
    "relu": (["threshold_backward"], lambda x: x.relu(), lambda: [t([-1.0, -0.3, 0.4, 2.0])]),
    "clamp": (["clamp_backward"], lambda x: x.clamp(-0.5, 0.5), lambda: [t([-1.0, -0.3, 0.4, 2.0])]),
    "clamp min": (["clamp_backward"], lambda x: x.clamp(min=-0.5), lambda: [t([-1.0, -0.3, 0.4, 2.0])]),
    "index_select": (["index_select_backward"], lambda x: x.index_select(0, idx([2, 0, 2])), lambda: [rand(3, 4)]),
    "gather": (["gather_backward"], lambda x: x.gather(1, idx([[0, 0], [2, 1]])), lambda: [rand(2, 3)]),
    "take": (["take_backward"], lambda x: x.take(idx([[0, -1], [3, 3]])), lambda: [rand(2, 3)]),
    "index": (["index_backward"], lambda x: x[idx([[0], [2]]), idx([1, 1, 0])], lambda: [rand(3, 2)]),
    "index mask": (["index_backward"], lambda x: x[tl.tensor([[True, False], [False, True], [True, True]])],
                   lambda: [rand(3, 2)]),
    "index_put": (["index_put_self_backward", "index_put_values_backward"],
                  lambda s, v: s.index_put((None, idx([0, 2])), v), lambda: [rand(2, 3), rand(2, 1, seed=1)]),
    "index_put accumulate": (["index_put_self_backward", "index_put_values_backward"],
                             lambda s, v: s.index_put((idx([0, 2, 0]),), v, accumulate=True),
                             lambda: [rand(3, 2), rand(2, seed=1)]),
    "index_add": (["index_add_source_backward"], lambda s, r: s.index_add(0, idx([1, 0, 1]), r, alpha=2.0),
                  lambda: [rand(3, 2), rand(3, 2, seed=1)]),
    "index_copy": (["index_copy_source_backward"], lambda s, r: s.index_copy(0, idx([2, 0]), r),
                   lambda: [rand(3, 2), rand(2, 2, seed=1)]),
    "index_fill": (["index_fill_value_backward"], lambda s, v: s.index_fill(1, idx([0, 2, 0]), v),
                   lambda: [rand(2, 3), rand(seed=1)]),
    "masked_select": (["masked_select_backward"],
                      lambda s: s.masked_select(tl.tensor([[True, False, True], [False, False, True]])),
                      lambda: [rand(3)]),
    "masked_scatter": (["masked_scatter_backward"], lambda s, r: s.masked_scatter(tl.tensor([True, False, True]), r),
                       lambda: [rand(2, 3), rand(7, seed=1)]),
    "prod": (["prod_backward", "prod_jvp"], lambda x: x.prod(), lambda: [rand(2, 3)]),
    "prod one zero": (["prod_backward", "prod_jvp"], lambda x: x.prod(), lambda: [t([[1.5, 0.0], [2.0, -1.0]])]),
    "prod two zeros": (["prod_backward", "prod_jvp"], lambda x: x.prod(), lambda: [t([[1.5, 0.0], [0.0, -1.0]])]),
    "prod.dim zeros": (["prod_backward", "prod_jvp"], lambda x: x.prod(0),
                       lambda: [t([[1.5, 0.0, 3.0], [0.0, -1.0, 0.5], [2.0, 0.0, 0.0]])]),
    "amax": (["restore_reduced_dims", "scale_grad_by_count", "amaxamin_jvp"], lambda x: x.amax(1), lambda: [rand(3, 4)]),
    "amin all": (["restore_reduced_dims", "scale_grad_by_count", "amaxamin_jvp"], lambda x: x.amin(), lambda: [rand(3, 4)]),
    "aminmax": (["aminmax_backward", "amaxamin_jvp"], lambda x: tl.aminmax(x, dim=0), lambda: [rand(3, 4)]),
    "aminmax min only": (["aminmax_backward"], lambda x: tl.aminmax(x, dim=1, keepdim=True)[0], lambda: [rand(3, 4)]),
    "max": (["evenly_distribute_backward", "evenly_distribute_jvp"], lambda x: x.max(), lambda: [rand(3, 4)]),
    "median": (["evenly_distribute_backward", "evenly_distribute_jvp"], lambda x: x.median(), lambda: [rand(3, 3)]),
    "min": (["evenly_distribute_backward", "evenly_distribute_jvp"], lambda x: x.min(), lambda: [rand(3, 4)]),
    "nanmedian": (["evenly_distribute_backward", "evenly_distribute_jvp"], lambda x: x.nanmedian(),
                  lambda: [rand(2, 2)]),
    "max.dim": (["value_selecting_reduction_backward", "gather_with_keepdimed_indices"], lambda x: x.max(1)[0], lambda: [rand(3, 4)]),
    "topk": (["value_selecting_reduction_backward", "gather_with_keepdimed_indices"], lambda x: x.topk(2)[0], lambda: [rand(3, 4)]),
    "var": (["var_backward", "var_jvp"], lambda x: x.var(1), lambda: [rand(3, 4)]),
    "var correction": (["var_backward", "var_jvp"], lambda x: tl.var(x, None, correction=0, keepdim=True), lambda: [rand(3, 4)]),
    "std": (["std_backward", "std_jvp"], lambda x: tl.std(x, [0, 2], correction=2), lambda: [rand(2, 3, 2)]),
    "var_mean": (["var_mean_backward"], lambda x: tl.var_mean(x, 1), lambda: [rand(3, 4)]),
    "var_mean mean only": (["var_mean_backward"], lambda x: tl.var_mean(x, 1)[1], lambda: [rand(3, 4)]),
    "std_mean": (["std_mean_backward"], lambda x: tl.std_mean(x, [0, 1], correction=0), lambda: [rand(3, 4)]),
    "norm": (["norm_backward", "norm_jvp"], lambda x: x.norm(), lambda: [rand(3, 4)]),
    "norm zero row": (["norm_backward", "norm_jvp"], lambda x: (x * tl.tensor([[1.0], [0.0]], dtype=tl.float64)).norm(dim=1),
                      lambda: [rand(2, 3)]),
    "norm 1": (["norm_backward", "norm_jvp"], lambda x: x.norm(1, 1), lambda: [rand(3, 4)]),
    "norm 3": (["norm_backward", "norm_jvp"], lambda x: x.norm(3, 0), lambda: [rand(3, 4)]),
    "norm 1.5": (["norm_backward", "norm_jvp"], lambda x: x.norm(1.5), lambda: [rand(3, 4)]),
    "norm 0.5": (["norm_backward", "norm_jvp"], lambda x: x.norm(0.5, 1), lambda: [rand(3, 4)]),
    "norm -1": (["norm_backward", "norm_jvp"], lambda x: x.norm(-1, 1), lambda: [rand(3, 4)]),
    "norm inf": (["norm_backward", "norm_jvp"], lambda x: x.norm(INF, 1), lambda: [rand(3, 4)]),
    "norm -inf": (["norm_backward", "norm_jvp"], lambda x: x.norm(-INF), lambda: [rand(3, 4)]),
    "norm 0": (["norm_backward", "norm_jvp"], lambda x: x.norm(0, 1), lambda: [rand(3, 4)]),
    "linalg.eig": (["linalg_eig_backward", "linalg_eig_jvp_eigenvalues", "linalg_eig_jvp_eigenvectors"], lambda a: _eig_phase_free(tl.linalg.eig(a)), lambda: [rand(4, 4)]),
    "rfft": (["fft_r2c_backward"], lambda x: tl.fft.rfft(x, dim=0, norm="ortho"), lambda: [rand(6, 3)]),
    "fft of real input": (["fft_r2c_backward"], lambda x: tl.fft.fft(x, n=5), lambda: [rand(2, 4)]),
    "rfftn odd": (["fft_r2c_backward"], lambda x: tl.fft.rfftn(x, norm="forward"), lambda: [rand(3, 5)]),
    "irfft odd": (["fft_c2r_backward"], lambda z: tl.fft.irfft(z, n=7), lambda: [crand(3, 4)]),
    "irfftn even": (["fft_c2r_backward"], lambda z: tl.fft.irfftn(z, s=(3, 6)), lambda: [crand(3, 4)]),
    "cumsum": (["cumsum_backward"], lambda x: x.cumsum(1), lambda: [rand(3, 4)]),
    "softmax": (["softmax_jvp", "softmax_double_backward"], lambda x: tl.softmax(x, 1), lambda: [rand(3, 4)]),
    "log_softmax": (["log_softmax_jvp", "log_softmax_double_backward"], lambda x: tl.log_softmax(x, 0),
                    lambda: [rand(3, 4, 2)]),
    "max_pool2d": (["max_pool_double_backward"], lambda x: tl.nn.functional.max_pool2d(x, 2, stride=1),
                   lambda: [rand(2, 3, 4)]),
    "constant_pad_nd": (["constant_pad_nd_backward"], lambda x: tl.constant_pad_nd(x, [1, -1, 2, 0], 1.5),
                        lambda: [rand(2, 3, 4)]),
    "layer_norm": (["layer_norm_jvp", "layer_norm_double_backward"],
                   lambda x, w, b: tl.nn.functional.layer_norm(x, (3, 4), w, b),
                   lambda: [rand(2, 3, 4), rand(3, 4, seed=1), rand(3, 4, seed=2)]),
    "layer_norm plain": (["layer_norm_jvp", "layer_norm_double_backward"],
                         lambda x: tl.nn.functional.layer_norm(x, (4,)), lambda: [rand(3, 4)]),
    "group_norm": (["group_norm_jvp", "group_norm_double_backward"],
                   lambda x, w, b: tl.nn.functional.group_norm(x, 2, w, b),
                   lambda: [rand(2, 4, 3), rand(4, seed=1), rand(4, seed=2)]),
    "batch_norm": (["batch_norm_jvp", "batch_norm_double_backward"],
                   lambda x, w, b: tl.nn.functional.batch_norm(x, None, None, w, b, training=True),
                   lambda: [rand(3, 2, 4), rand(2, seed=1), rand(2, seed=2)]),
    # (padding_idx and scale_grad_by_freq are not derivatives: tests/test_nn_functional.py compares them with
    # PyTorch)
    "embedding": (["embedding_backward"], lambda w: tl.nn.functional.embedding(idx([[0, 2, 0], [3, 2, 2]]), w),
                  lambda: [rand(4, 3)]),
    "unfold": (["im2col_backward"], lambda x: tl.nn.functional.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2),
               lambda: [rand(2, 3, 5, 6)]),
    "conv2d": (["convolution_double_backward", "convolution_jvp"],
               lambda x, w, b: tl.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2),
               lambda: [rand(2, 4, 4, 3), rand(2, 2, 2, 3, seed=1), rand(2, seed=2)]),
    "conv_transpose1d": (["convolution_double_backward", "convolution_jvp"],
                         lambda x, w: tl.nn.functional.conv_transpose1d(x, w, stride=2, output_padding=1),
                         lambda: [rand(1, 2, 3), rand(2, 3, 2, seed=1)]),
    "cross_entropy": (["cross_entropy_forward_backward"],
                      lambda x: tl.nn.functional.cross_entropy(x, idx([[0, 3], [2, -100], [1, 1]]), reduction="sum"),
                      lambda: [rand(3, 4, 2)]),
    "cumprod": (["cumprod_backward", "cumprod_jvp"], lambda x: x.cumprod(1), lambda: [rand(3, 4)]),
    "cumprod zeros": (["cumprod_backward", "cumprod_jvp"], lambda x: x.cumprod(0),
                      lambda: [t([[1.5, 0.0, 3.0, 2.0], [0.0, -1.0, 0.5, 0.0], [1.0, 0.0, -1.0, 0.0],
                                  [2.0, 3.0, 0.0, 1.5]])]),
    "cummax": (["cummaxmin_backward"], lambda x: x.cummax(1)[0], lambda: [rand(3, 4)]),
    "cummin": (["cummaxmin_backward"], lambda x: x.cummin(0)[0], lambda: [rand(3, 4)]),
    "scatter_reduce sum": (["scatter_reduce_backward", "scatter_reduce_jvp"], lambda s, r: s.scatter_reduce(0, idx([0, 1, 0, 2]), r, "sum"),
                           lambda: [rand(3), rand(4, seed=1)]),
    "scatter_reduce prod": (["scatter_reduce_backward", "scatter_reduce_jvp"],
                            lambda s, r: s.scatter_reduce(0, idx([0, 1, 0, 2]), r, "prod"),
                            lambda: [rand(3), rand(4, seed=1)]),
    "scatter_reduce prod one zero": (["scatter_reduce_backward", "scatter_reduce_jvp"],
                                     lambda s, r: s.scatter_reduce(0, idx([0, 1, 0, 1]), r, "prod"),
                                     lambda: [t([1.5, 0.0, 2.0]), t([0.0, 3.0, -1.0, 0.5])]),
    "scatter_reduce mean": (["scatter_reduce_backward", "scatter_reduce_jvp"],
                            lambda s, r: s.scatter_reduce(0, idx([0, 1, 0, 0]), r, "mean", include_self=False),
                            lambda: [rand(3), rand(4, seed=1)]),
    "scatter_reduce amax": (["scatter_reduce_backward", "scatter_reduce_jvp"],
                            lambda s, r: s.scatter_reduce(1, idx([[0, 1, 0], [2, 2, 1]]), r, "amax"),
                            lambda: [rand(2, 3), rand(2, 4, seed=1)]),
    "scatter_reduce amin": (["scatter_reduce_backward", "scatter_reduce_jvp"],
                            lambda s, r: s.scatter_reduce(0, idx([0, 1, 0, 2]), r, "amin", include_self=False),
                            lambda: [rand(3), rand(4, seed=1)]),
    "scatter multiply": (["scatter_reduce_backward", "scatter_reduce_jvp"], lambda s, r: s.scatter(0, idx([0, 1, 0]), r, reduce="multiply"),
                         lambda: [rand(3), rand(3, seed=1)]),
    "scatter value multiply": (["scatter_value_reduce_backward"],
                               lambda s: s.scatter(0, idx([0, 1, 0]), 1.5, reduce="multiply"), lambda: [rand(3)]),
    "pow scalar": (["pow_backward"], lambda x: x.pow(3) + x.pow(0.5) + x.pow(0), lambda: [rand(3, 4, lo=0.5)]),
    "pow tensor": (["pow_backward_self", "pow_backward_exponent"], lambda x, e: x.pow(e),
                   lambda: [rand(3, 4, lo=0.5), rand(3, 4, seed=1)]),
    "pow number base": (["pow_backward_exponent"], lambda e: tl.pow(1.5, e) + tl.pow(0.0, e * e + 1),
                        lambda: [rand(3, 4)]),
    "atan2": (["atan2_recip"], lambda y, x: tl.atan2(y, x), lambda: [rand(3, 4), rand(3, 4, seed=1)]),
    "maximum": (["maximum_backward"], lambda a, b: tl.maximum(a, b) + tl.max(a, b * 2),
                lambda: [rand(3, 4), rand(3, 4, seed=1)]),
    "minimum": (["minimum_backward"], lambda a, b: tl.minimum(a, b) + tl.min(a, b * 2),
                lambda: [rand(3, 4), rand(3, 4, seed=1)]),
    "xlogy": (["xlogy_backward_self"], lambda x, y: tl.xlogy(x, y.abs() + 0.5) + tl.xlogy(x, 1.5),
              lambda: [rand(3, 4), rand(3, 4, seed=1)]),
    "sdpa fused": (["sdpa_fused_jvp"],
                   lambda q, k, v: tl._scaled_dot_product_fused_attention(q, k, v, idx([[[0.5, -1.0, 0.0]] * 2]).double(),
                                                                          True, 0.7)[0],
                   lambda: [rand(1, 2, 3), rand(1, 3, 3, seed=1), rand(1, 3, 2, seed=2)]),
    # torch.linalg: well-conditioned inputs (4 I added), symmetric or positive-definite ones where the op needs them
    "linalg.lu_factor": (["linalg_lu_factor_backward", "linalg_lu_factor_jvp"], lambda a: tl.linalg.lu_factor(a + 4 * _eye3())[0],
                         lambda: [rand(3, 3)]),
    "linalg.lu_solve": (["linalg_lu_solve_backward", "linalg_lu_solve_jvp"],
                        lambda lu, b: tl.linalg.lu_solve(lu + 4 * _eye3(), idx([2, 3, 3]).int(), b, adjoint=True),
                        lambda: [rand(3, 3), rand(3, 2, seed=1)]),
    "linalg.solve": (["linalg_solve_backward", "linalg_solve_jvp"], lambda a, b: tl.linalg.solve(a + 4 * _eye3(), b),
                     lambda: [rand(3, 3), rand(3, seed=1)]),
    "linalg.inv": (["linalg_inv_backward", "linalg_inv_jvp"], lambda a: tl.linalg.inv(a + 4 * _eye3()), lambda: [rand(3, 3)]),
    "linalg.det": (["linalg_det_backward", "linalg_det_jvp"], lambda a: tl.linalg.det(a), lambda: [rand(3, 3)]),
    "linalg.slogdet": (["linalg_slogdet_backward", "linalg_slogdet_jvp"], lambda a: tl.linalg.slogdet(a)[1], lambda: [rand(3, 3)]),
    "linalg.slogdet complex": (["linalg_slogdet_backward", "linalg_slogdet_jvp", "linalg_slogdet_jvp_sign"],
                               lambda a: tuple(tl.linalg.slogdet(a)), lambda: [crand(3, 3)]),
    "linalg.cholesky": (["linalg_cholesky_backward", "linalg_cholesky_jvp"], lambda a: tl.linalg.cholesky(a @ a.mT + 3 * _eye3()),
                        lambda: [rand(3, 3)]),
    "linalg.qr": (["linalg_qr_backward", "linalg_qr_jvp_Q", "linalg_qr_jvp_R"], lambda a: tl.linalg.qr(a),
                  lambda: [rand(4, 3)]),
    "linalg.qr wide": (["linalg_qr_backward", "linalg_qr_jvp_Q", "linalg_qr_jvp_R"], lambda a: tl.linalg.qr(a),
                       lambda: [rand(3, 5)]),
    "linalg.eigh": (["linalg_eigh_backward", "linalg_eigh_jvp_eigenvalues", "linalg_eigh_jvp_eigenvectors"], lambda a: tl.linalg.eigh(a + a.mT), lambda: [rand(3, 3)]),
    "linalg.svd": (["linalg_svd_backward", "linalg_svd_jvp_U", "linalg_svd_jvp_S", "linalg_svd_jvp_Vh"],
                   lambda a: tl.linalg.svd(a, full_matrices=False), lambda: [rand(4, 3)]),
    "linalg.svd wide": (["linalg_svd_backward", "linalg_svd_jvp_U", "linalg_svd_jvp_S", "linalg_svd_jvp_Vh"],
                        lambda a: (lambda u, s, vh: (u[:, :3], s, vh[:3]))(*tl.linalg.svd(a)), lambda: [rand(3, 5)]),
    "linalg.solve_triangular": (["linalg_solve_triangular_backward", "linalg_solve_triangular_jvp"],
                                lambda a, b: tl.linalg.solve_triangular(a + 4 * _eye3(), b, upper=True),
                                lambda: [rand(3, 3), rand(3, 2, seed=1)]),
    "linalg.lstsq": (["linalg_lstsq_backward", "linalg_lstsq_jvp"], lambda a, b: tl.linalg.lstsq(a, b)[0],
                     lambda: [rand(4, 3), rand(4, 2, seed=1)]),
    "linalg.lstsq wide": (["linalg_lstsq_backward", "linalg_lstsq_jvp"], lambda a, b: tl.linalg.lstsq(a, b[:3])[0],
                          lambda: [rand(3, 4), rand(4, seed=1)]),
}

# Ops whose backward is a kernel without derivatives (as PyTorch's): no gradgradcheck (their jvp helpers are
# checked by test_forward_ad below).
ONCE_DIFFERENTIABLE = {"sdpa fused"}


def test_every_helper_has_a_case():
    with open(os.path.join(ROOT, "codegen", "helpers.yaml")) as f:
        helpers = set(yaml.safe_load(f)["formula_helpers"])
    ops = {"zeros_like", "sgn"}  # ops, listed for the formulas' sake
    covered = {h for names, _, _ in CASES.values() for h in names}
    # not_implemented raises by design (tests/test_special.py checks its error)
    exempt = {"not_implemented"}
    assert helpers - ops - exempt <= covered, sorted(helpers - ops - exempt - covered)


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck(name):
    _, fn, inputs = CASES[name]
    assert gradcheck(fn, tuple(inputs()))


@pytest.mark.parametrize("name", sorted(set(CASES) - ONCE_DIFFERENTIABLE))
def test_gradgradcheck(name):
    _, fn, inputs = CASES[name]
    assert gradgradcheck(fn, tuple(inputs()))


# ------------------------------------------------------------------ against PyTorch's gradients

# (name, function of the module (tl or torch), input values, grad_output values or None for ones). Each runs
# in both libraries; the input gradients must agree, NaN and inf included.
TORCH_CASES = [
    ("prod ties of zeros", lambda m, x: x.prod(1), [[0.0, 2.0, 0.0], [3.0, 0.0, 1.0]], None),
    ("cumprod zeros", lambda m, x: x.cumprod(1), [[0.0, 2.0, 0.0, 4.0], [3.0, 0.5, 1.0, 0.0]], None),
    ("amax ties", lambda m, x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], None),
    ("amax nan", lambda m, x: x.amax(), [[1.0, NAN], [3.0, 3.0]], None),
    ("max ties", lambda m, x: x.max(), [[1.0, 3.0], [3.0, 3.0]], None),
    ("max nan", lambda m, x: x.max(), [[1.0, NAN], [NAN, 3.0]], None),
    ("nanmedian", lambda m, x: x.nanmedian(), [[1.0, NAN, 2.0, 2.0]], None),
    ("aminmax ties", lambda m, x: m.aminmax(x, dim=1)[1] * 2 + m.aminmax(x, dim=1)[0], [[1.0, 3.0, 3.0, 1.0]], None),
    ("norm inf ties", lambda m, x: x.norm(INF, 1), [[1.0, -3.0, 3.0], [0.5, 0.5, -0.5]], None),
    ("norm zero", lambda m, x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]], None),
    ("norm 0.5 zeros", lambda m, x: x.norm(0.5, 1), [[0.0, 2.0], [0.0, 0.0]], None),
    ("norm 0", lambda m, x: x.norm(0, 1) + x.sum(), [[0.0, 2.0], [1.0, 0.0]], None),
    ("std constant", lambda m, x: x.std(1), [[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]], None),
    ("var dof 0", lambda m, x: x.var(1), [[2.0], [1.0]], None),
    ("std_mean dof < 0", lambda m, x: m.std_mean(x, 1, correction=3)[0], [[2.0, 1.0], [1.0, 5.0]], None),
    ("relu nan", lambda m, x: x.relu(), [NAN, -1.0, 0.0, 2.0], None),
    ("clamp nan", lambda m, x: x.clamp(0.0, 1.0), [NAN, -1.0, 0.5, 1.0, 2.0], None),
    ("logit outside", lambda m, x: x.logit(), [-0.5, 0.0, 0.5, 1.0, 1.5], None),
    ("logit eps", lambda m, x: x.logit(0.2), [-0.5, 0.1, 0.5, 0.8, 1.5], None),
    ("sort ties", lambda m, x: x.sort(1)[0] * m.tensor([1.0, 2.0, 3.0], dtype=x.dtype), [[2.0, 1.0, 2.0]], None),
    ("cummax ties", lambda m, x: x.cummax(1)[0], [[1.0, 3.0, 3.0, 2.0]], [[1.0, 2.0, 3.0, 4.0]]),
    ("as_strided expanded", lambda m, x: x.expand(3, 4).as_strided((2, 2), (1, 1), 0), [[1.0], [2.0], [3.0]],
     [[1.0, 2.0], [3.0, 4.0]]),
    ("scatter_reduce amax ties", lambda m, x: m.zeros(2, dtype=x.dtype).scatter_reduce(0, m.tensor([0, 0, 1]), x,
                                                                                      "amax", include_self=False),
     [3.0, 3.0, 1.0], None),
    ("scatter_reduce prod zeros", lambda m, x: x[:2].scatter_reduce(0, m.tensor([0, 0, 1, 1]), x[2:], "prod"),
     [0.0, 2.0, 0.0, 3.0, 5.0, 0.0], None),
    ("index_fill duplicates", lambda m, x: m.ones(2, 3, dtype=x.dtype).index_fill(1, m.tensor([0, 2, 0]), x[0]),
     [1.5], None),
    ("index_put duplicates", lambda m, x: m.zeros(3, dtype=x.dtype).index_put((m.tensor([0, 0]),), x),
     [1.0, 2.0], None),
    ("pow 0 at 0", lambda m, x: x ** 0 + x.pow(0.0) + m.pow(x, m.zeros_like(x)), [0.0, 1.0, -2.0], None),
    ("pow of 0", lambda m, x: m.pow(0.0, x), [0.0, 1.0, -2.0], None),
    ("pow 0 base tensor exponent", lambda m, x: m.pow(m.zeros_like(x), x), [0.0, 1.0, -2.0], None),
    ("atan2 at 0", lambda m, x: m.atan2(x, x) + m.atan2(x, x * 2), [0.0, 1.0], None),
    ("xlogy at 0", lambda m, x: m.xlogy(x, m.tensor([2.0, 0.0, -1.0, 0.5], dtype=x.dtype)) + m.xlogy(x, -1.0)
     + m.xlogy(x, 0.0) + m.xlogy(x, 0.5), [0.0, 0.0, -0.0, 1.0], None),
    ("xlog1py at 0", lambda m, x: m.special.xlog1py(x, m.tensor([1.0, -1.0, -2.0, 0.5], dtype=x.dtype)),
     [0.0, 0.0, -0.0, 1.0], None),
    ("maximum ties and nan", lambda m, x: m.maximum(x[:3], x[3:]) * m.tensor([1.0, 2.0, 3.0], dtype=x.dtype),
     [1.0, 2.0, NAN, 1.0, 3.0, 1.0], None),
    ("minimum ties and nan", lambda m, x: m.minimum(x[:3], x[3:]) * m.tensor([1.0, 2.0, 3.0], dtype=x.dtype),
     [1.0, 2.0, 1.0, 1.0, 3.0, NAN], None),
    ("max min other ties", lambda m, x: m.max(x[:2], x[2:]) + 3 * m.min(x[:2], x[2:]), [1.0, 2.0, 1.0, 0.5], None),
    ("relu as maximum", lambda m, x: m.maximum(x, m.zeros_like(x)), [0.0, -1.0, 2.0], None),
]


@pytest.mark.filterwarnings("ignore:.*degrees of freedom is <= 0")  # torch's warning for dof <= 0
@pytest.mark.parametrize("name,fn,values,grad_output", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_gradient_matches_torch(name, fn, values, grad_output):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: these comparisons are optional")

    def gradient(m):
        x = m.tensor(values, dtype=m.float64).requires_grad_()
        out = fn(m, x)
        g = m.ones_like(out) if grad_output is None else m.tensor(grad_output, dtype=m.float64)
        (gx,) = m.autograd.grad(out, x, g)
        return np.array(gx.tolist(), dtype=np.float64)

    np.testing.assert_allclose(gradient(tl), gradient(torch), rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=name)


# Where torchlite's gradient knowingly differs from PyTorch 2.13's.
def test_scatter_reduce_amax_without_self_ignores_ties_with_self():
    # torch counts self among the ties even with include_self=False (its gradient for src is then halved here,
    # and the gradients do not add up to grad); self takes no part in that output.
    x = tl.tensor([5.0, 3.0]).requires_grad_()
    out = tl.tensor([5.0, 0.0]).scatter_reduce(0, tl.tensor([0, 0]), x, "amax", include_self=False)
    (gx,) = tl.autograd.grad(out, x, tl.ones(2))
    assert gx.tolist() == [1.0, 0.0]


def test_var_over_an_empty_dim_list_reduces_every_dim():
    # var(x, []) reduces every dim (as the forward, and PyTorch's forward); PyTorch 2.13's backward divides by
    # N - 1 = 0 there instead.
    x = rand(3, 4)
    (g_empty,) = tl.autograd.grad(tl.var(x, []), x)
    (g_all,) = tl.autograd.grad(tl.var(x), x)
    np.testing.assert_allclose(g_empty.tolist(), g_all.tolist(), rtol=1e-14)
    assert np.isfinite(np.array(g_empty.tolist())).all()


# ------------------------------------------------------------------ forward mode (the `jvp:` helpers)

@pytest.mark.parametrize("name", list(CASES))
def test_forward_ad(name):
    """Tangents (dual tensors) against finite differences, for every case above (complex ones included)."""
    _, fn, inputs = CASES[name]
    assert gradcheck(fn, tuple(inputs()), check_forward_ad=True, check_backward_ad=False)


# (name, function of the module (tl or torch) and x, x's values) where finite differences cannot judge: ties,
# zeros of products, NaN, norms at zero, dof <= 0. The tangent in a random direction must be J v, J the Jacobian
# the backward gives (so forward and reverse mode agree), and, when PyTorch is installed, PyTorch's tangent.
JVP_CASES = [
    ("prod one zero", lambda m, x: x.prod(), [[1.5, 0.0], [2.0, -1.0]]),
    ("prod two zeros", lambda m, x: x.prod(), [[1.5, 0.0], [0.0, -1.0]]),
    ("prod.dim zeros", lambda m, x: x.prod(1), [[0.0, 2.0, 0.0], [3.0, 0.0, 1.0], [1.0, 2.0, 3.0]]),
    ("prod.dim keepdim zeros", lambda m, x: x.prod(0, keepdim=True), [[0.0, 2.0, 0.0], [3.0, 0.0, 1.0]]),
    ("cumprod one zero", lambda m, x: x.cumprod(1), [[1.0, 2.0, 0.0, 4.0, 0.5]]),
    ("cumprod two zeros", lambda m, x: x.cumprod(1), [[0.0, 2.0, 0.0, 4.0], [3.0, 0.5, 1.0, 0.0]]),
    ("cumprod zeros dim 0", lambda m, x: x.cumprod(0),
     [[1.5, 0.0, 3.0, 2.0], [0.0, -1.0, 0.5, 0.0], [1.0, 0.0, -1.0, 0.0], [2.0, 3.0, 0.0, 1.5]]),
    ("amax ties", lambda m, x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]]),
    ("amax ties keepdim", lambda m, x: x.amax((0, 1), keepdim=True), [[1.0, 3.0, 3.0], [2.0, 3.0, 2.0]]),
    ("amin all ties", lambda m, x: x.amin(), [[1.0, 3.0, 1.0], [2.0, 1.0, 2.0]]),
    ("amax nan", lambda m, x: x.amax(), [[1.0, NAN], [3.0, 3.0]]),
    ("max ties", lambda m, x: x.max(), [[1.0, 3.0], [3.0, 3.0]]),
    ("min ties", lambda m, x: x.min(), [[1.0, 3.0], [1.0, 1.0]]),
    ("median ties", lambda m, x: x.median(), [[1.0, 2.0, 2.0, 5.0]]),
    ("nanmedian ties", lambda m, x: x.nanmedian(), [[1.0, NAN, 2.0, 2.0]]),
    ("median empty", lambda m, x: x.median(), [[], []]),
    ("var dof 0", lambda m, x: x.var(1), [[2.0], [1.0]]),
    # one row: with two, the backward's Jacobian has 0 * inf = NaN for the other row's elements
    ("var dof 0 of two", lambda m, x: m.var(x, 1, correction=2), [[2.0, 1.0]]),
    ("var dof < 0", lambda m, x: m.var(x, 1, correction=3), [[2.0, 1.0], [1.0, 5.0]]),
    ("std constant", lambda m, x: x.std(1), [[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]]),
    ("std dof < 0", lambda m, x: m.std(x, 1, correction=3), [[2.0, 1.0], [1.0, 5.0]]),
    ("norm zero vector", lambda m, x: x.norm(), [0.0, 0.0, 0.0]),
    *[(f"norm {p} ties, zeros", (lambda p: lambda m, x: x.norm(p, 1))(p),
       [[1.0, -3.0, 3.0], [0.0, 0.0, 0.0], [0.5, 0.0, -0.5]]) for p in (0, 1, 2, 3, 0.5, -1, INF, -INF)],
    ("scatter_reduce amax ties", lambda m, x: m.zeros(2, dtype=x.dtype).scatter_reduce(
        0, m.tensor([0, 0, 1]), x, "amax", include_self=False), [3.0, 3.0, 1.0]),
    ("scatter_reduce amax ties with self", lambda m, x: x[:2].scatter_reduce(0, m.tensor([0, 0, 1]), x[2:], "amax"),
     [3.0, 1.0, 3.0, 3.0, 0.5]),
    ("scatter_reduce amin", lambda m, x: x[:2].scatter_reduce(0, m.tensor([0, 1, 1]), x[2:], "amin",
                                                               include_self=False), [1.0, 2.0, 0.5, 3.0, 3.0]),
    ("scatter_reduce mean", lambda m, x: x[:2].scatter_reduce(0, m.tensor([0, 0, 0]), x[2:], "mean"),
     [1.0, 2.0, 0.5, 3.0, 3.0]),
    ("scatter_reduce prod zeros", lambda m, x: x[:2].scatter_reduce(0, m.tensor([0, 0, 1, 1]), x[2:], "prod"),
     [0.0, 2.0, 0.0, 3.0, 5.0, 0.0]),
    ("scatter_reduce prod zeros without self", lambda m, x: x[:3].scatter_reduce(
        0, m.tensor([0, 0, 1]), x[3:], "prod", include_self=False), [0.0, 2.0, 7.0, 0.0, 3.0, 0.0]),
    ("scatter multiply zeros", lambda m, x: x[:2].scatter(0, m.tensor([0, 0, 1]), x[2:], reduce="multiply"),
     [0.0, 2.0, 0.0, 3.0, 5.0]),
    ("scatter add", lambda m, x: x[:2].scatter(0, m.tensor([0, 0, 1]), x[2:], reduce="add"), [1.0, 2.0, 3.0, 4.0, 5.0]),
    ("scatter value multiply", lambda m, x: x.scatter(0, m.tensor([0, 1, 0]), 1.5, reduce="multiply"), [1.0, 0.0, 3.0]),
    ("scatter value", lambda m, x: x.scatter(1, m.tensor([[0], [2]]), 2.0), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    ("index_fill", lambda m, x: x.index_fill(1, m.tensor([0, 2, 0]), 2.0), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    ("masked_fill broadcast", lambda m, x: x.masked_fill(m.tensor([[True, False, True], [False, False, True]]), 2.0),
     [1.0, 2.0, 3.0]),
    # multi-return (NO_JVP_YET)
    ("max.dim ties", lambda m, x: x.max(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]]),
    ("min.dim keepdim", lambda m, x: x.min(0, keepdim=True), [[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]]),
    ("sort ties", lambda m, x: x.sort(1), [[2.0, 1.0, 2.0]]),
    ("topk", lambda m, x: x.topk(2), [[2.0, 1.0, 2.5, 5.0]]),  # no tie at the k-th: its order is unspecified
    ("kthvalue", lambda m, x: x.kthvalue(2, 1), [[3.0, 1.0, 2.0], [1.0, 1.0, 0.0]]),
    ("median.dim", lambda m, x: x.median(1), [[3.0, 1.0, 2.0, 2.0], [1.0, 1.0, 0.0, 4.0]]),
    ("nanmedian.dim", lambda m, x: x.nanmedian(1), [[3.0, NAN, 2.0], [1.0, 1.0, 0.0]]),
    ("mode", lambda m, x: x.mode(1), [[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 0.0, 1.0]]),
    ("cummax ties", lambda m, x: x.cummax(1), [[1.0, 3.0, 3.0, 2.0]]),
    ("cummin", lambda m, x: x.cummin(0), [[1.0, 3.0], [0.5, 3.0], [2.0, -1.0]]),
    ("aminmax ties", lambda m, x: m.aminmax(x, dim=1), [[1.0, 3.0, 3.0, 1.0]]),
    ("aminmax all", lambda m, x: m.aminmax(x), [[1.0, 3.0], [3.0, 1.0]]),
    ("var_mean", lambda m, x: m.var_mean(x, 1), [[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]]),
    ("std_mean constant", lambda m, x: m.std_mean(x, 1), [[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]]),
]
JVP_PARAMS = [pytest.param(name, fn, values, id=name) for name, fn, values in JVP_CASES]


def _floating(outs):
    outs = outs if isinstance(outs, tuple) else (outs,)
    return [o for o in outs if o.dtype.is_floating_point]


def _direction(values):
    return np.random.default_rng(0).uniform(-1.0, 1.0, size=np.shape(values))


def tangents(m, fn, values, v):
    """The tangents of fn's floating outputs at values in the direction v (None where m computes none)."""
    fwd = m.autograd.forward_ad
    with fwd.dual_level():
        x = fwd.make_dual(m.tensor(values, dtype=m.float64), m.tensor(v, dtype=m.float64))
        found = [fwd.unpack_dual(o).tangent for o in _floating(fn(m, x))]
        return [None if t is None else np.array(t.tolist(), dtype=np.float64) for t in found]


def jacobian_times(fn, values, v):
    """J v for each floating output, J the Jacobian torchlite's backward formulas give."""
    x = tl.tensor(values, dtype=tl.float64)
    jacobians = tl.autograd.functional.jacobian(lambda x: tuple(_floating(fn(tl, x))), x)
    return [np.tensordot(np.array(j.tolist(), dtype=np.float64).reshape(j.shape), v, axes=v.ndim)
            for j in jacobians]


@pytest.mark.parametrize("name,fn,values", JVP_PARAMS)
def test_tangent_is_the_backward_jacobian_times_the_direction(name, fn, values):
    v = _direction(values)
    got, expected = tangents(tl, fn, values, v), jacobian_times(fn, values, v)
    assert len(got) == len(expected) > 0
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=name)


# PyTorch 2.13 has no tangent for these (the comparison is skipped, with the reason).
TORCH_HAS_NO_TANGENT = {
    "scatter_reduce prod zeros": "PyTorch's forward AD leaves scatter_reduce 'prod' without a tangent",
    "scatter_reduce prod zeros without self": "PyTorch's forward AD leaves scatter_reduce 'prod' without a tangent",
    "scatter multiply zeros": "PyTorch's scatter(reduce=...) has no forward AD",
    "scatter add": "PyTorch's scatter(reduce=...) has no forward AD",
    "scatter value multiply": "PyTorch's scatter(reduce=...) has no forward AD",
}


@pytest.mark.parametrize("name,fn,values", JVP_PARAMS)
def test_tangent_matches_torch(name, fn, values):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: these comparisons are optional")
    if name in TORCH_HAS_NO_TANGENT:
        pytest.skip(TORCH_HAS_NO_TANGENT[name])
    v = _direction(values)
    got = tangents(tl, fn, values, v)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's warning for dof <= 0
        expected = tangents(torch, fn, values, v)
    assert len(got) == len(expected) > 0
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=name)


# Where torchlite's tangent knowingly differs from PyTorch 2.13's.
@pytest.mark.parametrize("op", ["max", "min", "median", "nanmedian"])
def test_a_nan_result_shares_the_tangent_among_the_nans(op):
    # max() of a tensor with NaN is NaN: the tangent is the mean of the NaN elements' tangents, J v for the
    # Jacobian both torchlite's and PyTorch's backward use (the gradient shared among the NaN elements);
    # PyTorch 2.13's forward mode gives NaN there. (nanmedian is NaN only when every element is.)
    values = [[NAN, NAN], [NAN, NAN]] if op == "nanmedian" else [[1.0, NAN], [NAN, 3.0]]
    v = np.array([[0.25, 0.5], [1.5, 4.0]])
    (got,) = tangents(tl, lambda m, x: getattr(x, op)(), values, v)
    chosen = np.isnan(np.array(values))
    assert got == pytest.approx(v[chosen].mean())
    (expected,) = jacobian_times(lambda m, x: getattr(x, op)(), values, v)
    assert got == pytest.approx(expected)
