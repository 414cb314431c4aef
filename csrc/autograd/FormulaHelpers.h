#pragma once
// Placeholder until the formula helpers land: every helper raises NotImplementedError.
#include <tuple>
#include <vector>
#include "core/Error.h"
#include "core/Tensor.h"
namespace torchlite::autograd {
struct Unimplemented {
  const char* name;
  [[noreturn]] void fail() const { throw_error(ErrorKind::NotImplemented, str("formula helper ", name, " is not implemented yet")); }
  operator Tensor() const { fail(); }
  operator std::tuple<Tensor, Tensor>() const { fail(); }
  operator std::vector<Tensor>() const { fail(); }
};
template <typename... A> Unimplemented sum_backward(A&&...) { return {"sum_backward"}; }
template <typename... A> Unimplemented mm_mat1_backward(A&&...) { return {"mm_mat1_backward"}; }
template <typename... A> Unimplemented mm_mat2_backward(A&&...) { return {"mm_mat2_backward"}; }
template <typename... A> Unimplemented transpose_backward(A&&...) { return {"transpose_backward"}; }
template <typename... A> Unimplemented conj(A&&...) { return {"conj"}; }
template <typename... A> Unimplemented logit_backward(A&&...) { return {"logit_backward"}; }
template <typename... A> Unimplemented threshold_backward(A&&...) { return {"threshold_backward"}; }
template <typename... A> Unimplemented clamp_backward(A&&...) { return {"clamp_backward"}; }
template <typename... A> Unimplemented polygamma(A&&...) { return {"polygamma"}; }
template <typename... A> Unimplemented permute_backward(A&&...) { return {"permute_backward"}; }
template <typename... A> Unimplemented sum_to_size(A&&...) { return {"sum_to_size"}; }
template <typename... A> Unimplemented select_backward(A&&...) { return {"select_backward"}; }
template <typename... A> Unimplemented slice_backward(A&&...) { return {"slice_backward"}; }
template <typename... A> Unimplemented as_strided_backward(A&&...) { return {"as_strided_backward"}; }
template <typename... A> Unimplemented unfold_backward(A&&...) { return {"unfold_backward"}; }
template <typename... A> Unimplemented diagonal_backward(A&&...) { return {"diagonal_backward"}; }
template <typename... A> Unimplemented cat_backward(A&&...) { return {"cat_backward"}; }
template <typename... A> Unimplemented index_select_backward(A&&...) { return {"index_select_backward"}; }
template <typename... A> Unimplemented gather_backward(A&&...) { return {"gather_backward"}; }
template <typename... A> Unimplemented scatter_reduce_backward(A&&...) { return {"scatter_reduce_backward"}; }
template <typename... A> Unimplemented scatter_value_reduce_backward(A&&...) { return {"scatter_value_reduce_backward"}; }
template <typename... A> Unimplemented index_add_source_backward(A&&...) { return {"index_add_source_backward"}; }
template <typename... A> Unimplemented index_copy_source_backward(A&&...) { return {"index_copy_source_backward"}; }
template <typename... A> Unimplemented index_fill_value_backward(A&&...) { return {"index_fill_value_backward"}; }
template <typename... A> Unimplemented index_put_self_backward(A&&...) { return {"index_put_self_backward"}; }
template <typename... A> Unimplemented index_put_values_backward(A&&...) { return {"index_put_values_backward"}; }
template <typename... A> Unimplemented index_backward(A&&...) { return {"index_backward"}; }
template <typename... A> Unimplemented masked_select_backward(A&&...) { return {"masked_select_backward"}; }
template <typename... A> Unimplemented masked_scatter_backward(A&&...) { return {"masked_scatter_backward"}; }
template <typename... A> Unimplemented take_backward(A&&...) { return {"take_backward"}; }
template <typename... A> Unimplemented prod_backward(A&&...) { return {"prod_backward"}; }
template <typename... A> Unimplemented scale_grad_by_count(A&&...) { return {"scale_grad_by_count"}; }
template <typename... A> Unimplemented restore_reduced_dims(A&&...) { return {"restore_reduced_dims"}; }
template <typename... A> Unimplemented aminmax_backward(A&&...) { return {"aminmax_backward"}; }
template <typename... A> Unimplemented evenly_distribute_backward(A&&...) { return {"evenly_distribute_backward"}; }
template <typename... A> Unimplemented value_selecting_reduction_backward(A&&...) { return {"value_selecting_reduction_backward"}; }
template <typename... A> Unimplemented var_backward(A&&...) { return {"var_backward"}; }
template <typename... A> Unimplemented std_backward(A&&...) { return {"std_backward"}; }
template <typename... A> Unimplemented var_mean_backward(A&&...) { return {"var_mean_backward"}; }
template <typename... A> Unimplemented std_mean_backward(A&&...) { return {"std_mean_backward"}; }
template <typename... A> Unimplemented norm_backward(A&&...) { return {"norm_backward"}; }
template <typename... A> Unimplemented cumsum_backward(A&&...) { return {"cumsum_backward"}; }
template <typename... A> Unimplemented cumprod_backward(A&&...) { return {"cumprod_backward"}; }
template <typename... A> Unimplemented cummaxmin_backward(A&&...) { return {"cummaxmin_backward"}; }
}  // namespace torchlite::autograd
