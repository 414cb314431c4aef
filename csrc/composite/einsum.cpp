// einsum, tensordot and kron, written with views, sum, mul, mm and bmm, with
// PyTorch's algorithms and messages.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "core/TensorFactory.h"
#include "kernels/einsum.h"
#include "kernels/kron.h"
#include "kernels/tensordot.h"
#include "ops/bmm.h"
#include "ops/diagonal.h"
#include "ops/mm.h"
#include "ops/movedim_int.h"
#include "ops/mul_Tensor.h"
#include "ops/permute.h"
#include "ops/reshape.h"
#include "ops/squeeze_dim.h"
#include "ops/sum_dim_IntList.h"
#include "ops/unsqueeze.h"
#include "ops/view.h"
#include "ops/zeros.h"

namespace torchlite {
namespace {

Tensor sum_dim(const Tensor& t, int64_t d, bool keepdim) { return sum(t, IntArrayRef(d), keepdim, std::nullopt); }

// PyTorch's sumproduct_pair: left * right summed over sum_dims (both already
// aligned to the same dims, broadcasting where a size is 1), as one bmm.
Tensor sumproduct_pair(const Tensor& left_, const Tensor& right_, const std::vector<int64_t>& sum_dims) {
  int64_t dim = left_.dim();
  std::vector<bool> summed(static_cast<size_t>(dim), false);
  for (int64_t d : sum_dims) summed[d] = true;
  std::vector<int64_t> lro, lo, ro;
  int64_t lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
  Tensor left = left_, right = right_;
  for (int64_t i = 0; i < dim; ++i) {
    bool sl = left.size(i) != 1, sr = right.size(i) != 1;
    if (summed[i]) {
      if (sl && sr) {
        sum_size *= left.size(i);
      } else if (sl) {
        left = sum_dim(left, i, true);
      } else if (sr) {
        right = sum_dim(right, i, true);
      }
    } else if (sl && sr) {
      lro.push_back(i);
      lro_size *= left.size(i);
    } else if (sl) {
      lo.push_back(i);
      lo_size *= left.size(i);
    } else {
      ro.push_back(i);
      ro_size *= right.size(i);
    }
  }
  // left: (lro, lo, summed), right: (lro, summed, ro); the bmm result viewed as
  // (lro, lo, 1 per summed dim, ro) and permuted back to the original dim order.
  DimVector out_size;
  for (int64_t d : lro) out_size.push_back(left.size(d));
  for (int64_t d : lo) out_size.push_back(left.size(d));
  for (size_t k = 0; k < sum_dims.size(); ++k) out_size.push_back(1);
  for (int64_t d : ro) out_size.push_back(right.size(d));
  std::vector<int64_t> lperm(lro), rperm(lro);
  lperm.insert(lperm.end(), lo.begin(), lo.end());
  lperm.insert(lperm.end(), sum_dims.begin(), sum_dims.end());
  lperm.insert(lperm.end(), ro.begin(), ro.end());
  rperm.insert(rperm.end(), sum_dims.begin(), sum_dims.end());
  rperm.insert(rperm.end(), ro.begin(), ro.end());
  rperm.insert(rperm.end(), lo.begin(), lo.end());
  std::vector<int64_t> operm(static_cast<size_t>(dim), -1);
  int64_t k = 0;
  for (int64_t d : lro) operm[d] = k++;
  for (int64_t d : lo) operm[d] = k++;
  for (int64_t d : sum_dims) operm[d] = k++;
  for (int64_t d : ro) operm[d] = k++;
  Tensor l = reshape(permute(left, lperm), IntArrayRef({lro_size, lo_size, sum_size}));
  Tensor r = reshape(permute(right, rperm), IntArrayRef({lro_size, sum_size, ro_size}));
  Tensor result = permute(view(bmm(l, r), out_size.ref()), operm);
  DimVector sizes(result.sizes());
  for (int64_t i = dim - 1; i >= 0; --i) {
    if (summed[i]) sizes.erase(static_cast<size_t>(i));
  }
  return reshape(result, sizes.ref());
}

constexpr int kLabels = 52;  // A-Z then a-z, PyTorch's (and NumPy's) implicit output order
constexpr int kEllipsis = kLabels;

bool is_subscript(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
int label_of(char c) { return c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char subscript_of(int l) { return static_cast<char>(l < 26 ? 'A' + l : 'a' + l - 26); }

}  // namespace

// ------------------------------------------------------------------ einsum

Tensor composite::einsum(std::string_view equation, ArrayRef<Tensor> operands, std::optional<IntArrayRef> path) {
  TL_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  const int64_t num_ops = static_cast<int64_t>(operands.size());
  size_t arrow = equation.find("->");
  std::string_view lhs = equation.substr(0, arrow);

  // Parse the input terms into label lists (kEllipsis for "...").
  std::vector<std::vector<int>> op_labels(1);
  bool found_ell = false;
  int64_t curr_op = 0;
  for (size_t i = 0; i < lhs.size(); ++i) {
    char c = lhs[i];
    if (c == ' ') continue;
    if (c == '.') {
      TL_CHECK(!found_ell, "einsum(): found '.' for operand ", curr_op, " for which an ellipsis was already found");
      TL_CHECK(i + 2 < lhs.size() && lhs[i + 1] == '.' && lhs[i + 2] == '.', "einsum(): found '.' for operand ",
               curr_op, " that is not part of any ellipsis");
      op_labels[curr_op].push_back(kEllipsis);
      found_ell = true;
      i += 2;
    } else if (c == ',') {
      ++curr_op;
      TL_CHECK(curr_op < num_ops, "einsum(): fewer operands were provided than specified in the equation");
      op_labels.emplace_back();
      found_ell = false;
    } else {
      TL_CHECK(is_subscript(c), "einsum(): invalid subscript given at index ", i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      op_labels[curr_op].push_back(label_of(c));
    }
  }
  TL_CHECK(curr_op == num_ops - 1, "einsum(): more operands were provided than specified in the equation");

  // Count the labels and the dims the ellipses cover.
  std::vector<int64_t> label_count(kLabels, 0);
  int64_t ell_num_dim = 0;
  for (int64_t i = 0; i < num_ops; ++i) {
    const Tensor& op = operands[i];
    const auto& labels = op_labels[i];
    bool has_ell = std::find(labels.begin(), labels.end(), kEllipsis) != labels.end();
    int64_t nlabels = static_cast<int64_t>(labels.size()) - (has_ell ? 1 : 0);
    for (int l : labels) {
      if (l != kEllipsis) ++label_count[l];
    }
    if (has_ell) {
      TL_CHECK(nlabels <= op.dim(), "einsum(): the number of subscripts in the equation (", nlabels,
               ") is more than the number of dimensions (", op.dim(), ") for operand ", i);
      ell_num_dim = std::max(ell_num_dim, op.dim() - nlabels);
    } else {
      TL_CHECK(nlabels == op.dim(), "einsum(): the number of subscripts in the equation (", nlabels,
               ") does not match the number of dimensions (", op.dim(), ") for operand ", i,
               " and no ellipsis was given");
    }
  }

  // The layout every operand is permuted to: output dims, then the rest (summed).
  std::vector<int64_t> label_perm_index(kLabels, -1);
  int64_t perm_index = 0, ell_index = 0;
  bool ell_in_output = false;
  if (arrow == std::string_view::npos) {
    ell_index = perm_index;
    perm_index += ell_num_dim;
    ell_in_output = true;
    for (int l = 0; l < kLabels; ++l) {
      if (label_count[l] == 1) label_perm_index[l] = perm_index++;
    }
  } else {
    std::string_view rhs = equation.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      char c = rhs[i];
      if (c == ' ') continue;
      if (c == '.') {
        TL_CHECK(!ell_in_output, "einsum(): found '.' for output but an ellipsis (...) was already found");
        TL_CHECK(i + 2 < rhs.size() && rhs[i + 1] == '.' && rhs[i + 2] == '.',
                 "einsum(): found '.' for output that is not part of any ellipsis (...)");
        ell_index = perm_index;
        perm_index += ell_num_dim;
        ell_in_output = true;
        i += 2;
        continue;
      }
      TL_CHECK(is_subscript(c), "einsum(): invalid subscript given at index ", lhs.size() + 2 + i,
               " in the equation string, subscripts must be in [a-zA-Z]");
      int l = label_of(c);
      TL_CHECK(label_count[l] > 0, "einsum(): output subscript ", c,
               " does not appear in the equation for any input operand");
      TL_CHECK(label_perm_index[l] == -1, "einsum(): output subscript ", c, " appears more than once in the output");
      label_perm_index[l] = perm_index++;
    }
  }
  const int64_t out_size = perm_index;
  if (!ell_in_output) {
    ell_index = perm_index;
    perm_index += ell_num_dim;
  }
  for (int l = 0; l < kLabels; ++l) {
    if (label_count[l] > 0 && label_perm_index[l] == -1) label_perm_index[l] = perm_index++;
  }

  // Permute each operand to the layout: diagonals for repeated labels, size-1 dims for missing ones.
  std::vector<Tensor> permuted;
  std::vector<int64_t> seen_size(static_cast<size_t>(perm_index), 1);
  for (int64_t i = 0; i < num_ops; ++i) {
    Tensor operand = operands[i];
    std::vector<int64_t> perm_shape(static_cast<size_t>(perm_index), -1);
    std::vector<int64_t> label_dim(kLabels, -1);
    std::vector<int> dim_label;  // the label of each layout dim of this operand (kEllipsis + k for ellipsis dims)
    int64_t j = 0;
    const auto& labels = op_labels[i];
    for (int l : labels) {
      if (l == kEllipsis) {
        int64_t missing = ell_num_dim - (operand.dim() - static_cast<int64_t>(labels.size()) + 1);
        for (int64_t k = 0; k < missing; ++k) operand = unsqueeze(operand, j);
        for (int64_t k = 0; k < ell_num_dim; ++k) perm_shape[ell_index + k] = j++;
      } else if (label_dim[l] != -1) {
        int64_t d = label_dim[l];
        TL_CHECK(operand.size(j) == operand.size(d), "einsum(): subscript ", subscript_of(l),
                 " is repeated for operand ", i, " but the sizes don't match, ", operand.size(j), " != ",
                 operand.size(d));
        operand = movedim(diagonal(operand, 0, d, j), -1, d);
      } else {
        label_dim[l] = j;
        perm_shape[label_perm_index[l]] = j++;
      }
    }
    for (int64_t& index : perm_shape) {
      if (index == -1) {
        operand = unsqueeze(operand, -1);
        index = j++;
      }
    }
    operand = permute(operand, perm_shape);
    // Sizes must broadcast across operands.
    for (int64_t l = 0; l < kLabels; ++l) {
      if (label_dim[l] == -1) continue;
      int64_t d = label_perm_index[l], s = operand.size(d);
      TL_CHECK(s == 1 || seen_size[d] == 1 || s == seen_size[d], "einsum(): subscript ", subscript_of(static_cast<int>(l)),
               " has size ", s, " for operand ", i, " which does not broadcast with previously seen size ",
               seen_size[d]);
      if (s != 1) seen_size[d] = s;
    }
    for (int64_t k = 0; k < ell_num_dim; ++k) {
      int64_t d = ell_index + k, s = operand.size(d);
      TL_CHECK(s == 1 || seen_size[d] == 1 || s == seen_size[d], "einsum(): dimension ", k,
               " covered by ellipsis in operand ", i, "has size ", s,
               " which does not broadcast with previously seen ellipsis with size ", seen_size[d],
               " for the respective dimension");
      if (s != 1) seen_size[d] = s;
    }
    permuted.push_back(operand);
  }

  // The last operand each dim appears in (size > 1), and zero-size dims.
  std::vector<int64_t> dim_last_op(static_cast<size_t>(perm_index), 0);
  bool has_zero_size_dim = false;
  for (int64_t d = 0; d < perm_index; ++d) {
    int64_t broadcast_size = permuted[0].size(d);
    for (int64_t i = 1; i < num_ops; ++i) {
      int64_t s = permuted[i].size(d);
      if (s != 1) {
        broadcast_size = s;
        dim_last_op[d] = i;
      }
    }
    has_zero_size_dim = has_zero_size_dim || broadcast_size == 0;
  }
  if (has_zero_size_dim) {
    DimVector shape(static_cast<size_t>(out_size), 0);
    for (int64_t d = 0; d < out_size; ++d) shape[d] = permuted[dim_last_op[d]].size(d);
    return zeros(shape.ref(), permuted[0].scalar_type(), permuted[0].device());
  }

  // Contract left to right, summing each dim out after the last operand that has it.
  Tensor result = permuted[0];
  int64_t dim = out_size;
  for (int64_t i = dim; i < perm_index; ++i, ++dim) {
    if (dim_last_op[i] == 0) {
      result = result.size(dim) == 1 ? squeeze(result, dim) : sum_dim(result, dim, false);
      --dim;
    }
  }
  for (int64_t i = 1; i < num_ops; ++i) {
    Tensor operand = permuted[i];
    std::vector<int64_t> sum_dims;
    dim = out_size;
    for (int64_t j = dim; j < perm_index; ++j, ++dim) {
      if (dim_last_op[j] < i) {
        operand = squeeze(operand, dim);
        --dim;
      } else if (dim_last_op[j] == i) {
        if (result.size(dim) == 1) {
          operand = sum_dim(operand, dim, false);
          result = squeeze(result, dim);
          --dim;
        } else {
          sum_dims.push_back(dim);
        }
      }
    }
    result = sum_dims.empty() ? mul(result, operand) : sumproduct_pair(result, operand, sum_dims);
  }
  return result;
}

// ------------------------------------------------------------------ tensordot

Tensor composite::tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other) {
  TL_CHECK(dims_self.size() == dims_other.size(), "both dimension lists should have same length");
  TL_CHECK(self.scalar_type() == other.scalar_type(), "both inputs should have same dtype");
  int64_t csize = 1;  // the number of elements contracted
  Tensor t1 = self, t2 = other;
  for (size_t i = 0; i < dims_self.size(); ++i) {
    int64_t s1 = self.size(dims_self[i]), s2 = other.size(dims_other[i]);
    if (s2 == 1) {  // a broadcast dim is summed right away
      t1 = sum_dim(t1, dims_self[i], true);
    } else if (s1 == 1) {
      t2 = sum_dim(t2, dims_other[i], true);
    } else {
      TL_CHECK(s1 == s2, "contracted dimensions need to match, but first has size ", s1, " in dim ", dims_self[i],
               " and second has size ", s2, " in dim ", dims_other[i]);
      csize *= s1;
    }
  }
  auto bitset = [](IntArrayRef dims, int64_t ndim) {
    std::vector<bool> seen(static_cast<size_t>(ndim), false);
    for (int64_t d : dims) {
      int64_t w = wrap_dim(d, ndim);
      TL_CHECK(!seen[w], "dim ", w, " appears multiple times in the list of dims");
      seen[w] = true;
    }
    return seen;
  };
  std::vector<bool> c1 = bitset(dims_self, self.dim()), c2 = bitset(dims_other, other.dim());
  std::vector<int64_t> p1, p2;
  DimVector rsizes;
  int64_t size1 = 1, size2 = 1;
  for (int64_t i = 0; i < self.dim(); ++i) {
    if (c1[i]) continue;
    p1.push_back(i);
    size1 *= t1.size(i);
    rsizes.push_back(t1.size(i));
  }
  for (int64_t d : dims_self) p1.push_back(wrap_dim(d, self.dim()));
  for (int64_t d : dims_other) p2.push_back(wrap_dim(d, other.dim()));
  for (int64_t i = 0; i < other.dim(); ++i) {
    if (c2[i]) continue;
    p2.push_back(i);
    size2 *= t2.size(i);
    rsizes.push_back(t2.size(i));
  }
  Tensor a = reshape(permute(t1, p1), IntArrayRef({size1, csize}));
  Tensor b = reshape(permute(t2, p2), IntArrayRef({csize, size2}));
  return reshape(mm(a, b), rsizes.ref());
}

// ------------------------------------------------------------------ kron

Tensor composite::kron(const Tensor& self, const Tensor& other) {
  // (a0, a1) and (b0, b1) -> (a0, 1, a1, 1) * (1, b0, 1, b1) -> (a0 * b0, a1 * b1).
  int64_t nd = std::max(self.dim(), other.dim());
  DimVector a_shape, b_shape, result_shape;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t da = d - (nd - self.dim()), db = d - (nd - other.dim());
    int64_t sa = da >= 0 ? self.size(da) : 1, sb = db >= 0 ? other.size(db) : 1;
    a_shape.push_back(sa);
    a_shape.push_back(1);
    b_shape.push_back(1);
    b_shape.push_back(sb);
    result_shape.push_back(sa * sb);
  }
  return reshape(mul(reshape(self, a_shape.ref()), reshape(other, b_shape.ref())), result_shape.ref());
}

}  // namespace torchlite
