#pragma once
// The helpers that `derivatives:` and `jvp:` formulas call (listed under `formula_helpers` in
// codegen/helpers.yaml). Each is written only with torchlite ops, so a backward
// pass that runs them with grad mode on records them, and double backward works.
//
// Calling convention (the generated backward Nodes call them so):
//  - an op argument comes with the op's own C++ type (`int[1]? dim` is
//    std::optional<IntArrayRef>, `Scalar? p` is const std::optional<Scalar>&...);
//  - `grad`, `result` and named returns are tensors; `x.sizes()` is an IntArrayRef;
//  - `grad` has the result's shape and dtype; the engine sums a returned gradient
//    down to its input's shape and casts it to its dtype, so a helper may return a
//    broadcast shape (masked_select_backward does);
//  - a joint helper gets grad_input_mask and returns an undefined Tensor for an
//    input that needs no gradient; an undefined incoming grad (an output nobody
//    used) counts as zeros.
#include <array>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/Scalar.h"
#include "core/Tensor.h"

namespace torchlite::autograd {

// The complex conjugate of a Scalar coefficient (a real one itself): `grad * scalar_conj(alpha)` is add's
// gradient for `other` in PyTorch's complex convention (helpers_pointwise.cpp).
Scalar scalar_conj(const Scalar& s);

// ------------------------------------------------------------------ shape (helpers_shape.cpp)

// sum's backward: grad expanded back to sizes; the reduced dims (all when dim is
// empty or absent) come back as size 1 first when !keepdim.
Tensor sum_backward(const Tensor& grad, IntArrayRef sizes, std::optional<IntArrayRef> dim, bool keepdim);
// expand's backward: grad summed over the dims expand added or broadcast, to sizes.
Tensor sum_to_size(const Tensor& grad, IntArrayRef sizes);
Tensor transpose_backward(const Tensor& grad, int64_t dim0, int64_t dim1);
// grad permuted by the inverse of dims.
Tensor permute_backward(const Tensor& grad, IntArrayRef dims);
// Zeros of sizes with grad at index along dim.
Tensor select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t index);
// Zeros of sizes with grad in the slice start:end:step along dim (start and end as
// the forward op took them; only start matters, grad gives the length).
Tensor slice_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
// Scatters grad, laid out by (size, stride, storage_offset) in self's storage, back
// into self's geometry; where self's elements share memory, they share the gradient.
Tensor as_strided_backward(const Tensor& grad, const Tensor& self, IntArrayRef size, IntArrayRef stride,
                           std::optional<int64_t> storage_offset);
// Sums the windows of unfold(dim, size, step) back into a tensor of sizes.
Tensor unfold_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, int64_t size, int64_t step);
// Zeros of sizes with grad on the diagonal (offset, dim1, dim2).
Tensor diagonal_backward(const Tensor& grad, IntArrayRef sizes, int64_t offset, int64_t dim1, int64_t dim2);
// grad split back into the inputs of cat along dim, one tensor per input.
std::vector<Tensor> cat_backward(const Tensor& grad, ArrayRef<Tensor> tensors, int64_t dim);

// ------------------------------------------------------------------ matrix products (helpers_linalg.cpp)

// grad @ mat2^T: mm's gradient for its first operand, laid out as that operand was (mat1_strides): a
// column-major mat1 (a transposed view, as F.linear's weight.t()) gets (mat2 @ grad^T)^T, whose
// transpose is contiguous, so no transposing copy follows.
// Scaled by alpha (addmm's), without a pass over the result when alpha is 1.
Tensor mm_mat1_backward(const Tensor& grad, const Tensor& mat2, IntArrayRef mat1_strides, const Scalar& alpha);
// mat1^T @ grad: mm's gradient for its second operand, laid out as mat2 was (the same rule), times alpha.
Tensor mm_mat2_backward(const Tensor& grad, const Tensor& mat1, IntArrayRef mat2_strides, const Scalar& alpha);

// torch.linalg (helpers_linalg.cpp): the gradients of the LAPACK kernels (codegen/helpers.yaml describes each).
Tensor linalg_lu_factor_backward(const Tensor& grad, const Tensor& LU, const Tensor& pivots);
std::tuple<Tensor, Tensor> linalg_lu_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& LU,
                                                    const Tensor& pivots, bool left, bool adjoint,
                                                    std::array<bool, 2> grad_input_mask);
std::tuple<Tensor, Tensor> linalg_solve_backward(const Tensor& grad, const Tensor& result, const Tensor& A,
                                                 const Tensor& B, bool left, std::array<bool, 2> grad_input_mask);
Tensor linalg_inv_backward(const Tensor& grad, const Tensor& inverse);
Tensor linalg_det_backward(const Tensor& grad, const Tensor& A, const Tensor& det);
Tensor linalg_slogdet_backward(const Tensor& grad_sign, const Tensor& grad_logabsdet, const Tensor& A,
                               const Tensor& sign);
Tensor linalg_cholesky_backward(const Tensor& grad, const Tensor& L, bool upper);
// torch.fft (helpers_fft.cpp): the gradients of _fft_r2c and _fft_c2r (codegen/helpers.yaml describes each).
Tensor fft_r2c_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization, bool onesided,
                        IntArrayRef self_sizes);
Tensor fft_c2r_backward(const Tensor& grad, IntArrayRef dim, int64_t normalization);
// Forward mode of the LAPACK ops: their results' tangents from the inputs' (helpers_linalg.cpp).
Tensor linalg_inv_jvp(const Tensor& A_t, const Tensor& inverse);
Tensor linalg_det_jvp(const Tensor& A_t, const Tensor& A, const Tensor& det);
Tensor linalg_slogdet_jvp(const Tensor& A_t, const Tensor& A);
Tensor linalg_slogdet_jvp_sign(const Tensor& A_t, const Tensor& A, const Tensor& sign);
Tensor linalg_lu_solve_jvp(const Tensor& LU_t, const Tensor& B_t, const Tensor& LU, const Tensor& pivots,
                           const Tensor& result, bool left, bool adjoint);
Tensor linalg_eig_jvp_eigenvalues(const Tensor& A_t, const Tensor& eigenvalues, const Tensor& eigenvectors);
Tensor linalg_eig_jvp_eigenvectors(const Tensor& A_t, const Tensor& eigenvalues, const Tensor& eigenvectors);
Tensor linalg_solve_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& A, const Tensor& B, const Tensor& result,
                        bool left);
Tensor linalg_solve_triangular_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& A, const Tensor& result,
                                   bool upper, bool left, bool unitriangular);
Tensor linalg_cholesky_jvp(const Tensor& A_t, const Tensor& L, bool upper);
Tensor linalg_eigh_jvp_eigenvalues(const Tensor& A_t, const Tensor& eigenvectors);
Tensor linalg_eigh_jvp_eigenvectors(const Tensor& A_t, const Tensor& eigenvalues, const Tensor& eigenvectors);
Tensor linalg_qr_jvp_Q(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode);
Tensor linalg_qr_jvp_R(const Tensor& A_t, const Tensor& Q, const Tensor& R, std::string_view mode);
Tensor linalg_svd_jvp_U(const Tensor& A_t, const Tensor& U, const Tensor& S, const Tensor& Vh, bool full_matrices);
Tensor linalg_svd_jvp_S(const Tensor& A_t, const Tensor& U, const Tensor& S, const Tensor& Vh, bool full_matrices);
Tensor linalg_svd_jvp_Vh(const Tensor& A_t, const Tensor& U, const Tensor& S, const Tensor& Vh, bool full_matrices);
Tensor linalg_lu_factor_jvp(const Tensor& A_t, const Tensor& LU, const Tensor& pivots);
Tensor linalg_lstsq_jvp(const Tensor& A_t, const Tensor& B_t, const Tensor& A, const Tensor& B,
                        const Tensor& solution);
Tensor linalg_qr_backward(const Tensor& grad_Q, const Tensor& grad_R, const Tensor& Q, const Tensor& R,
                          std::string_view mode);
Tensor linalg_eig_backward(const Tensor& grad_eigenvalues, const Tensor& grad_eigenvectors, const Tensor& eigenvalues,
                           const Tensor& eigenvectors);
Tensor linalg_eigh_backward(const Tensor& grad_eigenvalues, const Tensor& grad_eigenvectors, const Tensor& eigenvalues,
                            const Tensor& eigenvectors);
Tensor linalg_svd_backward(const Tensor& grad_U, const Tensor& grad_S, const Tensor& grad_Vh, const Tensor& U,
                           const Tensor& S, const Tensor& Vh, bool full_matrices);
std::tuple<Tensor, Tensor> linalg_solve_triangular_backward(const Tensor& grad, const Tensor& A, const Tensor& result,
                                                            bool upper, bool left, bool unitriangular,
                                                            std::array<bool, 2> grad_input_mask);
std::tuple<Tensor, Tensor> linalg_lstsq_backward(const Tensor& grad, const Tensor& A, const Tensor& B,
                                                 const Tensor& solution, std::array<bool, 2> grad_input_mask);

// ------------------------------------------------------------------ pointwise (helpers_pointwise.cpp)

// grad / (x (1 - x)); without eps (or with eps < 0) NaN outside [0, 1], with eps 0
// outside [eps, 1 - eps] (where logit clamps).
Tensor logit_backward(const Tensor& grad, const Tensor& self, std::optional<double> eps);
// grad where self > threshold, 0 where self <= threshold (NaN passes grad, as PyTorch).
Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold);
Tensor pow_backward(const Tensor& grad, const Tensor& self, const Scalar& exponent);
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
Tensor pow_backward_exponent(const Tensor& grad, const Scalar& self, const Tensor& exponent, const Tensor& result);
Tensor atan2_recip(const Tensor& self, const Tensor& other);
Tensor maximum_backward(const Tensor& grad, const Tensor& a, const Tensor& b);
// xlogy's gradient for self: grad * log(other), also where self is 0 (xlogy is self * log(other) on either side
// of 0), except where self is 0 and log(other) is not finite (other <= 0): 0 there, as PyTorch.
Tensor xlogy_backward_self(const Tensor& grad, const Tensor& self, const Tensor& other);
Tensor xlogy_backward_self(const Tensor& grad, const Tensor& self, const Scalar& other);
Tensor minimum_backward(const Tensor& grad, const Tensor& a, const Tensor& b);
// grad where min <= self <= max (a missing bound does not limit), else 0; 0 at NaN.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);

// ------------------------------------------------------------------ reductions and scans (helpers_reduce.cpp)

// prod's backward: grad times the product of the other elements, exact with zeros
// (no division). The first form reduces every element, the second one dim.
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim);
// x with the dims a reduction over dim removed put back as size 1 (x unchanged when
// keepdim, or when dim is empty or absent: a 0-dim x broadcasts).
Tensor restore_reduced_dims(const Tensor& x, std::optional<IntArrayRef> dim, bool keepdim);
// grad where mask, divided by the count of true entries of mask over dim (all dims
// when empty or absent): amax/amin share the gradient among ties.
Tensor scale_grad_by_count(const Tensor& grad, const Tensor& mask, std::optional<IntArrayRef> dim);
// aminmax's backward: amin's and amax's gradients added (either grad may be undefined).
Tensor aminmax_backward(const Tensor& grad_min, const Tensor& grad_max, const Tensor& self, const Tensor& min,
                        const Tensor& max, std::optional<int64_t> dim, bool keepdim);
// max()/min()/median() of the whole tensor: grad shared evenly among the elements
// equal to result, or among the NaN elements when result is NaN.
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
// max.dim, sort, topk, kthvalue, mode...: zeros of sizes with grad scattered at
// indices along dim (grad and indices unsqueezed at dim when !keepdim).
Tensor value_selecting_reduction_backward(const Tensor& grad, int64_t dim, const Tensor& indices, IntArrayRef sizes,
                                          bool keepdim);
// var's backward: grad * 2 (self - mean) / (N - correction); correction absent is 1.
Tensor var_backward(const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim);
// std's backward: var_backward of grad / (2 result), with 0 where result is 0.
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, std::optional<IntArrayRef> dim,
                    const std::optional<Scalar>& correction, bool keepdim);
// var_mean's and std_mean's backward: var's (std's) gradient plus mean's (either
// grad may be undefined).
Tensor var_mean_backward(const Tensor& grad_var, const Tensor& grad_mean, const Tensor& self,
                         std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim);
Tensor std_mean_backward(const Tensor& grad_std, const Tensor& grad_mean, const Tensor& self, const Tensor& std_result,
                         std::optional<IntArrayRef> dim, const std::optional<Scalar>& correction, bool keepdim);
// norm's backward for p = 2 (p absent), 0, 1, inf, -inf and any other p.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& p, const Tensor& norm,
                     std::optional<IntArrayRef> dim, bool keepdim);
// cumsum's backward: the cumulative sum of grad taken from the end of dim.
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
// cumprod's backward, exact where self has zeros, and so is its own derivative.
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
// cummax/cummin: grad summed into the positions indices point at.
Tensor cummaxmin_backward(const Tensor& grad, const Tensor& self, const Tensor& indices, int64_t dim);
// The output gradient of softmax's and log_softmax's backward ops (their double backward),
// along dim.
Tensor softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
Tensor log_softmax_double_backward(const Tensor& grad, const Tensor& grad_output, const Tensor& output, int64_t dim);
// _max_pool_backward's gradient for grad_output: grad (self's shape) gathered at indices within each plane
// (the last len(kernel_size) dims).
Tensor max_pool_double_backward(const Tensor& grad, const Tensor& indices, IntArrayRef kernel_size);
Tensor constant_pad_nd_backward(const Tensor& grad, IntArrayRef pad);
Tensor im2col_backward(const Tensor& grad, IntArrayRef sizes, IntArrayRef kernel_size, IntArrayRef dilation,
                       IntArrayRef padding, IntArrayRef stride);
Tensor embedding_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                          bool scale_grad_by_freq);
// the fused attention (helpers_attention.cpp)
Tensor sdpa_fused_jvp(const Tensor& query_t, const Tensor& key_t, const Tensor& value_t, const Tensor& query,
                      const Tensor& key, const Tensor& value, const std::optional<Tensor>& attn_mask,
                      const Tensor& logsumexp, bool is_causal, double scale);
// normalizations (helpers_norm.cpp)
Tensor layer_norm_jvp(const Tensor& input_t, const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t, const Tensor& input,
                      IntArrayRef normalized_shape, const std::optional<Tensor>& weight, const Tensor& mean,
                      const Tensor& rstd);
std::tuple<Tensor, Tensor, Tensor> layer_norm_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggB, const Tensor& grad_out, const Tensor& input,
    IntArrayRef normalized_shape, const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
    ArrayRef<bool> grad_input_mask);
Tensor group_norm_jvp(const Tensor& input_t, const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t, const Tensor& input,
                      const std::optional<Tensor>& weight, const Tensor& mean, const Tensor& rstd, int64_t group);
std::tuple<Tensor, Tensor, Tensor> group_norm_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggB, const Tensor& grad_out, const Tensor& input,
    const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight, int64_t group,
    ArrayRef<bool> grad_input_mask);
Tensor batch_norm_jvp(const Tensor& input_t, const std::optional<Tensor>& weight_t, const std::optional<Tensor>& bias_t, const Tensor& input,
                      const std::optional<Tensor>& weight, const Tensor& mean, const Tensor& invstd);
std::tuple<Tensor, Tensor, Tensor> batch_norm_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggB, const Tensor& grad_output, const Tensor& input,
    const std::optional<Tensor>& weight, const Tensor& mean, const Tensor& invstd, ArrayRef<bool> grad_input_mask);
// convolution's tangent: convolution(input_t, weight, bias_t) + convolution(input, weight_t).
Tensor convolution_jvp(const Tensor& input_t, const Tensor& weight_t, const std::optional<Tensor>& bias_t,
                       const Tensor& input, const Tensor& weight, IntArrayRef stride, IntArrayRef padding,
                       IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups);
// convolution_backward's gradients for (grad_output, input, weight) from those of its three outputs (any
// of them undefined): convolutions of ggI with weight and of input with ggW, plus ggb, for grad_output;
// grad_input with ggW as the weight for input; grad_weight with ggI as the input for weight.
std::tuple<Tensor, Tensor, Tensor> convolution_double_backward(
    const Tensor& ggI, const Tensor& ggW, const Tensor& ggb, const Tensor& grad_output, const Tensor& input,
    const Tensor& weight, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
    IntArrayRef output_padding, int64_t groups, std::array<bool, 3> grad_input_mask);
// _cross_entropy_forward's gradient: the fused backward of the loss, plus log_softmax's backward of a
// gradient reaching log_probs (double backward); either grad may be undefined.
Tensor cross_entropy_forward_backward(const Tensor& grad_output, const Tensor& grad_log_probs, const Tensor& log_probs,
                                      const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                                      int64_t ignore_index, const Tensor& total_weight);

// Forward mode (`jvp:` formulas): each takes self's tangent self_t (self's shape)
// and gives the output's tangent, J self_t with J the Jacobian the op's backward
// helper computes (so ties, zeros and dof <= 0 are treated as there).
//
// prod's tangent: the sum of self_t times the product of the other elements
// (exact with zeros); all elements, or along dim.
Tensor prod_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result);
Tensor prod_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim);
// amax/amin (dim as int[1]?, all when empty or absent) and aminmax (dim as int?):
// self_t averaged over the elements equal to result along the reduced dims.
Tensor amaxamin_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, std::optional<IntArrayRef> dim,
                    bool keepdim);
Tensor amaxamin_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, std::optional<int64_t> dim,
                    bool keepdim);
// max()/min()/median()/nanmedian() of the whole tensor: self_t averaged over the
// elements equal to result (the NaN ones when result is NaN).
Tensor evenly_distribute_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result);
// softmax's and log_softmax's tangents from their results, along dim.
Tensor softmax_jvp(const Tensor& self_t, const Tensor& result, int64_t dim);
Tensor log_softmax_jvp(const Tensor& self_t, const Tensor& result, int64_t dim);
// var's tangent: the sum over dim of self_t * 2 (self - mean) / (N - correction)
// (correction absent is 1; var_backward's factor, inf when N == correction).
Tensor var_jvp(const Tensor& self_t, const Tensor& self, std::optional<IntArrayRef> dim,
               const std::optional<Scalar>& correction, bool keepdim);
// std's tangent: var's over 2 result, 0 where result is 0 (result is std's output).
Tensor std_jvp(const Tensor& self_t, const Tensor& self, const Tensor& result, std::optional<IntArrayRef> dim,
               const std::optional<Scalar>& correction, bool keepdim);
// norm's tangent for p = 2 (p absent), 0, 1, inf, -inf (shared among the maxima)
// and any other p; 0 where the norm is 0 (result is the norm).
Tensor norm_jvp(const Tensor& self_t, const Tensor& self, const std::optional<Scalar>& p, const Tensor& result,
                std::optional<IntArrayRef> dim, bool keepdim);
// cumprod's tangent, exact where self has zeros.
Tensor cumprod_jvp(const Tensor& self_t, const Tensor& self, int64_t dim, const Tensor& result);

// ------------------------------------------------------------------ indexing (helpers_indexing.cpp)

// Zeros of sizes with grad index_add-ed at index along dim.
Tensor index_select_backward(const Tensor& grad, IntArrayRef sizes, int64_t dim, const Tensor& index);
// Zeros like self with grad scatter_add-ed at index (sparse_grad is ignored: the
// gradient is dense).
Tensor gather_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad);
// The (self, src) gradients of scatter_reduce for 'sum', 'prod', 'mean', 'amax',
// 'amin' (and scatter's 'add', 'multiply'); src's has src_sizes. self, src and
// result are read for 'prod', 'amax' and 'amin' only (save_if: undefined otherwise).
std::tuple<Tensor, Tensor> scatter_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim,
                                                   const Tensor& index, const Tensor& src, IntArrayRef src_sizes,
                                                   std::string_view reduce, bool include_self, const Tensor& result,
                                                   std::array<bool, 2> grad_input_mask);
// self's gradient of scatter(dim, index, value, reduce='add' | 'multiply').
Tensor scatter_value_reduce_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& index,
                                     const Scalar& value, std::string_view reduce, const Tensor& result);
// alpha * grad.index_select(dim, index), shaped like source.
Tensor index_add_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& source,
                                 const Scalar& alpha);
// grad.index_select(dim, index), shaped like source.
Tensor index_copy_source_backward(const Tensor& grad, int64_t dim, const Tensor& index, const Tensor& source);
// The sum of grad over the entries index_fill filled, each counted once (0-dim).
Tensor index_fill_value_backward(const Tensor& grad, int64_t dim, const Tensor& index);
// grad, with the entries index_put wrote zeroed unless accumulate.
Tensor index_put_self_backward(const Tensor& grad, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                               bool accumulate);
// grad[indices] summed down to values' shape.
Tensor index_put_values_backward(const Tensor& grad, ArrayRef<std::optional<Tensor>> indices, const Tensor& values);
// x[indices]'s backward: zeros of sizes with grad accumulated at indices.
Tensor index_backward(const Tensor& grad, IntArrayRef sizes, ArrayRef<std::optional<Tensor>> indices);
// Zeros of the broadcast shape of self and mask with grad, in order, where mask is true.
Tensor masked_select_backward(const Tensor& grad, const Tensor& self, const Tensor& mask);
// The entries of grad where mask is true, in order, as the first entries of a zero
// tensor of sizes (source's).
Tensor masked_scatter_backward(const Tensor& grad, const Tensor& mask, IntArrayRef sizes);
// Zeros like self with grad accumulated at the flat positions index (negative ones wrap).
Tensor take_backward(const Tensor& grad, const Tensor& self, const Tensor& index);

// Forward mode. scatter_reduce's (and scatter's with reduce=) tangent: for 'sum' and
// 'mean' the op on the tangents; for 'prod', 'amax', 'amin' (and 'multiply') each
// output's inputs' tangents weighted by scatter_reduce_backward's Jacobian.
Tensor scatter_reduce_jvp(const Tensor& self_t, const Tensor& src_t, const Tensor& self, int64_t dim,
                          const Tensor& index, const Tensor& src, std::string_view reduce, bool include_self,
                          const Tensor& result);
// The tangent of a value-selecting reduction (max.dim, kthvalue, median.dim, mode,
// sort, topk, cummax...): self_t gathered at indices along dim (indices unsqueezed
// at dim when !keepdim, and the result squeezed back); self_t itself when 0-dim.
Tensor gather_with_keepdimed_indices(const Tensor& self_t, int64_t dim, const Tensor& indices, bool keepdim);


// ------------------------------------------------------------------ special functions (helpers_special.cpp)

// The gradient of an input PyTorch has no formula for (zeta's x, igamma's a): raises NotImplementedError
// "the derivative for '<what>' is not implemented." when that gradient is needed.
Tensor not_implemented(std::string_view what);

}  // namespace torchlite::autograd
